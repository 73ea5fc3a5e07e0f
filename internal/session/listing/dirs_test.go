package listing

import (
	"fmt"
	"github.com/memidx/memidx/internal/session/locate"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/memidx/memidx/internal/session/sessiontest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The session tree builders of every session package's tests.
var (
	tempRoot     = sessiontest.TempRoot
	mkdirs       = sessiontest.Mkdirs
	writeSession = sessiontest.WriteSession
	writeFile    = sessiontest.WriteFile
)

// listingTree builds a sessions root with every kind of neighbouring file.
type listingTree struct {
	root, sessions, custom, ext string
	dirs                        locate.Dirs
	t0                          time.Time
}

func newListingTree(t *testing.T) *listingTree {
	root := tempRoot(t)
	lt := &listingTree{
		root:     root,
		sessions: filepath.Join(root, "agent", "sessions"),
		custom:   filepath.Join(root, "custom"),
		ext:      filepath.Join(root, "ext"),
		t0:       time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	lt.dirs = locate.Dirs{SessionsRoot: lt.sessions, ArchiveRoot: filepath.Join(root, "agent", "archive", "sessions")}
	at := func(ns int) time.Time { return lt.t0.Add(time.Duration(ns)) }
	s := lt.sessions
	proj := filepath.Join(s, "-proj")
	a := filepath.Join(proj, "T1_aaa")
	writeSession(t, a+".jsonl", "aaa", "/p", at(100))
	writeSession(t, filepath.Join(proj, "T2_bbb.jsonl"), "bbb", "/p", at(300))
	writeSession(t, filepath.Join(proj, "T0_tie.jsonl"), "tie", "/p", at(300))
	// neighbours that are not sessions
	writeFile(t, filepath.Join(proj, ".T1_aaa.jsonl.0123456789abcdef.tmp"), "{}")
	writeFile(t, filepath.Join(proj, ".T1_aaa.jsonl.lock"), "")
	writeFile(t, filepath.Join(proj, ".T1_aaa.jsonl.lock.os"), "")
	writeFile(t, filepath.Join(proj, ".hidden.jsonl"), "{}")
	writeFile(t, filepath.Join(proj, "T1_aaa.jsonl.0123456789abcdef.bak"), "{}")
	writeFile(t, filepath.Join(proj, "notes.txt"), "")
	writeFile(t, filepath.Join(proj, ".jsonl"), "")
	mkdirs(t, filepath.Join(proj, "dir.jsonl"))
	// artifacts and nested sessions
	writeFile(t, filepath.Join(a, "0.bash.log"), "out")
	writeFile(t, filepath.Join(a, "sub1.md"), "out")
	writeSession(t, filepath.Join(a, "sub1.jsonl"), "sub1-id", "/p", at(400))
	writeSession(t, filepath.Join(a, "__advisor.jsonl"), "adv", "/p", at(50))
	writeSession(t, filepath.Join(a, "__advisor.review.jsonl"), "adv2", "/p", at(51))
	writeSession(t, filepath.Join(a, "sub1", "sub1.child.jsonl"), "child-id", "/p", at(60))
	writeFile(t, filepath.Join(a, "sub1.jsonl.tmp-0000"), "{}")
	writeFile(t, filepath.Join(a, "btw-history", "entry-1.json"), "{}")
	require.NoError(t, os.Symlink(a, filepath.Join(a, "sub1", "loop")))
	// other buckets
	other := filepath.Join(s, "--srv-x--")
	writeSession(t, filepath.Join(other, "T3_ccc.jsonl"), "ccc", "/srv/x", at(200))
	require.NoError(t, os.Symlink(a+".jsonl", filepath.Join(other, "alias.jsonl")))
	require.NoError(t, os.Symlink(filepath.Join(root, "nowhere.jsonl"), filepath.Join(other, "dangling.jsonl")))
	writeSession(t, filepath.Join(s, ".trash", "T4_ddd.jsonl"), "ddd", "/p", at(900))
	writeFile(t, filepath.Join(s, "stray.jsonl"), "{}")
	// a bucket that is a symlink to a directory outside the root
	writeSession(t, filepath.Join(lt.ext, "T5_eee.jsonl"), "eee", "/e", at(150))
	require.NoError(t, os.Symlink(lt.ext, filepath.Join(s, "-linked")))
	// the explicit flat session dir
	writeSession(t, filepath.Join(lt.custom, "T6_fff.jsonl"), "fff", "/p", at(250))
	writeSession(t, filepath.Join(lt.custom, "T6_fff", "sub.jsonl"), "fff-sub", "/p", at(260))
	writeSession(t, filepath.Join(lt.custom, "deeper", "x.jsonl"), "not-flat", "/p", at(999))
	// the gc archive
	writeFile(t, filepath.Join(lt.dirs.ArchiveRoot, "-proj", "T0_old.jsonl.gz"), "gz")
	writeFile(t, filepath.Join(lt.dirs.ArchiveRoot, "-proj", "T0_old", "sub.jsonl.gz"), "gz")
	return lt
}

func paths(refs []Ref) []string {
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.Path
	}
	return out
}

func TestListSessions(t *testing.T) {
	lt := newListingTree(t)
	s := lt.sessions
	a := filepath.Join(s, "-proj", "T1_aaa")

	refs, err := ListSessions(lt.dirs, ListOptions{})
	requireSkipped(t, err, ReasonOutsideRoots)
	assert.Equal(t, []string{
		filepath.Join(a, "sub1.jsonl"),
		filepath.Join(s, "-proj", "T0_tie.jsonl"), // same mtime: path order
		filepath.Join(s, "-proj", "T2_bbb.jsonl"),
		filepath.Join(s, "--srv-x--", "T3_ccc.jsonl"),
		a + ".jsonl",
		filepath.Join(a, "sub1", "sub1.child.jsonl"),
		filepath.Join(a, "__advisor.review.jsonl"),
		filepath.Join(a, "__advisor.jsonl"),
	}, paths(refs))

	byPath := map[string]Ref{}
	for _, r := range refs {
		byPath[r.Path] = r
	}
	sub := byPath[filepath.Join(a, "sub1.jsonl")]
	assert.True(t, sub.Nested())
	assert.Equal(t, "-proj", sub.Bucket())
	assert.True(t, lt.t0.Add(400).Equal(sub.ModTime()), "nanosecond mtime: %v", sub.ModTime())
	top := byPath[a+".jsonl"]
	assert.False(t, top.Nested())
	assert.Equal(t, "-proj", top.Bucket())
	assert.Positive(t, top.Size())
	assert.Equal(t, top.Path, top.Top(), "a listed top-level session is its own top")
	assert.Equal(t, top.Path, sub.Top())
	assert.Equal(t, top.Path, byPath[filepath.Join(a, "sub1", "sub1.child.jsonl")].Top())
	// The refs of a directory share one place: a ref is a path, a stat
	// and a pointer, not two strings more.
	tie, bbb := byPath[filepath.Join(s, "-proj", "T0_tie.jsonl")], byPath[filepath.Join(s, "-proj", "T2_bbb.jsonl")]
	assert.Same(t, tie.place, bbb.place)
	assert.Same(t, sub.place, byPath[filepath.Join(a, "__advisor.jsonl")].place)
	assert.Equal(t, "--srv-x--", byPath[filepath.Join(s, "--srv-x--", "T3_ccc.jsonl")].Bucket())
	assert.LessOrEqual(t, unsafe.Sizeof(Ref{}), uintptr(40))
	resolved := ResolvedRef(top.Path, "-proj", false, top.Stat)
	assert.Equal(t, "-proj", resolved.Bucket())
	assert.Empty(t, resolved.Top(), "a resolved ref was not listed")
	assert.Empty(t, ResolvedRef(top.Path, "", true, nil).Bucket())
	// The bucket symlinked outside the sessions root is not followed.
	assert.NotContains(t, byPath, filepath.Join(lt.ext, "T5_eee.jsonl"))

	refs, err = ListSessions(lt.dirs, ListOptions{TopLevelOnly: true})
	requireSkipped(t, err, ReasonOutsideRoots)
	assert.Equal(t, []string{
		filepath.Join(s, "-proj", "T0_tie.jsonl"),
		filepath.Join(s, "-proj", "T2_bbb.jsonl"),
		filepath.Join(s, "--srv-x--", "T3_ccc.jsonl"),
		a + ".jsonl",
	}, paths(refs))
}

func TestListSessionsExplicitDir(t *testing.T) {
	lt := newListingTree(t)
	d := lt.dirs
	d.SessionDir = lt.custom
	refs, err := ListSessions(d, ListOptions{TopLevelOnly: true})
	requireSkipped(t, err, ReasonOutsideRoots)
	assert.Contains(t, paths(refs), filepath.Join(lt.custom, "T6_fff.jsonl"))
	assert.NotContains(t, paths(refs), filepath.Join(lt.custom, "deeper", "x.jsonl"))
	assert.Len(t, refs, 5)

	refs, err = ListSessions(d, ListOptions{})
	requireSkipped(t, err, ReasonOutsideRoots)
	assert.Contains(t, paths(refs), filepath.Join(lt.custom, "T6_fff", "sub.jsonl"))
	for _, r := range refs {
		if strings.HasPrefix(r.Path, lt.custom) {
			assert.Empty(t, r.Bucket(), r.Path)
		}
	}

	// An explicit dir that is a bucket does not list its files twice.
	d.SessionDir = filepath.Join(lt.root, "agent", "sessions", "-proj") + "/"
	refs, err = ListSessions(d, ListOptions{})
	requireSkipped(t, err, ReasonOutsideRoots)
	assert.Len(t, refs, 8)
}

func TestListSessionsSymlinkedRoot(t *testing.T) {
	lt := newListingTree(t)
	link := filepath.Join(lt.root, "agentlink")
	require.NoError(t, os.Symlink(filepath.Join(lt.root, "agent"), link))
	refs, err := ListSessions(locate.Dirs{SessionsRoot: filepath.Join(link, "sessions")}, ListOptions{TopLevelOnly: true})
	requireSkipped(t, err, ReasonOutsideRoots)
	// Paths keep the root's spelling; the alias symlink maps onto it too.
	assert.Equal(t, []string{
		filepath.Join(link, "sessions", "-proj", "T0_tie.jsonl"),
		filepath.Join(link, "sessions", "-proj", "T2_bbb.jsonl"),
		filepath.Join(link, "sessions", "--srv-x--", "T3_ccc.jsonl"),
		filepath.Join(link, "sessions", "-proj", "T1_aaa.jsonl"),
	}, paths(refs))
}

func TestListSessionsMissingAndOddRoots(t *testing.T) {
	root := tempRoot(t)
	refs, err := ListSessions(locate.Dirs{SessionsRoot: filepath.Join(root, "none"), SessionDir: filepath.Join(root, "none2")}, ListOptions{})
	assert.NoError(t, err)
	assert.Empty(t, refs)

	refs, err = ListSessions(locate.Dirs{}, ListOptions{})
	assert.NoError(t, err)
	assert.Empty(t, refs)

	// A sessions root that is a file is an error, not an empty answer.
	writeFile(t, filepath.Join(root, "file"), "")
	_, err = ListSessions(locate.Dirs{SessionsRoot: filepath.Join(root, "file")}, ListOptions{})
	assert.Error(t, err)
}

func TestListSessionsUnreadableBucket(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every directory")
	}
	lt := newListingTree(t)
	locked := filepath.Join(lt.sessions, "--srv-x--")
	require.NoError(t, os.Chmod(locked, 0))
	t.Cleanup(func() { _ = os.Chmod(locked, 0o755) })
	refs, err := ListSessions(lt.dirs, ListOptions{TopLevelOnly: true})
	assert.Error(t, err)
	assert.Len(t, refs, 3)
	reasons, unavailable := ListReasons(err)
	assert.True(t, unavailable)
	assert.Equal(t, []string{ReasonOutsideRoots}, reasons)
}

func TestListSessionsSkipsFIFO(t *testing.T) {
	lt := newListingTree(t)
	fifo := filepath.Join(lt.sessions, "-proj", "T9_fifo.jsonl")
	if err := exec.Command("mkfifo", fifo).Run(); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	refs, err := ListSessions(lt.dirs, ListOptions{TopLevelOnly: true})
	requireSkipped(t, err, ReasonOutsideRoots)
	assert.NotContains(t, paths(refs), fifo)
}

func TestListSessionsDepthBound(t *testing.T) {
	root := tempRoot(t)
	s := filepath.Join(root, "sessions")
	writeSession(t, filepath.Join(s, "-p", "T_x.jsonl"), "x", "/p", time.Unix(1, 0))
	dir := filepath.Join(s, "-p", "T_x")
	writeSession(t, filepath.Join(dir, "n.jsonl"), "n", "/p", time.Unix(1, 0))
	for i := range MaxNestedDepth + 2 {
		dir = filepath.Join(dir, "d")
		writeSession(t, filepath.Join(dir, "n.jsonl"), "n", "/p", time.Unix(int64(2+i), 0))
	}
	refs, err := ListSessions(locate.Dirs{SessionsRoot: s}, ListOptions{})
	// What lies deeper is reported, never silently left out.
	requireSkipped(t, err, ReasonMaxListingDepth)
	assert.Len(t, refs, 1+MaxNestedDepth)
}

func TestListArchived(t *testing.T) {
	lt := newListingTree(t)
	refs, err := ListArchived(lt.dirs)
	require.NoError(t, err)
	require.Len(t, refs, 1)
	assert.Equal(t, filepath.Join(lt.dirs.ArchiveRoot, "-proj", "T0_old.jsonl.gz"), refs[0].Path)
	assert.True(t, refs[0].Archived())
	assert.Equal(t, "-proj", refs[0].Bucket())
}

func TestListBuckets(t *testing.T) {
	lt := newListingTree(t)
	refs, existing, err := ListBuckets(lt.dirs, []string{"-missing", "-linked", "", ".", "..", "-proj/T1_aaa", "-proj"}, ListOptions{TopLevelOnly: true})
	requireSkipped(t, err, ReasonOutsideRoots)
	assert.Equal(t, []string{filepath.Join(lt.sessions, "-linked"), filepath.Join(lt.sessions, "-proj")}, existing)
	assert.Len(t, refs, 3)
}

// requireSkipped asserts that a listing's error names exactly the files it
// left out on purpose, with these reasons, and nothing unreadable.
func requireSkipped(t *testing.T, err error, want ...string) {
	t.Helper()
	reasons, unavailable := ListReasons(err)
	require.False(t, unavailable, "%v", err)
	require.NotEmpty(t, reasons)
	for _, r := range reasons {
		require.Contains(t, want, r, "%v", err)
	}
}

// TestListedStatIsTheFilesStat: the listing's fstatat must give what a
// stat of the path gives (the index compares one with the other), for
// plain files, nested ones and symlinks alike; and the parallel listing
// must equal a one-worker listing, errors included.
func TestListedStatIsTheFilesStat(t *testing.T) {
	lt := newListingTree(t)
	alias := filepath.Join(lt.sessions, "-proj", "alias2.jsonl")
	require.NoError(t, os.Symlink(filepath.Join(lt.sessions, "-proj", "T2_bbb.jsonl"), alias))
	refs, err := ListSessions(lt.dirs, ListOptions{})
	requireSkipped(t, err, ReasonOutsideRoots)
	require.NotEmpty(t, refs)
	for _, r := range refs {
		require.NotNil(t, r.Stat, r.Path)
		want, regular, err := statPath(r.Path)
		require.NoError(t, err)
		require.True(t, regular)
		assert.Equal(t, want, *r.Stat, r.Path)
		// The path spelled once per directory is display's spelling.
		canon, err := filepath.EvalSymlinks(r.Path)
		require.NoError(t, err)
		path, _, _ := display(mapRoots(lt.dirs), canon)
		assert.Equal(t, path, r.Path)
	}

	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	one, oneErr := ListSessions(lt.dirs, ListOptions{})
	runtime.GOMAXPROCS(4)
	many, manyErr := ListSessions(lt.dirs, ListOptions{})
	assert.Equal(t, one, many)
	assert.Equal(t, fmt.Sprint(oneErr), fmt.Sprint(manyErr))
}

// TestSortRefsIsNewestFirstThenPath checks the radix sort against a
// comparison sort on random listings: many equal times, times before 1970
// and far apart, empty and single listings.
func TestSortRefsIsNewestFirstThenPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 500 {
		n := rng.IntN(200)
		refs := make([]Ref, n)
		for i := range refs {
			var ns int64
			switch rng.IntN(4) {
			case 0:
				ns = int64(rng.IntN(5)) // ties
			case 1:
				ns = -rng.Int64N(1 << 50) // before 1970
			default:
				ns = rng.Int64()
			}
			refs[i] = Ref{Path: fmt.Sprintf("/s/%03d.jsonl", rng.IntN(1000)), Stat: &FileStat{MtimeNs: ns}}
		}
		want := slices.Clone(refs)
		slices.SortStableFunc(want, func(a, b Ref) int {
			if c := b.ModTime().Compare(a.ModTime()); c != 0 {
				return c
			}
			return strings.Compare(a.Path, b.Path)
		})
		SortRefs(refs)
		for i := range refs {
			require.Equal(t, want[i].ModTime().UnixNano(), refs[i].ModTime().UnixNano(), "round %d at %d", round, i)
			require.Equal(t, want[i].Path, refs[i].Path, "round %d at %d", round, i)
		}
	}
}

func TestLargestFirstOrdersBySizeStably(t *testing.T) {
	for _, tc := range []struct {
		sizes []int64
		want  []int
	}{
		{nil, []int{}},
		{[]int64{4096}, []int{0}},
		{[]int64{4096, 40960, 8192}, []int{1, 2, 0}},
		{[]int64{0, 0, 0}, []int{0, 1, 2}}, // unknown sizes: as given
		{[]int64{4096, 12288, 4096, 12288}, []int{1, 3, 0, 2}},
	} {
		dirs := make([]bucketDir, len(tc.sizes))
		for i, s := range tc.sizes {
			dirs[i] = bucketDir{dir: fmt.Sprint("/d", i), size: s}
		}
		assert.Equal(t, tc.want, largestFirst(dirs), "sizes %v", tc.sizes)
	}
}

// fakeEntry is a directory entry that need not exist.
type fakeEntry struct {
	name string
	typ  fs.FileMode
}

func (e fakeEntry) Name() string               { return e.name }
func (e fakeEntry) IsDir() bool                { return e.typ.IsDir() }
func (e fakeEntry) Type() fs.FileMode          { return e.typ }
func (e fakeEntry) Info() (fs.FileInfo, error) { return nil, fs.ErrNotExist }

// TestBucketDirsKeepsARealDirectoryItCannotStat: a real bucket directory
// whose stat fails stays a bucket (listing it reports the failure); a
// symlink that leads nowhere is no bucket.
func TestBucketDirsKeepsARealDirectoryItCannotStat(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(root, "real"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "real", "a.jsonl"), []byte("x"), 0o644))
	buckets, linked := bucketDirs(root, []fs.DirEntry{
		fakeEntry{"real", fs.ModeDir},
		fakeEntry{"gone", fs.ModeDir},
		fakeEntry{"dangling", fs.ModeSymlink},
		fakeEntry{".hidden", fs.ModeDir},
		fakeEntry{"file.jsonl", 0},
	})
	assert.True(t, linked)
	var names []string
	for _, b := range buckets {
		names = append(names, b.bucket)
		if b.bucket == "gone" {
			assert.Zero(t, b.size)
		} else {
			assert.Positive(t, b.size)
		}
	}
	assert.Equal(t, []string{"real", "gone"}, names)
}

// A lister's allowed roots are the directories' AllowedRoots, taken from
// the roots it resolved once: symlinked, missing, the same twice, with and
// without an archive.
func TestListerAllowedRootsAreAllowedRoots(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real", "sessions")
	require.NoError(t, os.MkdirAll(real, 0o700))
	require.NoError(t, os.Symlink(filepath.Join(base, "real"), filepath.Join(base, "link")))
	archive := filepath.Join(base, "archive", "sessions")
	require.NoError(t, os.MkdirAll(archive, 0o700))
	linked := filepath.Join(base, "link", "sessions")
	missing := filepath.Join(base, "missing")
	cases := []locate.Dirs{
		{SessionsRoot: real},
		{SessionsRoot: linked, ArchiveRoot: archive},
		{SessionsRoot: real, SessionDir: linked},
		{SessionsRoot: missing, SessionDir: real, ArchiveRoot: archive},
		{SessionsRoot: real + "/./", SessionDir: missing},
		{ArchiveRoot: archive},
	}
	for _, d := range cases {
		l := newLister(d, ListOptions{})
		assert.Equal(t, d.AllowedRoots(), l.allowed, "%+v", d)
	}
	assert.Equal(t, []string{real, real}, newLister(cases[2], ListOptions{}).allowed, "the link resolved")
}

// Two listers have the same roots key only when they map the same roots:
// a watched listing keeps its parts under it. Paths that fmt.Sprint would
// print alike (a space inside a name) stay apart.
func TestRootsKeyTellsRootsApart(t *testing.T) {
	key := func(roots ...mappedRoot) string { return (&lister{roots: roots}).rootsKey() }
	cases := [][]mappedRoot{
		nil,
		{{given: "/a", canon: "/a", sessions: true}},
		{{given: "/a", canon: "/b", sessions: true}},
		{{given: "/a", canon: "/a"}},
		{{given: "/a", canon: "/a", archive: true}},
		{{given: "/a b", canon: "/a"}},
		{{given: "/a", canon: "b /a"}},
		{{given: "/a", canon: "/a", sessions: true}, {given: "/c", canon: "/c"}},
		{{given: "/c", canon: "/c"}, {given: "/a", canon: "/a", sessions: true}},
		{{given: "/a", canon: "/a", sessions: true}, {given: "/c", canon: "/c", sessions: true, archive: true}},
	}
	seen := map[string]int{}
	for i, roots := range cases {
		k := key(roots...)
		if j, dup := seen[k]; dup {
			t.Fatalf("cases %d and %d share the key %q", j, i, k)
		}
		seen[k] = i
		assert.Equal(t, k, key(slices.Clone(roots)...), "case %d: the same roots, another key", i)
	}
	assert.NotEqual(t, ListOptions{}.key(), ListOptions{TopLevelOnly: true}.key())
}
