package listing_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/session/listing"
	"github.com/memidx/memidx/internal/session/scopes"
)

// watchFixture is a scope fixture with an explicit session dir, a
// symlinked bucket (never kept) and a watching resolver beside a plain one.
type watchFixture struct {
	*scopeFixture
	cache *listing.ListCache
	rng   *rand.Rand
	n     int
}

func newWatchFixture(t *testing.T) *watchFixture {
	if !listing.WatchSupported {
		t.Skip("no usable watcher here")
	}
	f := &watchFixture{scopeFixture: newScopeFixture(t), rng: rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))}
	f.Dirs.SessionDir = f.Custom
	f.Write(t, filepath.Join(f.Custom, "T8_id8.jsonl"), "id8", f.App, 80)
	ext := filepath.Join(f.Sessions, "-src-ext")
	f.Write(t, filepath.Join(ext, "T9_id9.jsonl"), "id9", f.Other, 90)
	require.NoError(t, os.Symlink(ext, filepath.Join(f.Sessions, "-src-linked")))
	f.cache = listing.NewListCache()
	f.cache.EnableInject()
	t.Cleanup(func() { f.cache.Close() })
	return f
}

func (f *watchFixture) resolvers() (plain, watching *scopes.Resolver) {
	plain = &scopes.Resolver{Dirs: f.Dirs, Env: f.Env}
	watching = &scopes.Resolver{Dirs: f.Dirs, Env: f.Env, Watch: f.cache}
	return
}

// check resolves every scope kind both ways and requires equal answers,
// Stat included (a stale kept listing differs at least in ctime).
func (f *watchFixture) check(t *testing.T, what string) {
	t.Helper()
	plain, watching := f.resolvers()
	scopes := []string{"global", "project", "session", "session:id1", "session:dup"}
	for _, sc := range scopes {
		want := resolve(t, plain, sc)
		got := resolve(t, watching, sc)
		require.Equal(t, want, got, "%s: scope %s", what, sc)
	}
	wantRefs, wantErr := listing.ListSessions(f.Dirs, listing.ListOptions{})
	gotRefs, gotErr := listing.ListSessions(f.Dirs, listing.ListOptions{})
	if v := f.cache.Begin(); v != nil {
		gotRefs, gotErr = v.ListSessions(f.Dirs, listing.ListOptions{})
	}
	require.Equal(t, wantRefs, gotRefs, what)
	require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(gotErr), what)
}

// sessionFiles lists every session file of the fixture (plainly).
func (f *watchFixture) sessionFiles(t *testing.T) []string {
	refs, _ := listing.ListSessions(f.Dirs, listing.ListOptions{})
	var out []string
	for _, r := range refs {
		if !strings.Contains(r.Path, "-src-linked") && !strings.Contains(r.Path, "-src-ext") {
			out = append(out, r.Path)
		}
	}
	require.NotEmpty(t, out)
	return out
}

func (f *watchFixture) buckets(t *testing.T) []string {
	ents, err := os.ReadDir(f.Sessions)
	require.NoError(t, err)
	var out []string
	for _, e := range ents {
		if e.Type().IsDir() && e.Name() != "-src-ext" {
			out = append(out, filepath.Join(f.Sessions, e.Name()))
		}
	}
	return out
}

// mutate changes the tree at random and says what it did.
func (f *watchFixture) mutate(t *testing.T) string {
	f.n++
	files := f.sessionFiles(t)
	pick := files[f.rng.IntN(len(files))]
	switch k := f.rng.IntN(9); k {
	case 0, 1: // append a turn
		fh, err := os.OpenFile(pick, os.O_APPEND|os.O_WRONLY, 0)
		require.NoError(t, err)
		_, err = fmt.Fprintf(fh, `{"type":"message","id":"a%d","parentId":null,"timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"w%d"}}`+"\n", f.n, f.n)
		require.NoError(t, err)
		require.NoError(t, fh.Close())
		return "append " + pick
	case 2: // rewrite: same size, mtime restored
		st, err := os.Stat(pick)
		require.NoError(t, err)
		b, err := os.ReadFile(pick)
		require.NoError(t, err)
		i := strings.LastIndex(string(b), `"content":"`) + len(`"content":"`)
		b[i] ^= 1
		require.NoError(t, os.WriteFile(pick, b, 0o644))
		require.NoError(t, os.Chtimes(pick, st.ModTime(), st.ModTime()))
		return "rewrite " + pick
	case 3: // delete
		if len(files) < 4 {
			return "none"
		}
		require.NoError(t, os.Remove(pick))
		return "delete " + pick
	case 4: // new project directory
		b := filepath.Join(f.Sessions, fmt.Sprintf("-src-new%d", f.n))
		f.Write(t, filepath.Join(b, fmt.Sprintf("T%d_n%d.jsonl", f.n, f.n)), fmt.Sprintf("n%d", f.n), f.Other, 1000+f.n)
		return "new project " + b
	case 5: // rename a session file
		to := filepath.Join(filepath.Dir(pick), fmt.Sprintf("R%d_r%d.jsonl", f.n, f.n))
		require.NoError(t, os.Rename(pick, to))
		return "rename " + pick
	case 6: // rename a bucket
		bs := f.buckets(t)
		b := bs[f.rng.IntN(len(bs))]
		if filepath.Base(b) == "-src-app" || strings.Contains(b, "-src-linked") {
			return "none"
		}
		to := filepath.Join(f.Sessions, fmt.Sprintf("-src-moved%d", f.n))
		require.NoError(t, os.Rename(b, to))
		return "rename bucket " + b
	case 7: // a subagent session in an artifacts directory
		stem := strings.TrimSuffix(pick, ".jsonl")
		if strings.Count(pick, string(filepath.Separator)) > strings.Count(f.Custom, string(filepath.Separator))+4 {
			return "none"
		}
		f.Write(t, filepath.Join(stem, fmt.Sprintf("sub%d.jsonl", f.n)), fmt.Sprintf("s%d", f.n), f.App, 2000+f.n)
		return "nested " + stem
	default: // remove an artifacts directory
		stem := strings.TrimSuffix(pick, ".jsonl")
		if _, err := os.Stat(stem); err != nil {
			return "none"
		}
		require.NoError(t, os.RemoveAll(stem))
		return "remove artifacts " + stem
	}
}

func TestListCacheEqualsListing(t *testing.T) {
	f := newWatchFixture(t)
	rounds := 400
	if testing.Short() {
		rounds = 80
	}
	f.check(t, "start")
	for i := 0; i < rounds; i++ {
		what := f.mutate(t)
		f.check(t, fmt.Sprintf("round %d: %s", i, what))
	}
	st := f.cache.Stats()
	t.Logf("%+v", st)
	require.Positive(t, st.Reused, "the cache was never used")
	require.Zero(t, st.WatchFailed)
}

// TestListCacheQuiet: with nothing changing, a listing reads no directory.
func TestListCacheQuiet(t *testing.T) {
	f := newWatchFixture(t)
	f.check(t, "warm")
	before := f.cache.Stats()
	f.check(t, "quiet")
	after := f.cache.Stats()
	// Only the symlinked bucket (never kept) is read again.
	require.Equal(t, before.Listed+4, after.Listed, "%+v", after) // the symlinked bucket, by the 4 listings of every bucket
	require.Greater(t, after.Reused, before.Reused)
}

// TestListCacheOverflow loses events as a full queue does and then
// delivers the overflow: the next listing is a full one.
func TestListCacheOverflow(t *testing.T) {
	f := newWatchFixture(t)
	f.check(t, "warm")
	target := filepath.Join(f.Canon, "T1_id1.jsonl")
	f.cache.DropEvents(1)
	fh, err := os.OpenFile(target, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = fh.WriteString(`{"type":"message","id":"lost","parentId":null,"timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"lost"}}` + "\n")
	require.NoError(t, err)
	require.NoError(t, fh.Close())

	// The event is lost: the kept listing is stale (this is what the
	// test would miss without the overflow).
	v := f.cache.Begin()
	require.True(t, v.Fresh())
	stale, _ := v.ListSessions(f.Dirs, listing.ListOptions{})
	want, _ := listing.ListSessions(f.Dirs, listing.ListOptions{})
	require.NotEqual(t, want, stale)

	f.cache.DropEvents(0)
	f.cache.Inject(fsnotify.ErrEventOverflow)
	f.check(t, "after overflow")
	require.Equal(t, 1, f.cache.Stats().Overflows)

	// Any other watcher error replaces the watcher.
	restarts := f.cache.Stats().Restarts
	f.cache.Inject(fmt.Errorf("read error"))
	f.check(t, "after error")
	require.Equal(t, restarts+1, f.cache.Stats().Restarts)
}

// TestListCacheNoSentinel: a barrier that is never seen (its event lost)
// falls back to a full listing after SyncTimeout.
func TestListCacheNoSentinel(t *testing.T) {
	f := newWatchFixture(t)
	f.cache.SyncTimeout = 50 * time.Millisecond
	f.check(t, "warm")
	f.cache.DropEvents(2)
	v := f.cache.Begin()
	require.False(t, v.Fresh())
	require.Equal(t, 1, f.cache.Stats().Fallbacks)
	f.cache.DropEvents(0)
	f.check(t, "after")
	require.True(t, f.cache.Begin().Fresh())

	// A watcher that never delivers is given up after listing.MaxTimeouts.
	f.cache.DropEvents(2)
	for i := 0; i < listing.MaxTimeouts; i++ {
		require.False(t, f.cache.Begin().Fresh())
	}
	require.Nil(t, f.cache.Begin(), "still watching")
	f.check(t, "given up")
	f.cache = listing.NewListCache()
	f.cache.EnableInject()
	t.Cleanup(func() { f.cache.Close() })
	f.cache.SyncTimeout = 50 * time.Millisecond
	f.check(t, "new cache")

	// A sentinel directory removed under the cache (a tmp cleaner)
	// replaces the watcher.
	require.NoError(t, os.RemoveAll(f.cache.SentinelDir()))
	f.check(t, "sentinel removed")
	f.check(t, "sentinel back")
	require.True(t, f.cache.Begin().Fresh())
}

// TestListCacheDisabled: an inert cache lists as listing.ListSessions.
func TestListCacheDisabled(t *testing.T) {
	f := newWatchFixture(t)
	f.cache.Close()
	f.check(t, "closed")
	c := listing.DisabledCache()
	require.Nil(t, c.Begin())
}

func TestListCacheConcurrent(t *testing.T) {
	f := newWatchFixture(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, watching := f.resolvers()
		for i := 0; i < 50; i++ {
			_, err := watching.Resolve(scopes.Scope{Kind: scopes.ScopeGlobal})
			if err != nil {
				panic(err)
			}
		}
	}()
	for i := 0; i < 30; i++ {
		f.mutate(t)
		f.check(t, "concurrent")
	}
	<-done
}

// TestListCacheAncestorRenamed: renaming an ancestor of a listed
// directory raises no event in it; the kept listing must not outlive it.
func TestListCacheAncestorRenamed(t *testing.T) {
	f := newWatchFixture(t)
	f.Dirs.SessionDir = filepath.Join(f.Root, "x", "custom")
	f.Write(t, filepath.Join(f.Dirs.SessionDir, "T10_id10.jsonl"), "id10", f.App, 95)
	f.check(t, "warm")
	require.NoError(t, os.Rename(filepath.Join(f.Root, "x"), filepath.Join(f.Root, "y")))
	f.check(t, "ancestor renamed")
	f.Write(t, filepath.Join(f.Dirs.SessionDir, "T11_id11.jsonl"), "id11", f.App, 96)
	f.check(t, "ancestor recreated")
	// The same for the sessions root's parent.
	agent := filepath.Dir(f.Sessions)
	require.NoError(t, os.Rename(agent, agent+".old"))
	f.check(t, "agent dir renamed")
	require.NoError(t, os.Rename(agent+".old", agent))
	f.check(t, "agent dir back")
}

// cachedFixture is a scope fixture and a ListCache; it skips where there
// is no usable watcher.
func cachedFixture(t *testing.T) (*scopeFixture, *listing.ListCache) {
	if !listing.WatchSupported {
		t.Skip("no usable watcher here")
	}
	c := listing.NewListCache()
	t.Cleanup(func() { c.Close() })
	return newScopeFixture(t), c
}

// listChecked lists f's sessions through c and plainly, requires the same
// answer of both, and returns c's view.
func listChecked(t *testing.T, c *listing.ListCache, f *scopeFixture, what string) *listing.View {
	t.Helper()
	v := c.Begin()
	require.NotNil(t, v)
	got, gotErr := v.ListSessions(f.Dirs, listing.ListOptions{})
	want, wantErr := listing.ListSessions(f.Dirs, listing.ListOptions{})
	require.Equal(t, want, got, what)
	require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(gotErr), what)
	return v
}

// TestListCacheBucketsUnderKeptRoot: once a kept root's buckets were seen
// under it, a quiet listing stats the root alone; a bucket replaced by
// renames (events in the root: its kept part goes) is listed afresh.
func TestListCacheBucketsUnderKeptRoot(t *testing.T) {
	f, c := cachedFixture(t)
	list := func(what string) int64 {
		t.Helper()
		before := listing.DirChecks()
		if v := listChecked(t, c, f, what); !v.Fresh() {
			return -1 // a full listing (a watched directory was renamed)
		}
		return listing.DirChecks() - before
	}
	buckets, err := os.ReadDir(f.Sessions)
	require.NoError(t, err)
	require.Greater(t, len(buckets), 2)
	list("warm")
	list("seen under the root")
	require.Equal(t, int64(1), list("quiet"), "a quiet listing stats more than the root")

	// Swap two buckets through a third name: the root's events drop its
	// kept part, and each bucket's path names another directory now.
	a, b := f.Canon, f.OtherBucket
	require.NoError(t, os.Rename(a, a+".swap"))
	require.NoError(t, os.Rename(b, a))
	require.NoError(t, os.Rename(a+".swap", b))
	require.NotEqual(t, int64(1), list("swapped"))
	list("seen again")
	require.Equal(t, int64(1), list("quiet again"))

	// A bucket removed and made again at the same path, then changed.
	require.NoError(t, os.RemoveAll(f.Legacy))
	f.Write(t, filepath.Join(f.Legacy, "T8_re.jsonl"), "re", f.App, 800)
	list("bucket made again")
	f.Write(t, filepath.Join(f.Legacy, "T9_re2.jsonl"), "re2", f.App, 810)
	list("new bucket written")
}

// TestListCacheWrittenFiles: a write to a listed session file re-stats
// that file and reads no directory; a write to a file the listing does not
// name (a lock file) reads its directory again; every listing answers as
// a plain one does.
func TestListCacheWrittenFiles(t *testing.T) {
	f, c := cachedFixture(t)
	patched := 0
	list := func(what string) listing.WatchStats {
		t.Helper()
		before := c.Stats()
		require.True(t, listChecked(t, c, f, what).Fresh(), what)
		after := c.Stats()
		patched += after.Patched - before.Patched
		return listing.WatchStats{Listed: after.Listed - before.Listed, Restated: after.Restated - before.Restated}
	}
	list("warm")
	list("kept")
	top, nested := filepath.Join(f.Canon, "T1_id1.jsonl"), filepath.Join(f.Canon, "T1_id1", "sub.jsonl")
	for i := range 3 {
		appendLine(t, top)
		appendLine(t, top)
		appendLine(t, filepath.Join(f.OtherBucket, "T3_id3.jsonl"))
		require.Equal(t, listing.WatchStats{Restated: 2}, list(fmt.Sprint("appended ", i)))
		require.Equal(t, listing.WatchStats{}, list(fmt.Sprint("quiet ", i)))
	}
	appendLine(t, nested)
	require.Equal(t, listing.WatchStats{Restated: 1}, list("nested session appended"))
	require.Equal(t, 4, patched, "merged listings patched, not merged again")

	// Sessions growing at random, one or several between two listings.
	var files []string
	for _, r := range func() []listing.Ref { r, _ := listing.ListSessions(f.Dirs, listing.ListOptions{}); return r }() {
		files = append(files, r.Path)
	}
	rng := rand.New(rand.NewPCG(3, 5))
	for round := range 40 {
		for range 1 + rng.IntN(3) + 12*rng.IntN(2) { // now and then more than a few
			appendLine(t, files[rng.IntN(len(files))])
		}
		require.Equal(t, 0, list(fmt.Sprint("grown at random ", round)).Listed)
	}
	require.Greater(t, patched, 30)

	// The parts a growing session made are not kept alive by the ones
	// made from them.
	alive := c.KeptPartAlive(f.Canon)
	require.NotNil(t, alive)
	for i := range 3 {
		appendLine(t, top)
		list(fmt.Sprint("grown again ", i))
	}
	runtime.GC()
	runtime.GC()
	require.False(t, alive(), "a re-stat-ed listing keeps the one it was made from")

	// Not a listed file: the directory is read again.
	appendLine(t, filepath.Join(f.Canon, ".T1_id1.jsonl.lock"))
	require.Equal(t, 1, list("lock file written").Listed)

	// Written, then the part dropped by an event that comes after this
	// listing looked it up: what was written before is not lost.
	appendLine(t, top)
	listing.BeforeWritten(func(key string) {
		if !strings.Contains(key, f.Canon) {
			return
		}
		listing.BeforeWritten(nil)
		f.Write(t, filepath.Join(f.Canon, "T9_late.jsonl"), "late", f.App, 990)
		c.Begin() // its barrier: the new file's event is applied
	})
	t.Cleanup(func() { listing.BeforeWritten(nil) })
	v := c.Begin()
	got, err := v.ListSessions(f.Dirs, listing.ListOptions{})
	require.NoError(t, err)
	var size int64
	for _, r := range got {
		if r.Path == top {
			size = r.Size()
		}
	}
	st, err := os.Stat(top)
	require.NoError(t, err)
	require.Equal(t, st.Size(), size, "a write before the listing began is lost")

	// Written, then gone: the remove's event reads the directory.
	appendLine(t, filepath.Join(f.OtherBucket, "T4_dup.jsonl"))
	require.NoError(t, os.Remove(filepath.Join(f.OtherBucket, "T4_dup.jsonl")))
	require.Equal(t, 1, list("written, then removed").Listed)
}

// A quiet listing is the last one again (same refs, not merged anew);
// any change lists afresh and answers as a plain listing does.
func TestListCacheMemo(t *testing.T) {
	f, c := cachedFixture(t)
	list := func() []listing.Ref {
		v := c.Begin()
		require.NotNil(t, v)
		refs, err := v.ListSessions(f.Dirs, listing.ListOptions{})
		require.NoError(t, err)
		want, err := listing.ListSessions(f.Dirs, listing.ListOptions{})
		require.NoError(t, err)
		require.Equal(t, want, refs)
		return refs
	}
	same := func(a, b []listing.Ref) bool { return len(a) > 0 && len(a) == len(b) && &a[0] == &b[0] }
	list()      // reads every directory
	a := list() // kept parts, merged once
	b := list()
	require.True(t, same(a, b), "a quiet listing merges again")
	require.Equal(t, len(b), cap(b), "shared refs must be clipped")

	changes := []func(){
		func() { f.Write(t, filepath.Join(f.Canon, "T6_new.jsonl"), "new", f.App, 900) },
		func() { appendLine(t, filepath.Join(f.OtherBucket, "T3_id3.jsonl")) },
		func() { require.NoError(t, os.Remove(filepath.Join(f.Canon, "T5_dup.jsonl"))) },
		func() { f.Write(t, filepath.Join(f.Sessions, "-src-fresh", "T9_fresh.jsonl"), "fresh", f.App, 950) },
	}
	for i, change := range changes {
		change()
		got := list()
		require.False(t, same(b, got), "change %d: the memo answered", i)
		b = list()
	}
}

func appendLine(t *testing.T, path string) {
	t.Helper()
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = fh.WriteString("{}\n")
	require.NoError(t, err)
	require.NoError(t, fh.Close())
}

// TestListCacheDirReplacedUnderKeptListing: a kept listing's directory
// moved away with its unwatched parent, and another made at its path,
// raise no event the cache sees; the listing must not answer for the new
// directory.
func TestListCacheDirReplacedUnderKeptListing(t *testing.T) {
	f, c := cachedFixture(t)
	f.Dirs.SessionDir = filepath.Join(f.Root, "x", "custom")
	f.Write(t, filepath.Join(f.Dirs.SessionDir, "T10_id10.jsonl"), "id10", f.App, 95)
	listChecked(t, c, f, "warm")
	require.True(t, listChecked(t, c, f, "kept").Fresh())
	require.NoError(t, os.Rename(filepath.Join(f.Root, "x"), filepath.Join(f.Root, "y")))
	f.Write(t, filepath.Join(f.Dirs.SessionDir, "T11_id11.jsonl"), "id11", f.App, 96)
	listChecked(t, c, f, "parent moved, another directory in its place")
}
