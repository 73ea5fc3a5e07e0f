//go:build unix

package reliability

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHostileSessionPaths addresses session:<path> (recall, sessions)
// and expand's session with path tricks: parent escapes, /etc/passwd,
// devices, a FIFO (which must not block), a directory, a symlink loop, a
// dangling symlink, a path over PATH_MAX, and a symlink to a session
// outside the session roots (which is not followed). Each answers within
// the timeout with a named code or, for the real session, its hits.
func TestHostileSessionPaths(t *testing.T) {
	t.Parallel()
	seeded(t)
	w := newWorld(t)
	w.writeSession("s-inside", lines(headerLine("s-inside", w.project), msgLine("u1", "", tsAt(1), userMsg("zqinside"))))
	outside := filepath.Join(w.root, "elsewhere", "2026-09-01T10-00-00-000Z_s-outside.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(outside), 0o755))
	require.NoError(t, os.WriteFile(outside, lines(headerLine("s-outside", w.project), msgLine("u1", "", tsAt(1), userMsg("zqoutside"))), 0o600))
	odd := filepath.Join(w.root, "odd")
	require.NoError(t, os.MkdirAll(filepath.Join(odd, "dir.jsonl"), 0o755))
	require.NoError(t, syscall.Mkfifo(filepath.Join(odd, "fifo.jsonl"), 0o600))
	require.NoError(t, os.Symlink(filepath.Join(odd, "loop-b.jsonl"), filepath.Join(odd, "loop-a.jsonl")))
	require.NoError(t, os.Symlink(filepath.Join(odd, "loop-a.jsonl"), filepath.Join(odd, "loop-b.jsonl")))
	require.NoError(t, os.Symlink(filepath.Join(odd, "missing.jsonl"), filepath.Join(odd, "dangling.jsonl")))
	require.NoError(t, os.Symlink(outside, filepath.Join(odd, "link-outside.jsonl")))
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(odd, "zero.jsonl")))

	targets := []string{
		"../../etc/passwd", "../../../../../../../../etc/passwd", "/etc/passwd", "/etc/shadow", "/dev/zero", "/dev/null",
		"/dev/stdin", "/proc/self/mem", "/proc/self/environ", "/", ".", "..", "~/.ssh/id_rsa",
		filepath.Join(odd, "dir.jsonl"), filepath.Join(odd, "fifo.jsonl"), filepath.Join(odd, "loop-a.jsonl"),
		filepath.Join(odd, "dangling.jsonl"), filepath.Join(odd, "zero.jsonl"),
		"/" + strings.Repeat("a/", 3000) + "x.jsonl", strings.Repeat("x", 300) + ".jsonl",
		"s-inside\x01", "s-inside/../s-inside",
	}
	n := 0
	o := runOpts{timeout: 10 * time.Second}
	codes := map[string]string{}
	for _, tg := range targets {
		for _, args := range [][]string{
			{"recall", "-q", "zqinside", "--scope", "session:" + tg},
			{"sessions", "--scope", "session:" + tg},
			{"expand", fmt.Sprintf(`{"session":%s,"indices":[0]}`, jsString(tg))},
		} {
			n++
			r := w.mustRun(t, o, args...)
			c := answerCode(r)
			codes[args[0]+" "+string(clip([]byte(tg), 40))] = c
			if c != "" {
				assert.True(t, allowedCodes[c] || c == "not_a_session", "%s: code %q\n%s", tg, c, r)
			}
			if args[0] == "expand" && c == "" {
				var x expandOut
				require.NoError(t, json.Unmarshal(r.stdout, &x))
				t.Logf("note: expand of %q answered %d entries (a readable regular file is a session path, whatever its name)", tg, len(x.Entries))
			}
		}
	}
	// Devices, FIFOs, directories, loops and dangling links are not sessions.
	for _, tg := range []string{"/dev/zero", filepath.Join(odd, "fifo.jsonl"), filepath.Join(odd, "dir.jsonl"),
		filepath.Join(odd, "loop-a.jsonl"), filepath.Join(odd, "dangling.jsonl"), filepath.Join(odd, "zero.jsonl")} {
		assert.Equal(t, "session_not_found", codes["recall "+string(clip([]byte(tg), 40))], tg)
	}
	// A symlink to a session outside the session roots is not followed.
	r := w.mustRun(t, o, "recall", "-q", "zqoutside", "--scope", "session:"+filepath.Join(odd, "link-outside.jsonl"))
	assert.Equal(t, "session_not_found", answerCode(r), "%s", r)
	t.Logf("session path tricks: %d targets x 3 commands = %d calls; answers %v", len(targets), n, codes)
}

// TestHostileSymlinkedSessions: a bucket holding a symlink to a session
// outside the agent directory, a second symlink to a listed session, a
// symlinked bucket directory elsewhere, a symlink loop and links to a FIFO
// and a device. Global recall follows only the links that stay inside the
// session roots (and says symlink_outside_session_roots for the others),
// lists each file once and never blocks.
func TestHostileSymlinkedSessions(t *testing.T) {
	t.Parallel()
	seeded(t)
	w := newWorld(t)
	in := w.writeSession("s-in", lines(headerLine("s-in", w.project), msgLine("u1", "", tsAt(1), userMsg("zqlinkedin"))))
	ext := filepath.Join(w.root, "external")
	require.NoError(t, os.MkdirAll(ext, 0o755))
	out := filepath.Join(ext, "2026-09-01T11-00-00-000Z_s-out.jsonl")
	require.NoError(t, os.WriteFile(out, lines(headerLine("s-out", w.project), msgLine("u1", "", tsAt(1), userMsg("zqlinkedout"))), 0o600))
	require.NoError(t, os.Symlink(out, filepath.Join(w.bucket, "2026-09-01T11-00-01-000Z_s-out.jsonl")))
	require.NoError(t, os.Symlink(in, filepath.Join(w.bucket, "2026-09-01T11-00-02-000Z_s-in-again.jsonl")))
	require.NoError(t, os.Symlink(filepath.Join(w.bucket, "x-b.jsonl"), filepath.Join(w.bucket, "x-a.jsonl")))
	require.NoError(t, os.Symlink(filepath.Join(w.bucket, "x-a.jsonl"), filepath.Join(w.bucket, "x-b.jsonl")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(ext, "fifo"), 0o600))
	require.NoError(t, os.Symlink(filepath.Join(ext, "fifo"), filepath.Join(w.bucket, "fifo.jsonl")))
	require.NoError(t, os.Symlink("/dev/urandom", filepath.Join(w.bucket, "random.jsonl")))
	// A whole bucket that is a symlink to a directory elsewhere.
	extBucket := filepath.Join(w.root, "ext-bucket")
	require.NoError(t, os.MkdirAll(extBucket, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(extBucket, "2026-09-01T12-00-00-000Z_s-bucketlink.jsonl"),
		lines(headerLine("s-bucketlink", w.project), msgLine("u1", "", tsAt(1), userMsg("zqlinkedbucket"))), 0o600))
	require.NoError(t, os.Symlink(extBucket, filepath.Join(w.agent, "sessions", "--linked-bucket--")))
	// A bucket that links to itself.
	require.NoError(t, os.Symlink(filepath.Join(w.agent, "sessions", "--self--"), filepath.Join(w.agent, "sessions", "--self--")))

	o := runOpts{timeout: 20 * time.Second}
	for term, want := range map[string]int{"zqlinkedin": 1, "zqlinkedout": 0, "zqlinkedbucket": 0} {
		r := w.mustRun(t, o, "recall", "-q", term, "--scope", "global")
		page := decodeRecall(t, r)
		assert.Equal(t, want, page.Total, "%s: each file once\n%s", term, r)
		assert.Contains(t, page.Coverage.Reasons, "symlink_outside_session_roots")
	}
	r := w.mustRun(t, o, "sessions", "--scope", "global")
	var res struct {
		Total    int `json:"total"`
		Sessions []struct {
			File string `json:"file"`
		} `json:"sessions"`
	}
	require.NoError(t, json.Unmarshal(r.stdout, &res))
	files := map[string]bool{}
	for _, s := range res.Sessions {
		assert.False(t, files[s.File], "listed twice: %s", s.File)
		files[s.File] = true
	}
	assert.Equal(t, 1, res.Total, "s-in alone: %s", r.stdout)
	w.mustRun(t, o, "rebuild", "--scope", "global", "--json")
	r = w.mustRun(t, o, "recall", "-q", "zqlinkedout", "--scope", "session:s-out")
	assert.Equal(t, "session_not_found", answerCode(r), "%s", r)
}

// TestHostileVanishingFiles: while recalls, sessions listings and
// expansions run, a goroutine deletes session files, puts them back,
// truncates them, and swaps them for a directory, a FIFO and a symlink to
// /dev/zero, between the listing and the read. Every call ends cleanly
// (missing sources are named in the coverage, never a panic or a hang).
func TestHostileVanishingFiles(t *testing.T) {
	t.Parallel()
	rng := seeded(t)
	w := newWorld(t)
	g := newGen(rng)
	const n = 200
	paths := make([]string, n)
	bodies := make([][]byte, n)
	for i := range paths {
		m := g.session(fmt.Sprintf("v%03d", i), w.project, 2<<10, 10)
		bodies[i] = m.bytes()
		paths[i] = w.writeSession(m.id, bodies[i])
	}
	stop := make(chan struct{})
	var changes atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		r := rand.New(rand.NewPCG(rng.Uint64(), 7))
		for {
			select {
			case <-stop:
				return
			default:
			}
			p := paths[r.IntN(n)]
			switch r.IntN(6) {
			case 0:
				os.Remove(p)
			case 1:
				os.WriteFile(p, bodies[r.IntN(n)], 0o600)
			case 2:
				os.Truncate(p, int64(r.IntN(1000)))
			case 3:
				os.Remove(p)
				os.Mkdir(p, 0o755)
				time.Sleep(time.Millisecond)
				os.Remove(p)
			case 4:
				os.Remove(p)
				syscall.Mkfifo(p, 0o600)
				time.Sleep(time.Millisecond)
				os.Remove(p)
			case 5:
				os.Remove(p)
				os.Symlink("/dev/zero", p)
				time.Sleep(time.Millisecond)
				os.Remove(p)
			}
			changes.Add(1)
			time.Sleep(200 * time.Microsecond)
		}
	}()
	o := runOpts{timeout: 20 * time.Second}
	reasons := map[string]int{}
	calls := 0
	for i := 0; i < 12; i++ {
		for _, args := range [][]string{
			{"recall", "-q", g.words[i], "--scope", "global"},
			{"sessions", "--scope", "global", "--limit", "50"},
			{"expand", fmt.Sprintf(`{"session":%s,"indices":[0]}`, jsString(paths[i]))},
			{"rebuild", "--scope", "global", "--json"},
		} {
			calls++
			r := w.mustRun(t, o, args...)
			if args[0] == "recall" && r.code == 0 {
				for _, x := range decodeRecall(t, r).Coverage.Reasons {
					reasons[x]++
				}
			}
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("vanishing files: %d calls during %d file changes; coverage reasons seen %v", calls, changes.Load(), reasons)
}

// TestHostileConfigFileNotRegular: a FIFO or a device where the global
// configuration file (<agentDir>/fabric.json, or --config) is expected
// must not block memidx or make it read without end; it should be
// refused as a config error like any unreadable file.
func TestHostileConfigFileNotRegular(t *testing.T) {
	t.Parallel()
	seeded(t)
	w := newWorld(t)
	w.writeSession("s-cfg", lines(headerLine("s-cfg", w.project), msgLine("u1", "", tsAt(1), userMsg("zqcfg"))))
	cfg := filepath.Join(w.agent, "fabric.json")
	require.NoError(t, syscall.Mkfifo(cfg, 0o600))
	r := w.run(runOpts{timeout: 10 * time.Second}, "recall", "-q", "zqcfg", "--scope", "global")
	assert.False(t, r.timedOut, "a FIFO config blocks memidx\n%s", r)
	clean(t, r)
	require.NoError(t, os.Remove(cfg))
	require.NoError(t, os.Symlink("/dev/zero", cfg))
	r = w.run(runOpts{timeout: 10 * time.Second, timeV: true}, "recall", "-q", "zqcfg", "--scope", "global")
	assert.False(t, r.timedOut, "a /dev/zero config is read without end (peak RSS %d MB)\n%s", r.maxRSSKB/1024, r)
	clean(t, r)
}
