//go:build unix

package reliability

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// The bugs the corruption tests know by their signature. A damaged index
// that trips one of them skips with the bug's description, so the suite
// stays green until it is fixed; any other failure fails.
const (
	bugFault = "BUG: a damaged index.db (pages past EOF, a bad branch page) kills memidx with an unrecoverable SIGSEGV " +
		`("unexpected fault address", exit 2) on every command, rebuild included; the file is never reset`
	bugPageAssert = "BUG: a damaged page met while answering (bbolt \"assertion failed: Page expected to be …\") fails every recall " +
		`with exit 1, code "error" ("bucket: index file is damaged…"); neither recall nor rebuild resets the file`
	bugShardDecode = "BUG: damaged hot-shard entry bytes fail every recall with exit 1, code \"error\" " +
		`("hotbm25: corrupt shard: msgpack: …"); the record stays fresh, so neither recall nor rebuild repairs it`
	bugIndexErrorForever = "BUG: a hot shard or cold digest that does not open is reported as index_error on every call and " +
		"its session is left out of every answer, but never rebuilt (not even by rebuild): the record stays fresh"
	bugSilent = "BUG: damaged tier data (e.g. one flipped byte in a hot dictionary or posting list) changes answers " +
		"while coverage says complete with no reason: tier data has no checksum"
	bugOpenPanic = "BUG: a damaged freelist page makes bolt.Open (read-write) panic in loadFreelist; indexfile.guard wraps only " +
		`transactions, so the panic reaches the CLI as internal_error on every call that writes (the read-only load ` +
		"of the records works, so the file is never reset)"
	bugUnusablePath = "BUG: an index path that cannot be used (index dir is a regular file, index.db is a non-empty " +
		`directory) fails every recall with the generic code "error" ("bucket: reset: remove …") instead of answering ` +
		"from source with a reason (as an unwritable index does with index_unwritable)"
)

// corruptFixture is a small corpus with a known-good index file and the
// answers of a fresh index.
type corruptFixture struct {
	w       *world
	global  []string
	queries []string
	want    map[string]recallOut
	good    []byte
	seed    uint64
}

// Planted in the newest (hot) session: a term only it has, alone at the
// start of an entry's text; and in the oldest (cold) session another, which
// the index holds only in that session's digest vocabulary.
const (
	markerTerm = "zqmarkerterm"
	markerText = markerTerm + " is planted here so that the entry text can be found in the index file bytes"
	coldMarker = "zqcoldmarker"
)

var (
	corruptOnce sync.Once
	corruptFix  *corruptFixture
)

// sharedCorruptFixture builds the fixture once for every TestCorrupt*.
func sharedCorruptFixture(t *testing.T) *corruptFixture {
	corruptOnce.Do(func() { corruptFix = newCorruptFixture(t) })
	if corruptFix == nil {
		t.Fatal("the corruption fixture failed to build")
	}
	return corruptFix
}

func newCorruptFixture(t *testing.T) *corruptFixture {
	w := sharedWorld(t)
	rng := seededAs(t, "corrupt-fixture")
	g := newGen(rng)
	cfgPath := filepath.Join(w.root, "fabric.json")
	require.NoError(t, os.WriteFile(cfgPath, []byte(`{"memory":{"hotSessions":10}}`), 0o600))
	fx := &corruptFixture{w: w, global: []string{"--config", cfgPath}, want: map[string]recallOut{}, seed: rng.Uint64()}
	for i := 0; i < 16; i++ {
		m := g.session(fmt.Sprintf("corrupt%02d", i), w.project, 12<<10, 40)
		switch i {
		case 0:
			m.add("u", userMsg(coldMarker+" lies in a cold digest"))
		case 15:
			m.add("u", userMsg(markerText))
		}
		w.writeSession(m.id, m.bytes())
	}
	fx.queries = []string{g.words[0] + " " + g.words[9], g.words[200], markerTerm, coldMarker}
	r := w.run(runOpts{global: fx.global}, "rebuild", "--scope", "global", "--json")
	require.True(t, clean(t, r) && r.code == 0, "%s", r)
	for _, q := range fx.queries {
		r := w.run(runOpts{global: fx.global}, "recall", "-q", q, "--scope", "global", "--page-size", "50")
		require.True(t, clean(t, r) && r.code == 0, "%s", r)
		fx.want[q] = decodeRecall(t, r)
		require.True(t, fx.want[q].Coverage.Complete, "%s", r)
		require.NotEmpty(t, fx.want[q].Hits)
	}
	require.Len(t, fx.want[markerTerm].Hits, 1)
	require.Equal(t, "hot", fx.want[markerTerm].Hits[0].Tier)
	require.Len(t, fx.want[coldMarker].Hits, 1)
	require.Equal(t, "cold", fx.want[coldMarker].Hits[0].Tier)
	var err error
	fx.good, err = os.ReadFile(filepath.Join(w.index, "index.db"))
	require.NoError(t, err)
	return fx
}

// corruption damages the index directory dir, which does not exist yet.
type corruption struct {
	name string
	// must: any reader has to notice (the damage cannot be harmless).
	must bool
	// nonRoot: permissions do the damage, which root ignores.
	nonRoot bool
	// fate is whose memidx must find the damaged index.db to be.
	fate   fate
	damage func(t *testing.T, dir string, good []byte, r *rand.Rand)
}

// fate is what memidx may do with a damaged index.db. memidx deletes or
// rewrites only a file it recognises as its own (empty, a bbolt file
// without buckets, or bytes that still carry its marker); anything else is
// left byte for byte as it was, and every answer comes from the sources
// with the reason index_foreign_file.
type fate int

const (
	// fateOurs: still memidx's file; it may be reset and must end up a
	// working index again.
	fateOurs fate = iota
	// fateForeign: not recognisably memidx's; never changed.
	fateForeign
	// fateByMarker: a random page may or may not have hit the marker's
	// page: ours when the marker survived, foreign otherwise.
	fateByMarker
	// fateNoFile: the damage is to the path, not to a file's bytes.
	fateNoFile
)

// indexMarker is the text that memidx's meta bucket holds (indexfile/own.go)
// and that tells its file from any other, damaged or not.
const indexMarker = "memidx index file: derived from OMP session files"

const pageSize = 4096

func writeIndex(t *testing.T, dir string, b []byte) {
	require.NoError(t, os.MkdirAll(dir, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "index.db"), b, 0o600))
}

// overwritePages fills pages of the good file with random bytes; a
// negative page is a random one.
func overwritePages(pages ...int) func(*testing.T, string, []byte, *rand.Rand) {
	return func(t *testing.T, dir string, good []byte, r *rand.Rand) {
		b := append([]byte(nil), good...)
		n := len(b) / pageSize
		for _, p := range pages {
			if p < 0 {
				p = r.IntN(n)
			}
			for i := p * pageSize; i < (p+1)*pageSize && i < len(b); i++ {
				b[i] = byte(r.Uint32())
			}
		}
		writeIndex(t, dir, b)
	}
}

// eachIndex calls f at every occurrence of sub in b.
func eachIndex(b, sub []byte, f func(i int)) int {
	n := 0
	for off := 0; ; {
		i := bytes.Index(b[off:], sub)
		if i < 0 {
			return n
		}
		f(off + i)
		n++
		off += i + 1
	}
}

func corruptions() []corruption {
	trunc := func(n func(int) int) func(*testing.T, string, []byte, *rand.Rand) {
		return func(t *testing.T, dir string, good []byte, _ *rand.Rand) { writeIndex(t, dir, good[:n(len(good))]) }
	}
	cs := []corruption{
		// An empty index.db is a new file that memidx has not written yet:
		// the answer is a fresh index's, complete, nothing to notice.
		{"truncate-to-0", false, false, fateOurs, trunc(func(int) int { return 0 })},
		{"truncate-to-half", false, false, fateOurs, trunc(func(n int) int { return n / 2 })},
		{"truncate-to-page-boundary-2", true, false, fateForeign, trunc(func(int) int { return 2 * pageSize })},
		{"truncate-to-page-boundary-mid", false, false, fateOurs, trunc(func(n int) int { return n / 2 / pageSize * pageSize })},
		{"truncate-last-byte", false, false, fateOurs, trunc(func(n int) int { return n - 1 })},
		{"meta-page-0", false, false, fateOurs, overwritePages(0)},
		{"meta-page-1", false, false, fateOurs, overwritePages(1)},
		{"both-meta-pages", true, false, fateOurs, overwritePages(0, 1)},
		{"garbage-same-size", true, false, fateForeign, func(t *testing.T, dir string, good []byte, r *rand.Rand) {
			b := make([]byte, len(good))
			for i := range b {
				b[i] = byte(r.Uint32())
			}
			writeIndex(t, dir, b)
		}},
		{"garbage-text", true, false, fateForeign, func(t *testing.T, dir string, _ []byte, _ *rand.Rand) {
			writeIndex(t, dir, bytes.Repeat([]byte("this is not an index file\n"), 1000))
		}},
		{"other-cache-version", true, false, fateOurs, func(t *testing.T, dir string, good []byte, _ *rand.Rand) {
			// The value follows the key in a leaf; old copies of the leaf
			// linger in free pages, so change every one.
			b := append([]byte(nil), good...)
			key := []byte("cacheVersion")
			n := 0
			eachIndex(b, key, func(i int) {
				if b[i+len(key)] == 6 {
					b[i+len(key)] = 5
					n++
				}
			})
			require.Positive(t, n, "the version key is stored in the file")
			writeIndex(t, dir, b)
		}},
		{"index-db-is-a-directory", false, false, fateForeign, func(t *testing.T, dir string, _ []byte, _ *rand.Rand) {
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "index.db", "x"), 0o700))
		}},
		{"index-dir-is-a-file", false, false, fateNoFile, func(t *testing.T, dir string, _ []byte, _ *rand.Rand) {
			require.NoError(t, os.WriteFile(dir, []byte("not a directory"), 0o600))
		}},
		{"index-db-unreadable", false, true, fateNoFile, func(t *testing.T, dir string, good []byte, _ *rand.Rand) {
			writeIndex(t, dir, good)
			require.NoError(t, os.Chmod(filepath.Join(dir, "index.db"), 0))
		}},
		{"index-dir-read-only", false, true, fateOurs, func(t *testing.T, dir string, good []byte, _ *rand.Rand) {
			writeIndex(t, dir, good)
			require.NoError(t, os.Chmod(dir, 0o500))
		}},
		{"index-dir-read-only-no-file", false, true, fateNoFile, func(t *testing.T, dir string, _ []byte, _ *rand.Rand) {
			require.NoError(t, os.MkdirAll(dir, 0o500))
		}},
		{"sqlite-database", true, false, fateForeign, func(t *testing.T, dir string, _ []byte, _ *rand.Rand) {
			writeIndex(t, dir, nil)
			sqliteFile(t, filepath.Join(dir, "index.db"))
		}},
		{"another-programs-bbolt", true, false, fateForeign, func(t *testing.T, dir string, _ []byte, _ *rand.Rand) {
			require.NoError(t, os.MkdirAll(dir, 0o700))
			boltFile(t, filepath.Join(dir, "index.db"), func(tx *bolt.Tx) error {
				b, err := tx.CreateBucket([]byte("sessions"))
				if err != nil {
					return err
				}
				return b.Put([]byte("token"), []byte("not memidx's"))
			})
		}},
		{"bbolt-without-buckets", false, false, fateOurs, func(t *testing.T, dir string, _ []byte, _ *rand.Rand) {
			// memidx stopped between creating the file and stamping it.
			require.NoError(t, os.MkdirAll(dir, 0o700))
			boltFile(t, filepath.Join(dir, "index.db"), nil)
		}},
	}
	for i := 0; i < 8; i++ {
		cs = append(cs, corruption{fmt.Sprintf("random-page-%d", i), false, false, fateByMarker, overwritePages(-1)})
	}
	for i := 0; i < 3; i++ {
		cs = append(cs, corruption{fmt.Sprintf("random-4-pages-%d", i), false, false, fateByMarker, overwritePages(-1, -1, -1, -1)})
	}
	return cs
}

// sqliteFile writes a SQLite database at path: with sqlite3 when it is
// installed, else its 100-byte header and an empty first page.
func sqliteFile(t *testing.T, path string) {
	require.NoError(t, os.Remove(path))
	if sq, err := exec.LookPath("sqlite3"); err == nil {
		out, err := exec.Command(sq, path, "create table notes(id integer primary key, body text); insert into notes(body) values ('mine');").CombinedOutput()
		require.NoError(t, err, "%s", out)
		return
	}
	b := make([]byte, 4096)
	copy(b, "SQLite format 3\x00")
	b[16], b[17] = 0x10, 0x00 // page size 4096
	b[18], b[19], b[21], b[22], b[23] = 1, 1, 64, 32, 32
	require.NoError(t, os.WriteFile(path, b, 0o644))
}

// boltFile writes a bbolt file at path with fn, as another program would.
func boltFile(t *testing.T, path string, fn func(tx *bolt.Tx) error) {
	db, err := bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	if fn != nil {
		require.NoError(t, db.Update(fn))
	}
	require.NoError(t, db.Close())
}

// pathState is what memidx must leave as it was in a file that is not its
// own: the bytes (or a directory's names), the mode and the mtime.
func pathState(t *testing.T, path string) string {
	st, err := os.Lstat(path)
	if err != nil {
		return err.Error()
	}
	var content string
	if st.IsDir() {
		names, err := os.ReadDir(path)
		require.NoError(t, err)
		for _, n := range names {
			content += n.Name() + "/"
		}
	} else {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		content = fmt.Sprintf("%x", sha256.Sum256(b))
	}
	return fmt.Sprintf("%s %v %v", content, st.Mode(), st.ModTime().UnixNano())
}

// expectFate checks what memidx left of a damaged index.db once every
// call of checkDamaged ran: a foreign file exactly as it was, and answered
// around with index_foreign_file naming it; memidx's own file a working
// index again.
func expectFate(t *testing.T, fx *corruptFixture, dir string, f fate, before string) {
	t.Helper()
	db := filepath.Join(dir, "index.db")
	r := fx.w.run(runOpts{index: dir, global: fx.global}, "recall", "-q", fx.queries[0], "--scope", "global", "--page-size", "50")
	if !clean(t, r) || !assert.Zero(t, r.code, "%s", r) {
		return
	}
	got := decodeRecall(t, r)
	assertSameHits(t, fx.want[fx.queries[0]], got, "the answer after the damage")
	switch f {
	case fateForeign:
		assert.Equal(t, before, pathState(t, db), "a file memidx does not own is left as it was")
		assert.Contains(t, got.Coverage.Reasons, "index_foreign_file")
		assert.False(t, got.Coverage.Complete)
		if assert.NotNil(t, got.Coverage.Error) {
			assert.Equal(t, "index_foreign_file", got.Coverage.Error.Code)
			assert.Contains(t, got.Coverage.Error.Message, db)
		}
	case fateOurs:
		assert.NotContains(t, got.Coverage.Reasons, "index_foreign_file")
		assert.True(t, got.Coverage.Complete, "memidx's own file is a working index again: %v", got.Coverage.Reasons)
	}
}

// corruptOutcome is what memidx did with one damaged index.
type corruptOutcome struct {
	first    string   // what the first answer said
	problems []string // broken promises
	bugs     []string // known bugs whose signature matched
}

func (o *corruptOutcome) problem(format string, a ...any) {
	o.problems = append(o.problems, fmt.Sprintf(format, a...))
}

// classify matches a run against the known bugs' signatures.
func (o *corruptOutcome) classify(r result) bool {
	n := len(o.bugs)
	switch {
	case bytes.Contains(r.stderr, []byte("unexpected fault address")) || bytes.Contains(r.stderr, []byte("fatal error: fault")):
		o.bugs = append(o.bugs, bugFault)
	case r.code == 1 && bytes.Contains(r.stdout, []byte("bucket: index file is damaged")):
		o.bugs = append(o.bugs, bugPageAssert)
	case r.code == 1 && bytes.Contains(r.stdout, []byte("hotbm25: corrupt shard")):
		o.bugs = append(o.bugs, bugShardDecode)
	case r.code == 1 && bytes.Contains(r.stdout, []byte("bucket: reset: remove")):
		o.bugs = append(o.bugs, bugUnusablePath)
	case r.code == 1 && bytes.Contains(r.stdout, []byte(`"internal_error"`)) && bytes.Contains(r.stderr, []byte("bbolt.(*DB).loadFreelist")):
		o.bugs = append(o.bugs, bugOpenPanic)
	}
	return len(o.bugs) > n
}

// checkDamaged runs memidx over a damaged index directory: a read-only
// inspect, a first recall, then every query again, which must answer as a
// fresh index.
func checkDamaged(t *testing.T, fx *corruptFixture, dir, q string, must bool) *corruptOutcome {
	o := &corruptOutcome{}
	run := func(args ...string) result { return fx.w.run(runOpts{index: dir, global: fx.global}, args...) }
	if r := run("inspect", "index", "--json"); r.problem() != "" && !o.classify(r) {
		o.problem("inspect index: %s\n%s", r.problem(), r)
	}
	first := run("recall", "-q", q, "--scope", "global", "--page-size", "50")
	switch {
	case first.problem() != "":
		if !o.classify(first) {
			o.problem("first recall: %s\n%s", first.problem(), first)
		}
		o.first = first.problem()
	case first.code != 0:
		o.classify(first)
		o.first = string(first.stdout)
	default:
		got := decodeRecall(t, first)
		o.first = fmt.Sprint(got.Coverage.Reasons)
		if got.Coverage.Complete && !assert.ObjectsAreEqual(keysOf(fx.want[q].Hits), keysOf(got.Hits)) {
			o.bugs = append(o.bugs, bugSilent)
		} else if got.Coverage.Complete && must {
			o.problem("the damage went unnoticed: a complete answer with no reason")
		}
	}
	for _, q := range fx.queries {
		r := run("recall", "-q", q, "--scope", "global", "--page-size", "50")
		if r.problem() != "" || r.code != 0 {
			if !o.classify(r) {
				o.problem("recall %q after the damage: %s\n%s", q, r.problem(), r)
			}
			continue
		}
		got := decodeRecall(t, r)
		if sameOrEnvelopeCut(keysOf(fx.want[q].Hits), keysOf(got.Hits)) && got.Total == fx.want[q].Total {
			continue
		}
		switch {
		case got.Coverage.Complete:
			o.bugs = append(o.bugs, bugSilent)
		case containsStr(got.Coverage.Reasons, "index_error"):
			o.bugs = append(o.bugs, bugIndexErrorForever)
		default:
			o.problem("recall %q after the damage differs from a fresh index's (reasons %v)", q, got.Coverage.Reasons)
		}
	}
	return o
}

// sameOrEnvelopeCut reports whether got is want, or want cut short by the
// response envelope: a page that carries more coverage reasons or notices
// than a fresh index's (index_foreign_file, say) has less room for hits,
// and keeps the same hits in the same order up to where it ends: one hit
// fewer at most, since a reason or a notice is far shorter than a hit.
func sameOrEnvelopeCut(want, got []hitKey) bool {
	cut := len(want) - len(got)
	return (cut == 0 || cut == 1 && len(got) > 0) && assert.ObjectsAreEqual(want[:len(got)], got)
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// report fails on broken promises and on any known bug's signature (every
// one of them is fixed; a match is a regression).
func (o *corruptOutcome) report(t *testing.T) {
	t.Helper()
	for _, p := range o.problems {
		t.Error(p)
	}
	seen := map[string]bool{}
	for _, b := range o.bugs {
		if !seen[b] {
			seen[b] = true
			t.Errorf("regression: %s", b)
		}
	}
}

// TestCorruptIndexFile damages a good index file in every way of
// corruptions(): truncations (to 0, to half, to page boundaries),
// overwritten meta and random pages, garbage, another cache version, an
// index.db that is a directory, an index directory that is a file, and
// (not as root) an unreadable file or a read-only directory. memidx must
// never panic or hang, must say so (error code or coverage reason) when
// the damage matters, must never give a different answer as complete, and
// the next calls must answer exactly as a fresh index.
func TestCorruptIndexFile(t *testing.T) {
	t.Parallel()
	fx := sharedCorruptFixture(t)
	isRoot := os.Geteuid() == 0
	var mu sync.Mutex
	var survived, tried int
	for i, c := range corruptions() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if c.nonRoot && isRoot {
				t.Skip("running as root: permissions do not stop root, so this damage cannot be made; run as another user")
			}
			r := rand.New(rand.NewPCG(fx.seed, uint64(i)))
			dir := filepath.Join(t.TempDir(), "index")
			c.damage(t, dir, fx.good, r)
			t.Cleanup(func() { os.Chmod(dir, 0o700); os.Chmod(filepath.Join(dir, "index.db"), 0o600) })
			f := c.fate
			if f == fateByMarker {
				f = fateForeign
				if b, err := os.ReadFile(filepath.Join(dir, "index.db")); err == nil && bytes.Contains(b, []byte(indexMarker)) {
					f = fateOurs
				}
				t.Logf("%s: the marker survived: %v", c.name, f == fateOurs)
			}
			var before string
			if f == fateForeign {
				before = pathState(t, filepath.Join(dir, "index.db"))
			}
			o := checkDamaged(t, fx, dir, fx.queries[0], c.must)
			expectFate(t, fx, dir, f, before)
			t.Logf("%s: first answer said %s", c.name, clip([]byte(o.first), 300))
			mu.Lock()
			tried++
			if len(o.problems) == 0 && len(o.bugs) == 0 {
				survived++
			}
			mu.Unlock()
			o.report(t)
		})
	}
	t.Cleanup(func() { t.Logf("corruptions tried: %d, survived without a known bug: %d", tried, survived) })
}

// markerCorruption copies the good file and damages it where the marker
// session's hot data lies.
func markerCorruption(t *testing.T, fx *corruptFixture, damage func(b []byte) int) string {
	b := append([]byte(nil), fx.good...)
	n := damage(b)
	require.Positive(t, n, "the damage found its target in the index file")
	dir := filepath.Join(t.TempDir(), "index")
	writeIndex(t, dir, b)
	return dir
}

// dictOccurrences are the places where markerTerm is a dictionary term
// (followed by another term, not by the rest of the entry text).
func dictOccurrences(b []byte) []int {
	var out []int
	eachIndex(b, []byte(markerTerm), func(i int) {
		if !bytes.HasPrefix(b[i+len(markerTerm):], []byte(" is planted")) {
			out = append(out, i)
		}
	})
	return out
}

// TestCorruptTruncatedAtPageBoundary: an index.db cut at a page boundary
// (pages the meta page names lie past EOF) must be detected. Cut to its
// two meta pages it no longer carries memidx's marker, and nothing tells
// it from another program's bbolt file cut short: it is left as it is and
// every answer comes from the sources. Cut further on, it is reset.
func TestCorruptTruncatedAtPageBoundary(t *testing.T) {
	t.Parallel()
	fx := sharedCorruptFixture(t)
	for _, c := range []struct {
		pages int
		fate  fate
	}{{2, fateForeign}, {8, fateOurs}} {
		t.Run(fmt.Sprint(c.pages), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "index")
			writeIndex(t, dir, fx.good[:c.pages*pageSize])
			before := pathState(t, filepath.Join(dir, "index.db"))
			checkDamaged(t, fx, dir, markerTerm, true).report(t)
			expectFate(t, fx, dir, c.fate, before)
		})
	}
}

// TestCorruptPageHeader: a page of the hot bucket whose header names
// another page (as bit rot or a torn write leaves it) must be detected
// and the file reset, not fail every call.
func TestCorruptPageHeader(t *testing.T) {
	t.Parallel()
	fx := sharedCorruptFixture(t)
	dir := markerCorruption(t, fx, func(b []byte) int {
		n := 0
		for _, at := range dictOccurrences(b) {
			// Walk back to the page header that starts the value's pages.
			for p := at / pageSize; p >= 2; p-- {
				h := b[p*pageSize:]
				if binary.LittleEndian.Uint64(h) == uint64(p) {
					binary.LittleEndian.PutUint64(h, uint64(p)+1<<40)
					n++
					break
				}
			}
		}
		return n
	})
	checkDamaged(t, fx, dir, markerTerm, true).report(t)
}

// TestCorruptShardEntryBytes: a damaged stored entry of a hot shard (its
// text's msgpack header) must be detected and the session rebuilt.
func TestCorruptShardEntryBytes(t *testing.T) {
	t.Parallel()
	fx := sharedCorruptFixture(t)
	dir := markerCorruption(t, fx, func(b []byte) int {
		return eachIndex(b, []byte(markerText), func(i int) { b[i-2] = 0xc1 })
	})
	checkDamaged(t, fx, dir, markerTerm, true).report(t)
}

// TestCorruptShardDictionary: a hot dictionary that does not open must be
// rebuilt from source, not reported as index_error forever.
func TestCorruptShardDictionary(t *testing.T) {
	t.Parallel()
	fx := sharedCorruptFixture(t)
	dir := markerCorruption(t, fx, func(b []byte) int {
		n := 0
		for _, at := range dictOccurrences(b) {
			if m := bytes.LastIndex(b[:at], []byte("TT1\x00")); m >= 0 {
				b[m] = 'X'
				n++
			}
		}
		return n
	})
	o := checkDamaged(t, fx, dir, markerTerm, true)
	r := fx.w.run(runOpts{index: dir, global: fx.global}, "rebuild", "--scope", "global", "--json")
	clean(t, r)
	r = fx.w.run(runOpts{index: dir, global: fx.global}, "recall", "-q", markerTerm, "--scope", "global")
	if clean(t, r) && assert.Zero(t, r.code) {
		assertSameHits(t, fx.want[markerTerm], decodeRecall(t, r), "after rebuild")
	}
	o.report(t)
}

// TestCorruptTermBitFlip: one changed letter in a stored term (bit rot),
// in a hot dictionary or in a cold digest's vocabulary, must not change an
// answer silently: the block checksums catch it, the session is rebuilt
// from source, the first answer already equals a fresh index's and says
// that the index was repaired (index_reset), and later calls answer as a
// fresh index. Without checksums the term is simply not found: 0 hits,
// "complete".
func TestCorruptTermBitFlip(t *testing.T) {
	t.Parallel()
	fx := sharedCorruptFixture(t)
	for _, term := range []string{markerTerm, coldMarker} {
		t.Run(term, func(t *testing.T) {
			t.Parallel()
			dir := markerCorruption(t, fx, func(b []byte) int {
				n := 0
				eachIndex(b, []byte(term), func(at int) {
					if term == markerTerm && bytes.HasPrefix(b[at+len(term):], []byte(" is planted")) {
						return // entry text, not a term
					}
					b[at+len(term)-1]++ // "…term" -> "…tern": still sorted
					n++
				})
				return n
			})
			r := fx.w.run(runOpts{index: dir, global: fx.global}, "recall", "-q", term, "--scope", "global", "--page-size", "50")
			require.True(t, clean(t, r) && r.code == 0, "%s", r)
			got := decodeRecall(t, r)
			assertSameHits(t, fx.want[term], got, "the first answer over a damaged term")
			assert.Contains(t, got.Coverage.Reasons, "index_reset", "the repair is reported")
			assert.False(t, got.Coverage.Complete)
			checkDamaged(t, fx, dir, term, false).report(t)
		})
	}
}

// TestCorruptRandomByteFlips flips one random byte of the good index file
// at a time (two in three inside a stored copy of a word of the query, the
// rest anywhere) and asks a random query: memidx must never crash or hang, and
// an answer that says complete must be the fresh index's.
// MEMIDX_FLIPS sets the number of flips (default 40).
func TestCorruptRandomByteFlips(t *testing.T) {
	t.Parallel()
	fx := sharedCorruptFixture(t)
	r := rand.New(rand.NewPCG(fx.seed, 1234))
	// Where the words of each query lie in the file: in hot dictionaries,
	// cold vocabularies, stored entry texts (and stale copies in free
	// pages).
	occ := map[string][]int{}
	for _, q := range fx.queries {
		for _, w := range strings.Fields(q) {
			eachIndex(fx.good, []byte(w), func(i int) { occ[w] = append(occ[w], i) })
			require.NotEmpty(t, occ[w], w)
		}
	}
	flips := envInt("MEMIDX_FLIPS", 40)
	var mu sync.Mutex
	counts := map[string]int{}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i := 0; i < flips; i++ {
		q := fx.queries[r.IntN(len(fx.queries))]
		at := r.IntN(len(fx.good))
		if i%3 != 0 {
			// Inside one of the query's own words.
			words := strings.Fields(q)
			w := words[r.IntN(len(words))]
			at = occ[w][r.IntN(len(occ[w]))] + r.IntN(len(w))
		}
		x := byte(1 + r.IntN(255))
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			b := append([]byte(nil), fx.good...)
			b[at] ^= x
			dir := filepath.Join(t.TempDir(), "index")
			writeIndex(t, dir, b)
			res := fx.w.run(runOpts{index: dir, global: fx.global}, "recall", "-q", q, "--scope", "global", "--page-size", "50")
			what := "harmless"
			switch {
			case res.problem() != "":
				what = "failed"
				t.Errorf("flip %#x at %d, recall %q: %s\n%s", x, at, q, res.problem(), res)
			case res.code != 0:
				what = "failed"
				t.Errorf("flip %#x at %d, recall %q: exit %d\n%s", x, at, q, res.code, res)
			default:
				got := decodeRecall(t, res)
				same := assert.ObjectsAreEqual(keysOf(fx.want[q].Hits), keysOf(got.Hits)) && got.Total == fx.want[q].Total
				switch {
				case got.Coverage.Complete && !same:
					what = "silent"
					t.Errorf("flip %#x at %d, recall %q: a different answer says complete:\n%s", x, at, q, clip(res.stdout, 2000))
				case !got.Coverage.Complete:
					what = "detected"
				}
			}
			mu.Lock()
			counts[what]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	t.Logf("%d single-byte flips: %v (detected: coverage said so; harmless: same answer, complete)", flips, counts)
	assert.Zero(t, counts["silent"])
}

// TestCorruptFreelistPage: a damaged freelist page (the one the newest
// meta page names) must be detected and the file reset, not panic.
func TestCorruptFreelistPage(t *testing.T) {
	t.Parallel()
	fx := sharedCorruptFixture(t)
	r := rand.New(rand.NewPCG(fx.seed, 99))
	dir := markerCorruption(t, fx, func(b []byte) int {
		// bbolt's meta: 16-byte page header, then magic, version,
		// pageSize, flags (4 bytes each), root bucket (16), freelist pgid
		// (8), high-water pgid (8), txid (8).
		meta := func(p int) (freelist, txid uint64) {
			m := b[p*pageSize+16:]
			return binary.LittleEndian.Uint64(m[32:]), binary.LittleEndian.Uint64(m[48:])
		}
		f0, tx0 := meta(0)
		f1, tx1 := meta(1)
		free := f0
		if tx1 > tx0 {
			free = f1
		}
		start := int(free) * pageSize
		if start <= 0 || start+pageSize > len(b) {
			return 0
		}
		for i := start; i < start+pageSize; i++ {
			b[i] = byte(r.Uint32())
		}
		return 1
	})
	// A first read of the other branch mode always writes: bbolt then
	// opens the file read-write and loads the freelist.
	o := &corruptOutcome{}
	if r := fx.w.run(runOpts{index: dir, global: fx.global}, "recall", "-q", markerTerm, "--scope", "global", "--branches", "all"); r.problem() != "" || r.code != 0 {
		if !o.classify(r) {
			o.problem("recall --branches all: %s\n%s", r.problem(), r)
		}
	}
	o2 := checkDamaged(t, fx, dir, markerTerm, false)
	assert.Empty(t, append(o.problems, o2.problems...))
	assert.Empty(t, append(o.bugs, o2.bugs...))
}
