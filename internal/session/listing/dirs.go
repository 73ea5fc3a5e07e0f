package listing

import (
	"cmp"
	"errors"
	"github.com/memidx/memidx/internal/session/locate"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/memidx/memidx/internal/session/confine"
)

// Ref is one session file found on disk.
type Ref struct {
	// Path is the absolute path of the file: its canonical (symlink-free)
	// location, spelled under Dirs.SessionsRoot or Dirs.SessionDir as given
	// when it lies inside one of them. The same file always gets the same
	// Path, however it was reached.
	Path string
	// Stat is the file's stat when it was listed or resolved, so that a
	// caller need not stat it again: its size and times (Size, ModTime).
	Stat *FileStat
	// place is where the ref was found (Bucket, Top, Nested, Archived),
	// shared by the refs of a directory: a server keeps every ref twice
	// (its directory's listing and the merged one), and two strings a ref
	// were 3.2 MB of each at 100k sessions, two flags 1.6 MB of both.
	// nil: no bucket, not listed, neither nested nor archived.
	place *refPlace
}

// refPlace is the bucket of the refs of one directory and, for nested
// ones, the top-level session whose artifacts hold them ("" for a listed
// top-level session: its own Path).
type refPlace struct {
	bucket, top string
	listed      bool
	// nested: subagent sessions or advisor transcripts inside another
	// session's artifacts directory; archived: gzip files of the omp gc
	// archive (ListArchived only).
	nested, archived bool
}

// ResolvedRef is the ref of a file found by its path rather than listed
// (its Top is ""): bucket is its bucket directory's name ("" outside
// the sessions root).
func ResolvedRef(path, bucket string, nested bool, st *FileStat) Ref {
	r := Ref{Path: path, Stat: st}
	if bucket != "" || nested {
		r.place = &refPlace{bucket: bucket, nested: nested}
	}
	return r
}

// Nested reports a subagent session or advisor transcript inside another
// session's artifacts directory.
func (r Ref) Nested() bool { return r.place != nil && r.place.nested }

// Archived reports a gzip file of the omp gc archive (ListArchived only).
func (r Ref) Archived() bool { return r.place != nil && r.place.archived }

// Bucket is the bucket directory name under the sessions root, "" for a
// file outside it.
func (r Ref) Bucket() string {
	if r.place == nil {
		return ""
	}
	return r.place.bucket
}

// Size is the file's size when it was listed (0 without a stat).
func (r *Ref) Size() int64 {
	if r.Stat == nil {
		return 0
	}
	return r.Stat.Size
}

// ModTime is the file's modification time when it was listed, with the
// file system's precision (nanoseconds on Linux).
func (r *Ref) ModTime() time.Time { return time.Unix(0, r.mtimeNs()) }

// mtimeNs is ModTime in Unix nanoseconds (0 without a stat).
func (r *Ref) mtimeNs() int64 {
	if r.Stat == nil {
		return 0
	}
	return r.Stat.MtimeNs
}

// Top is the path of the top-level session whose artifacts directory
// holds a nested ref, its own Path for a top-level one, and "" when the
// ref was not listed.
func (r Ref) Top() string {
	switch {
	case r.place == nil || !r.place.listed:
		return ""
	case r.place.top == "":
		return r.Path
	}
	return r.place.top
}

// placed returns the place of a ref listed in bucket under top ("": a
// top-level session) by l, cur when it is that place: a listed place's
// nested follows from its top, and its archived from l, which made cur.
func (l *lister) placed(cur *refPlace, bucket, top string) *refPlace {
	if cur != nil && cur.bucket == bucket && cur.top == top && cur.listed {
		return cur
	}
	return &refPlace{bucket: bucket, top: top, listed: true, nested: top != "", archived: l.archived}
}

// ListOptions select what ListSessions returns. The zero value is what
// indexing wants: top-level and nested sessions.
type ListOptions struct {
	// TopLevelOnly lists only <bucket>/*.jsonl, like OMP's own listing.
	TopLevelOnly bool
}

// MaxNestedDepth bounds how deep ListSessions looks inside an artifacts
// directory. Subagents nest one directory per level (OMP's default
// task.maxRecursionDepth is 2).
const MaxNestedDepth = 16

// ListSessions lists the session files of dirs, newest ModTime first, ties
// by Path ascending:
//
//   - <SessionsRoot>/<bucket>/*.jsonl, one level as OMP lists them (buckets
//     whose name starts with "." are skipped);
//   - <SessionDir>/*.jsonl when an explicit session dir is set (flat);
//   - unless opts.TopLevelOnly, every *.jsonl below a listed session's
//     artifacts directory (<stem>/), as omp gc finds them: subagent sessions
//     <agentId>.jsonl, their children <agentId>/<agentId>.<child>.jsonl, and
//     advisor transcripts __advisor[.<slug>].jsonl.
//
// A file counts when its name ends in ".jsonl", does not start with "." and
// it is (or a symlink resolves to) a regular file: atomic-rewrite temp files
// (.x.jsonl.<hex>.tmp), publish locks (.x.jsonl.lock), EPERM backups
// (x.jsonl.<hex>.bak), directories named *.jsonl, FIFOs and devices are
// skipped. Symlinked files, bucket directories and directories of an
// artifacts tree are followed when they resolve inside the session roots
// (an artifacts tree lists no directory twice, and a symlink leaving the
// roots is skipped with ReasonOutsideRoots). A file reached twice (a symlink to a listed file, an
// explicit dir inside the sessions root) is listed once. Gzip archives are
// not listed here; see ListArchived.
//
// A missing directory yields no refs and no error. Directories that exist
// but cannot be read are skipped; the refs found are still returned, with
// an error naming what was skipped.
func ListSessions(dirs locate.Dirs, opts ListOptions) ([]Ref, error) {
	l := newLister(dirs, opts)
	l.listRoot(dirs.SessionsRoot)
	if dirs.SessionDir != "" {
		l.linked = true // it may lie inside the sessions root
		l.listFlat(dirs.SessionDir, "")
	}
	return l.result()
}

// ListBuckets lists the sessions of the named buckets under the sessions
// root (see ListSessions), and reports which bucket directories exist.
func ListBuckets(dirs locate.Dirs, buckets []string, opts ListOptions) (refs []Ref, existing []string, err error) {
	l := newLister(dirs, opts)
	l.linked = true // a bucket may be named twice
	var todo []bucketDir
	for _, b := range buckets {
		if b == "" || b == "." || b == ".." || strings.ContainsAny(b, `/\`) {
			continue // not a single directory name
		}
		dir := filepath.Join(dirs.SessionsRoot, b)
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			existing = append(existing, dir)
			todo = append(todo, bucketDir{dir, b, st.Size()})
		}
	}
	l.listBuckets(todo)
	refs, err = l.result()
	return refs, existing, err
}

// ListArchived lists the gzip files of the omp gc archive,
// <ArchiveRoot>/<bucket>/*.jsonl.gz, with Archived set. memidx does not read
// them yet.
func ListArchived(dirs locate.Dirs) ([]Ref, error) {
	l := newLister(dirs, ListOptions{TopLevelOnly: true})
	l.suffix = ".jsonl.gz"
	l.archived = true
	if c, err := canonical(filepath.Clean(dirs.ArchiveRoot)); err == nil {
		l.allowed = []string{c}
	}
	l.listRoot(dirs.ArchiveRoot)
	return l.result()
}

type lister struct {
	opts     ListOptions
	suffix   string
	archived bool
	roots    []mappedRoot
	allowed  []string // canonical roots a listed file must lie in
	// linked turns true once a file may be reached twice: through a
	// symlink, a directory that is not its canonical self, or a second
	// root. Before that every listed path is new.
	linked bool
	seen   map[string]int // built when linked turns true
	refs   []Ref
	// runs are more refs, taken whole from the parts of a listing while
	// nothing was linked (see take).
	runs [][]Ref
	errs []error
	// watch, when set, is called with each directory before it is read
	// (see ListCache); read records those directories, and unwatched
	// that a watch could not be set on one of them.
	watch     func(dir string) bool
	read      []string
	unwatched bool
}

// mappedRoot spells canonical paths under a root as the caller gave it.
type mappedRoot struct {
	given, canon string
	sessions     bool // the sessions root: first path element is a bucket
	archive      bool // the archive root, whose files are not read
}

// rootsKey identifies the roots l maps (the allowed roots are theirs):
// a path holds no NUL, so two keys are equal only for equal roots. The
// watched listing makes its keys with it on every call (fmt.Sprint of
// the roots was 11 µs of a 100k server's rare-term call).
func (l *lister) rootsKey() string {
	var b strings.Builder
	for _, r := range l.roots {
		b.WriteString(r.given)
		b.WriteByte(0)
		b.WriteString(r.canon)
		b.WriteByte(0)
		b.WriteByte('0' + boolBit(r.sessions) + 2*boolBit(r.archive))
	}
	return b.String()
}

func boolBit(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// key is opts in a listing key.
func (opts ListOptions) key() string {
	if opts.TopLevelOnly {
		return "top"
	}
	return "all"
}

func newLister(dirs locate.Dirs, opts ListOptions) *lister {
	roots := mapRoots(dirs)
	for _, r := range roots {
		if !r.archive {
			confine.AddRoot(r.given, r.canon)
		}
	}
	return &lister{
		opts:    opts,
		suffix:  ".jsonl",
		roots:   roots,
		allowed: allowedOf(roots),
	}
}

// allowedOf is dirs.AllowedRoots() of the roots mapRoots found: the
// canonical sessions root and session dir, resolved once (a walk of every
// element of each path, which a watched recall paid twice a call).
func allowedOf(roots []mappedRoot) []string {
	var allowed []string
	for _, r := range roots {
		if !r.archive {
			allowed = append(allowed, r.canon)
		}
	}
	return allowed
}

func mapRoots(dirs locate.Dirs) []mappedRoot {
	var roots []mappedRoot
	for i, r := range []string{dirs.SessionsRoot, dirs.SessionDir, dirs.ArchiveRoot} {
		if r == "" {
			continue
		}
		r = filepath.Clean(r)
		if c, err := canonical(r); err == nil {
			roots = append(roots, mappedRoot{given: r, canon: c, sessions: i != 1, archive: i == 2})
		}
	}
	return roots
}

// display spells a canonical path under the first root containing it. It
// names the bucket when that root is the sessions (or archive) root, and
// reports a file below a session's artifacts directory as nested.
func display(roots []mappedRoot, canonical string) (path, bucket string, nested bool) {
	for _, r := range roots {
		rel, ok := locate.Within(r.canon, canonical)
		if !ok || rel == "" {
			continue
		}
		depth := strings.Count(rel, string(filepath.Separator))
		if r.sessions {
			if i := strings.IndexByte(rel, filepath.Separator); i > 0 {
				bucket = rel[:i]
			}
			nested = depth >= 2
		} else {
			nested = depth >= 1
		}
		return filepath.Join(r.given, rel), bucket, nested
	}
	return canonical, "", false
}

// Spell is how a listing spells a file it reached by its canonical path:
// under the first root of dirs holding it, with its bucket, and whether it
// lies below a session's artifacts directory.
func Spell(dirs locate.Dirs, canonical string) (path, bucket string, nested bool) {
	return display(mapRoots(dirs), canonical)
}

// ListExplicit lists the explicit session dir alone (see ListSessions).
func ListExplicit(dirs locate.Dirs, opts ListOptions) ([]Ref, error) {
	l := newLister(dirs, opts)
	l.listFlat(dirs.SessionDir, "")
	refs, err := l.result()
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	return refs, err
}

func (l *lister) fail(err error) {
	if !errors.Is(err, fs.ErrNotExist) {
		l.errs = append(l.errs, err)
	}
}

// skip records a file or directory left out on purpose.
func (l *lister) skip(reason, path string) {
	l.errs = append(l.errs, &SkipError{Reason: reason, Path: path})
}

func (l *lister) listRoot(root string) {
	if root == "" {
		return
	}
	root = filepath.Clean(root)
	ents, err := os.ReadDir(root)
	if err != nil {
		l.fail(err)
		return
	}
	buckets, _ := bucketDirs(root, ents)
	l.listBuckets(buckets)
}

// bucketDirs are the bucket directories among a root's entries: real
// directories, and symlinks to directories (linked reports one), with
// their sizes where a stat gives them. A real directory that cannot be
// stat-ed stays (size 0): listing it then says why.
func bucketDirs(root string, ents []fs.DirEntry) (buckets []bucketDir, linked bool) {
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		symlink := e.Type()&fs.ModeSymlink != 0
		if symlink {
			linked = true
		} else if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		var size int64
		st, err := os.Stat(dir)
		switch {
		case err == nil && st.IsDir():
			size = st.Size()
		case symlink:
			continue // dangling, or not to a directory
		}
		buckets = append(buckets, bucketDir{dir, e.Name(), size})
	}
	return buckets, linked
}

// bucketDir is a directory of session files and its bucket name; size,
// the directory's own size where known, tells roughly how many files it
// holds.
type bucketDir struct {
	dir, bucket string
	size        int64
}

// listBuckets lists directories in parallel (one stat per file is most of
// a listing's cost, and the stats of two directories do not wait on each
// other), then takes their refs in directory order, so that the result and
// its errors do not depend on the schedule.
func (l *lister) listBuckets(dirs []bucketDir) {
	workers := min(runtime.GOMAXPROCS(0), len(dirs))
	if workers <= 1 {
		for _, d := range dirs {
			l.listFlat(d.dir, d.bucket)
		}
		return
	}
	parts := make([]listed, len(dirs))
	order := largestFirst(dirs)
	inParallel(len(dirs), func(k int) {
		i := order[k]
		part := l.fork()
		part.listFlat(dirs[i].dir, dirs[i].bucket)
		parts[i] = part.listed()
	})
	l.take(parts)
}

// largestFirst orders the directories to list, the largest first: the
// workers then end together, where a large directory taken last kept one
// of them busy alone (half a millisecond of a 2k archive's listing).
func largestFirst(dirs []bucketDir) []int {
	order := make([]int, len(dirs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(dirs[b].size, dirs[a].size) })
	return order
}

// inParallel calls f(0), …, f(n-1) on up to GOMAXPROCS goroutines and
// returns when all are done.
func inParallel(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// take adds the refs and errors of parts (one per directory), in order.
// Until a path can repeat, a part's refs are kept as they are (the
// watcher's cache shares them) and result sorts them into one slice: no
// copy before that.
func (l *lister) take(parts []listed) {
	for _, part := range parts {
		// Two directories may hold the same file only if one of them
		// was reached through a link.
		l.linked = l.linked || part.linked
	}
	for _, part := range parts {
		if l.linked {
			for _, ref := range part.refs {
				l.add(ref)
			}
		} else if len(part.refs) > 0 {
			l.runs = append(l.runs, part.refs)
		}
		l.errs = append(l.errs, part.errs...)
	}
}

// listed is what take needs of one directory's listing: a value, since a
// server takes a kept listing for every bucket on every call.
type listed struct {
	refs   []Ref
	errs   []error
	linked bool
}

// listed is l's listing of one directory (a fork's, which takes no runs).
func (l *lister) listed() listed {
	refs := l.refs
	if len(l.runs) > 0 {
		refs = slices.Concat(append(l.runs, refs)...)
	}
	return listed{refs: refs, errs: l.errs, linked: l.linked}
}

// fork is an empty lister with l's settings, for one directory.
func (l *lister) fork() *lister {
	return &lister{opts: l.opts, suffix: l.suffix, archived: l.archived, roots: l.roots, allowed: l.allowed, watch: l.watch}
}

// watchDir watches dir, when the lister watches, before it is read: a
// change made after the read then always raises an event.
func (l *lister) watchDir(dir string) {
	if l.watch == nil {
		return
	}
	l.read = append(l.read, dir)
	if !l.watch(dir) {
		l.unwatched = true
	}
}

// listFlat lists the session files directly in dir, and their nested
// sessions.
func (l *lister) listFlat(dir, bucket string) {
	dir = filepath.Clean(dir)
	l.watchDir(dir)
	d, ents, err := openDir(dir)
	if err != nil {
		l.fail(err)
		return
	}
	defer d.close()
	canonDir := locate.Realpath(dir)
	if canonDir != dir {
		l.linked = true
	}
	if err := d.isAt(canonDir); err != nil {
		// Swapped between the open and the realpath: the entries are
		// not those of the directory that place checks.
		l.fail(err)
		return
	}
	at := l.place(canonDir)
	// The artifacts directories among the entries: real directories and
	// symlinks (to one, maybe).
	var artifacts map[string]fs.FileMode
	if !l.opts.TopLevelOnly {
		artifacts = map[string]fs.FileMode{}
		for _, e := range ents {
			if e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
				artifacts[e.Name()] = e.Type()
			}
		}
	}
	// Room for this directory's sessions at once: growing the slice as
	// it goes copied it a dozen times.
	n := 0
	for _, e := range ents {
		if l.isSessionName(e.Name()) {
			n++
		}
	}
	l.refs = slices.Grow(l.refs, n)
	// The directory's stats in one allocation: one each was 100,000
	// objects of 48 bytes (for 40) in a server at 100k sessions.
	stats := make([]FileStat, n)
	spelled := at.spelled == dir
	var place *refPlace
	for _, e := range ents {
		name := e.Name()
		if !l.isSessionName(name) {
			continue
		}
		p := joinClean(dir, name) // a directory entry's name is one clean element
		ref, in, ok := l.stat(d, at, p, name, spelled, e, &stats[0])
		stats = stats[1:]
		if !ok {
			continue
		}
		if in == "" {
			in = bucket
		}
		place = l.placed(place, in, "")
		ref.place = place
		l.add(ref)
		if !l.opts.TopLevelOnly {
			l.listArtifacts(d, p, canonDir, ref, artifacts)
		}
	}
}

// listArtifacts lists the nested sessions of ref, listed at p in d (whose
// canonical path is canonDir), whose entries artifacts holds.
func (l *lister) listArtifacts(d *dirHandle, p, canonDir string, ref Ref, artifacts map[string]fs.FileMode) {
	stem := strings.TrimSuffix(filepath.Base(p), l.suffix)
	typ, ok := artifacts[stem]
	if !ok && p == ref.Path {
		return
	}
	w := &nestWalk{top: ref.Path, bucket: ref.Bucket()}
	// The artifacts directory is next to the path OMP opened, which for a
	// symlinked file may be the link or its target.
	if p != ref.Path {
		l.listLinkedDir(strings.TrimSuffix(ref.Path, l.suffix), canonDir, w, 1)
	}
	switch {
	case !ok:
	case typ.IsDir():
		l.listNested(strings.TrimSuffix(p, l.suffix), filepath.Join(canonDir, stem), d.subdir(stem), w, 1)
	default:
		l.listLinkedDir(strings.TrimSuffix(p, l.suffix), canonDir, w, 1)
	}
}

// nestWalk is the listing of one session's artifacts tree: the session
// its files are nested in, and (once a symlink is followed) the canonical
// directories listed, so that no directory is listed twice.
type nestWalk struct {
	top, bucket string
	seen        map[string]bool
	place       *refPlace // the last of its refs'
}

// listLinkedDir lists the nested sessions below dir, found by path (a
// symlink in an artifacts tree, or the artifacts directory next to a
// symlinked session file) in the directory whose canonical path is
// from, when it resolves to a directory inside the roots; one that
// leaves them is skipped with a reason. A directory already listed, or
// one holding from (a loop), is not listed again.
func (l *lister) listLinkedDir(dir, from string, w *nestWalk, depth int) {
	l.linked = true
	canon, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return // dangling, or a loop of links: nothing is nested there
	}
	if st, err := os.Stat(canon); err != nil || !st.IsDir() {
		return
	}
	if !confine.InsideRoots(l.allowed, canon) {
		l.skip(ReasonOutsideRoots, dir)
		return
	}
	if _, loop := locate.Within(canon, from); loop || w.seen[canon] {
		return
	}
	if w.seen == nil {
		w.seen = map[string]bool{}
	}
	open := func() (*os.File, error) { return confine.OpenCanonical(l.allowed, canon, dir, true) }
	l.listNested(canon, canon, open, w, depth)
}

// listNested lists every session file below an artifacts directory dir,
// a directory whose canonical path is canonDir, which open opens. It
// follows symlinked directories that stay inside the roots and stops at
// MaxNestedDepth.
func (l *lister) listNested(dir, canonDir string, open func() (*os.File, error), w *nestWalk, depth int) {
	if depth > MaxNestedDepth {
		l.skip(ReasonMaxListingDepth, dir)
		return
	}
	if w.seen != nil {
		w.seen[canonDir] = true
	}
	l.watchDir(dir)
	d, ents, err := openDirFile(dir, open)
	if err != nil {
		l.fail(err)
		return
	}
	defer d.close()
	dir = filepath.Clean(dir)
	var at *dirPlace
	for _, e := range ents {
		name := e.Name()
		// A directory entry's name is one clean element.
		p := joinClean(dir, name)
		if strings.HasPrefix(name, ".") {
			continue
		}
		if e.IsDir() { // a real directory: a symlink's entry is no dir
			l.listNested(p, filepath.Join(canonDir, name), d.subdir(name), w, depth+1)
			continue
		}
		if !l.isSessionName(name) {
			if e.Type()&fs.ModeSymlink != 0 {
				l.listLinkedDir(p, canonDir, w, depth+1)
			}
			continue
		}
		if at == nil {
			pl := l.place(canonDir)
			at = &pl
		}
		ref, in, ok := l.stat(d, *at, p, name, at.spelled == dir, e, new(FileStat))
		if !ok {
			continue
		}
		if in == "" {
			in = w.bucket
		}
		w.place = l.placed(w.place, in, w.top) // nested: its top is set
		ref.place = w.place
		l.add(ref)
	}
}

func (l *lister) isSessionName(name string) bool {
	return !strings.HasPrefix(name, ".") && strings.HasSuffix(name, l.suffix) && len(name) > len(l.suffix)
}

// stat builds the Ref of p, the entry e (named name) of d, a directory
// at place at, and names its bucket ("" outside the sessions root; the
// caller places the ref); spelled says that p's directory is at.spelled.
// The stat is written to slot, which the ref then points to.
func (l *lister) stat(d *dirHandle, at dirPlace, p, name string, spelled bool, e dirEntry, slot *FileStat) (Ref, string, bool) {
	var path, bucket string
	switch {
	case e.Type()&fs.ModeSymlink != 0:
		l.linked = true
		canon, err := filepath.EvalSymlinks(p)
		if err != nil {
			return Ref{}, "", false
		}
		if !confine.InsideRoots(l.allowed, canon) {
			l.skip(ReasonOutsideRoots, p)
			return Ref{}, "", false
		}
		path, bucket, _ = display(l.roots, canon)
	case !e.Type().IsRegular():
		return Ref{}, "", false
	case !at.inside:
		l.skip(ReasonOutsideRoots, p)
		return Ref{}, "", false
	default:
		path, bucket = l.spell(at, name, p, spelled)
	}
	st, regular, err := d.stat(name)
	if err != nil || !regular {
		return Ref{}, "", false // vanished, dangling, or not a file
	}
	if !confine.ValidName(path) {
		l.skip(ReasonInvalidFileName, path)
		return Ref{}, "", false
	}
	*slot = st
	return Ref{Path: path, Stat: slot}, bucket, true
}

// dirPlace is where a listed directory lies: what insideRoots and display
// say of each file directly in it, worked out once for the directory
// (a file's canonical path is its directory's plus its own name).
type dirPlace struct {
	canon  string
	inside bool // inside the allowed roots
	// spelled is the directory as display spells it (under the first of
	// l.roots holding it, else canonical), and bucket the bucket its
	// files are in ("" for none).
	spelled, bucket string
}

func (l *lister) place(canonDir string) dirPlace {
	at := dirPlace{canon: canonDir, spelled: canonDir}
	// A session name never starts with "..", so a file lies within a root
	// exactly when its directory does (or is the root).
	for _, r := range l.allowed {
		if _, ok := locate.Within(r, canonDir); ok {
			at.inside = true
			break
		}
	}
	for _, r := range l.roots {
		rel, ok := locate.Within(r.canon, canonDir)
		if !ok {
			continue
		}
		at.spelled = r.given
		if rel != "" {
			at.spelled = joinClean(r.given, rel)
			if r.sessions {
				at.bucket, _, _ = strings.Cut(rel, string(filepath.Separator))
			}
		}
		break
	}
	return at
}

// spell is display for the file name of a directory at at, without
// cleaning paths that are clean already. A directory listed as display
// spells it (spelled) already has the path: p.
func (l *lister) spell(at dirPlace, name, p string, spelled bool) (path, bucket string) {
	if spelled {
		return p, at.bucket
	}
	return joinClean(at.spelled, name), at.bucket
}

// joinClean is filepath.Join of a clean path and a clean relative one.
func joinClean(dir, rel string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return dir + rel
	}
	return dir + string(filepath.Separator) + rel
}

// add records ref unless its file is already listed; a top-level listing
// beats a nested one. Until a path can repeat (see linked), there is
// nothing to look up.
func (l *lister) add(ref Ref) {
	if !l.linked {
		l.refs = append(l.refs, ref)
		return
	}
	if l.seen == nil {
		for _, run := range l.runs {
			l.refs = append(l.refs, run...)
		}
		l.runs = nil
		l.seen = make(map[string]int, len(l.refs)+1)
		for i, r := range l.refs {
			l.seen[r.Path] = i
		}
	}
	if i, ok := l.seen[ref.Path]; ok {
		if l.refs[i].Nested() && !ref.Nested() {
			l.refs[i] = ref
		}
		return
	}
	l.seen[ref.Path] = len(l.refs)
	l.refs = append(l.refs, ref)
}

func (l *lister) result() ([]Ref, error) {
	return sortRuns(append(l.runs, l.refs)), errors.Join(l.errs...)
}

// SortRefs orders refs newest first, ties by path ascending.
func SortRefs(refs []Ref) {
	copy(refs, sortRuns([][]Ref{refs}))
}

// sortRuns returns the refs of runs in one new slice, newest first, ties
// by path ascending; runs are left as they are. It radix sorts small keys
// and moves each Ref once: a comparison sort that swapped whole Refs was a
// tenth of a watched global recall over 10k sessions.
func sortRuns(runs [][]Ref) []Ref {
	n := 0
	for _, run := range runs {
		n += len(run)
	}
	if n == 0 {
		return nil
	}
	keys := make([]refKey, 0, n)
	for r, run := range runs {
		for i := range run {
			// Newest first: invert the order-preserving unsigned form.
			keys = append(keys, refKey{^(uint64(run[i].mtimeNs()) ^ 1<<63), int32(r), int32(i)})
		}
	}
	keys = radixSort(keys)
	at := func(k refKey) *Ref { return &runs[k.run][k.i] }
	// Equal times: by path.
	for lo := 0; lo < len(keys); {
		hi := lo + 1
		for hi < len(keys) && keys[hi].k == keys[lo].k {
			hi++
		}
		if hi-lo > 1 {
			slices.SortFunc(keys[lo:hi], func(a, b refKey) int { return strings.Compare(at(a).Path, at(b).Path) })
		}
		lo = hi
	}
	sorted := make([]Ref, len(keys))
	for i, k := range keys {
		sorted[i] = *at(k)
	}
	return sorted
}

type refKey struct {
	k      uint64
	run, i int32 // the ref is runs[run][i]
}

// radixSort sorts keys by k ascending, stably, a byte at a time (a byte
// that all keys share costs one counting pass).
func radixSort(keys []refKey) []refKey {
	if len(keys) < 2 {
		return keys
	}
	tmp := make([]refKey, len(keys))
	for shift := uint(0); shift < 64; shift += 8 {
		var count [257]int
		for _, k := range keys {
			count[(k.k>>shift)&0xff+1]++
		}
		if count[(keys[0].k>>shift)&0xff+1] == len(keys) {
			continue
		}
		for b := 1; b < 257; b++ {
			count[b] += count[b-1]
		}
		for _, k := range keys {
			b := (k.k >> shift) & 0xff
			tmp[count[b]] = k
			count[b]++
		}
		keys, tmp = tmp, keys
	}
	return keys
}
