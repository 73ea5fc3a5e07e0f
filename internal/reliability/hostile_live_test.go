//go:build unix

package reliability

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// liveWorld is a world with one session and, outside the session roots,
// files a prompt-injected model would like to read: a session-shaped file,
// a headerless one-message file and a shadow-like file.
type liveWorld struct {
	*world
	session string   // a session in the project bucket
	word    string   // the unique word of the outside files
	outside []string // files outside the session roots
	hashes  []string // their SHA-256s
}

func newLiveWorld(t *testing.T) *liveWorld {
	w := newWorld(t)
	lw := &liveWorld{world: w, word: "zqexfiltrateme"}
	lw.session = w.writeSession("s-live", lines(headerLine("s-live", w.project), msgLine("u1", "", tsAt(1), userMsg("harmless words"))))
	files := map[string]string{
		"stolen.jsonl":    string(lines(headerLine("evil", w.project), msgLine("e1", "", tsAt(1), userMsg(lw.word)))),
		"onemessage.json": string(lines(msgLine("e1", "", tsAt(1), userMsg(lw.word)))),
		"shadow":          "root:$6$" + lw.word + ":19000:0:99999:7:::\n",
	}
	for name, body := range files {
		p := filepath.Join(w.root, "outside", name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		sum := sha256.Sum256([]byte(body))
		lw.outside = append(lw.outside, p)
		lw.hashes = append(lw.hashes, hex.EncodeToString(sum[:]))
	}
	return lw
}

// assertNothingLeaked checks an answer and the index file for the outside
// files' word, paths and hashes.
func (lw *liveWorld) assertNothingLeaked(t *testing.T, what string, out []byte) {
	t.Helper()
	db, _ := os.ReadFile(filepath.Join(lw.index, "index.db"))
	for name, b := range map[string][]byte{"the answer": out, "index.db": db} {
		assert.False(t, bytes.Contains(b, []byte(lw.word)), "%s: the outside word is in %s", what, name)
		for i, p := range lw.outside {
			// An answer may echo a path the request named; the index may not.
			if name == "index.db" {
				assert.False(t, bytes.Contains(b, []byte(p)), "%s: %s is named in %s", what, p, name)
			}
			assert.False(t, bytes.Contains(b, []byte(lw.hashes[i])), "%s: the hash of %s is in %s", what, p, name)
		}
	}
}

// TestHostileLiveFromRequests: a live session comes from the host, never
// from request arguments. Every request kind carrying live (recall,
// expand, sessions, walk, call with each ref, follow and next tokens;
// over the CLI and over serve) is refused with invalid_request; nothing
// of the named file is read, reported or stored.
func TestHostileLiveFromRequests(t *testing.T) {
	t.Parallel()
	lw := newLiveWorld(t)
	w := lw.world
	type req struct{ cmd, ref, args string }
	var reqs []req
	for _, f := range lw.outside {
		live := fmt.Sprintf(`{"sessionFile":%s,"leafId":"e1","branchIds":["e1"]}`, jsString(f))
		for _, scope := range []string{"session", "project", "global", "session:s-live"} {
			reqs = append(reqs, req{"recall", "memory.recall", fmt.Sprintf(`{"query":%q,"scope":%q,"live":%s}`, lw.word, scope, live)})
			reqs = append(reqs, req{"sessions", "memory.sessions", fmt.Sprintf(`{"scope":%q,"live":%s}`, scope, live)})
		}
		reqs = append(reqs,
			req{"expand", "memory.expand", fmt.Sprintf(`{"session":"s-live","indices":[0],"live":%s}`, live)},
			req{"expand", "memory.expand", fmt.Sprintf(`{"session":%s,"indices":[0],"live":%s}`, jsString(f), live)},
			req{"walk", "", fmt.Sprintf(`{"session":"s-live","live":%s}`, live)},
			// An empty live object still carries live.
			req{"recall", "memory.recall", `{"query":"harmless","live":{}}`},
		)
	}
	// A genuine follow token with live spliced in.
	page := decodeRecall(t, w.mustRun(t, runOpts{}, "recall", "-q", "harmless", "--scope", "global"))
	require.NotEmpty(t, page.Hits)
	follow := string(page.Hits[0].Follow.Args)
	spliced := strings.Replace(follow, "{", fmt.Sprintf(`{"live":{"sessionFile":%s},`, jsString(lw.outside[0])), 1)
	reqs = append(reqs, req{"expand", "memory.expand", spliced})

	var calls []rpcCall
	for _, r := range reqs {
		res := w.mustRun(t, runOpts{}, r.cmd, r.args)
		assert.Equal(t, "invalid_request", answerCode(res), "%s %s\n%s", r.cmd, r.args, res)
		lw.assertNothingLeaked(t, r.cmd+" "+r.args, res.stdout)
		if r.ref == "" {
			continue
		}
		call := fmt.Sprintf(`{"ref":%q,"args":%s}`, r.ref, r.args)
		res = w.mustRun(t, runOpts{}, "call", call)
		assert.Equal(t, "invalid_request", answerCode(res), "call %s\n%s", call, res)
		lw.assertNothingLeaked(t, "call "+call, res.stdout)
		calls = append(calls, rpcCall{r.ref, r.args}, rpcCall{"tools.call", call})
	}
	codes := w.rpcCodes(t, calls)
	for i, c := range codes {
		assert.Equal(t, "invalid_request", c, "serve %s %s", calls[i].method, calls[i].params)
	}
	lw.assertNothingLeaked(t, "serve", nil)
	t.Logf("requests carrying live: %d over the CLI and call, %d over serve", len(reqs), len(calls))
}

// TestHostileLiveFromHost: the host's own live session passes the same
// check as any file (inside the session roots, a session header): one
// outside is refused with current_session_refused and never read. A
// request may repeat the host's live session exactly, over the CLI and
// over serve (host.setLive), and nothing else.
func TestHostileLiveFromHost(t *testing.T) {
	t.Parallel()
	lw := newLiveWorld(t)
	w := lw.world
	for _, f := range lw.outside {
		r := w.mustRun(t, runOpts{}, "recall", "-q", lw.word, "--scope", "session", "--live-session", f, "--live-leaf", "e1", "--live-branch", "e1")
		page := decodeRecall(t, r)
		assert.Empty(t, page.Hits, "%s", r)
		assert.Contains(t, page.Coverage.Reasons, "current_session_refused", "%s", r)
		lw.assertNothingLeaked(t, "--live-session "+f, r.stdout)
	}

	// The host's live session inside the roots; a request may repeat it.
	hostLive := fmt.Sprintf(`{"sessionFile":%s,"leafId":"u1","branchIds":["u1"]}`, jsString(lw.session))
	flags := []string{"--live-session", lw.session, "--live-leaf", "u1", "--live-branch", "u1"}
	r := w.mustRun(t, runOpts{}, append([]string{"recall", fmt.Sprintf(`{"query":"harmless","live":%s}`, hostLive)}, flags...)...)
	page := decodeRecall(t, r)
	assert.Nil(t, page.Error, "%s", r)
	assert.NotEmpty(t, page.Hits, "%s", r)
	other := fmt.Sprintf(`{"sessionFile":%s,"leafId":"u2","branchIds":["u2"]}`, jsString(lw.session))
	r = w.mustRun(t, runOpts{}, append([]string{"recall", fmt.Sprintf(`{"query":"harmless","live":%s}`, other)}, flags...)...)
	assert.Equal(t, "invalid_request", answerCode(r), "%s", r)

	// serve: nothing set, a request's live is refused; after host.setLive
	// (handled in order: every later line sees it) a request may repeat
	// it, and nothing else.
	withLive := fmt.Sprintf(`{"query":"harmless","live":%s}`, hostLive)
	codes := w.rpcCodes(t, []rpcCall{{"memory.recall", withLive}})
	assert.Equal(t, []string{"invalid_request"}, codes)
	codes = w.rpcCodes(t, []rpcCall{
		{"host.setLive", hostLive},
		{"memory.recall", withLive},
		{"tools.call", fmt.Sprintf(`{"ref":"memory.recall","args":%s}`, withLive)},
		{"memory.recall", fmt.Sprintf(`{"query":"harmless","live":%s}`, other)},
		{"host.setLive", `{"sessionFile":"x","bogus":1}`},
	})
	assert.Equal(t, []string{"", "", "", "invalid_request", "invalid_params"}, codes)
}

// TestHostileSymlinkOutsideRoots: a *.jsonl symlink in a bucket that
// resolves outside the session roots is not followed: not listed, not
// hashed, not indexed, and the answer says so; a symlink that stays inside
// keeps working.
func TestHostileSymlinkOutsideRoots(t *testing.T) {
	t.Parallel()
	lw := newLiveWorld(t)
	w := lw.world
	for i, f := range lw.outside {
		require.NoError(t, os.Symlink(f, filepath.Join(w.bucket, fmt.Sprintf("x%d.jsonl", i))))
	}
	require.NoError(t, os.Symlink(lw.session, filepath.Join(w.bucket, "alias.jsonl")))
	for _, args := range [][]string{
		{"sessions", "--scope", "global"},
		{"recall", "-q", lw.word, "--scope", "global"},
		{"recall", "-q", "harmless", "--scope", "project"},
		{"rebuild", "--scope", "global", "--json"},
	} {
		r := w.mustRun(t, runOpts{}, args...)
		assert.Zero(t, r.code, "%s", r)
		assert.Contains(t, string(r.stdout), "symlink_outside_session_roots", "%s", r)
		lw.assertNothingLeaked(t, strings.Join(args, " "), r.stdout)
	}
	page := decodeRecall(t, w.mustRun(t, runOpts{}, "recall", "-q", "harmless", "--scope", "global"))
	assert.Len(t, page.Hits, 1, "the session is found once, through its real path")
}
