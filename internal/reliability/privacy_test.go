//go:build unix

package reliability

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/index"
)

// TestPrivacyIndexPermissions: after a rebuild a new index directory is
// 0700 and a new index.db 0600, whatever the umask (000 included). A
// directory or file that memidx did not just create keeps its mode, too
// open or not: memidx changes only what it created (a shared 1777 index
// directory keeps its sticky bit); indexfile.DirWarning tells the user.
func TestPrivacyIndexPermissions(t *testing.T) {
	t.Parallel()
	seeded(t)
	w := newWorld(t)
	w.writeSession("s-perm", lines(headerLine("s-perm", w.project), msgLine("u1", "", tsAt(1), userMsg("hello"))))
	check := func(dir string) {
		t.Helper()
		st, err := os.Stat(dir)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o700), st.Mode().Perm(), "index directory %s", dir)
		st, err = os.Stat(filepath.Join(dir, "index.db"))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "index.db in %s", dir)
	}
	// A new directory (and its missing parents), default umask.
	fresh := filepath.Join(w.root, "a", "b", "index")
	r := w.mustRun(t, runOpts{index: fresh}, "rebuild", "--scope", "global", "--json")
	require.Zero(t, r.code, "%s", r)
	check(fresh)

	// Under umask 000, through a shell.
	if sh, err := exec.LookPath("sh"); err == nil {
		open := filepath.Join(w.root, "umask0", "index")
		cmd := exec.Command(sh, "-c", `umask 000; exec "$@"`, "sh", w.bin, "--agent-dir", w.agent, "--index-dir", open,
			"--cwd", w.project, "rebuild", "--scope", "global", "--json")
		cmd.Env = w.procEnv
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		check(open)
	} else {
		t.Log("no sh: the umask 000 case is not run")
	}

	// A directory and a file that someone else opened up stay as they are.
	loose := filepath.Join(w.root, "loose")
	require.NoError(t, os.MkdirAll(loose, 0o777))
	require.NoError(t, os.Chmod(loose, 0o777))
	r = w.mustRun(t, runOpts{index: loose}, "rebuild", "--scope", "global", "--json")
	require.Zero(t, r.code, "%s", r)
	require.NoError(t, os.Chmod(filepath.Join(loose, "index.db"), 0o666))
	require.NoError(t, os.Chmod(loose, 0o777))
	w.writeSession("s-perm2", lines(headerLine("s-perm2", w.project), msgLine("u1", "", tsAt(1), userMsg("again"))))
	r = w.mustRun(t, runOpts{index: loose}, "rebuild", "--scope", "global", "--json")
	require.Zero(t, r.code, "%s", r)
	st, err := os.Stat(loose)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o777), st.Mode().Perm(), "the existing directory keeps its mode")
	st, err = os.Stat(filepath.Join(loose, "index.db"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o666), st.Mode().Perm(), "the existing file keeps its mode")
}

// thinkingConfig writes a config file with hotSessions 2 and the given
// indexThinking.
func thinkingConfig(t *testing.T, w *world, indexThinking bool) string {
	cfg := filepath.Join(w.root, fmt.Sprintf("fabric-%v.json", indexThinking))
	require.NoError(t, os.WriteFile(cfg, []byte(fmt.Sprintf(`{"memory":{"hotSessions":2,"indexThinking":%v}}`, indexThinking)), 0o600))
	return cfg
}

// thinkingSessions writes four sessions (two hot, two cold with
// hotSessions 2) whose assistant thinking blocks hold thinkingTerm.
func thinkingSessions(w *world) []string {
	var paths []string
	for i := 0; i < 4; i++ {
		id := fmt.Sprintf("s-think%d", i)
		paths = append(paths, w.writeSession(id, lines(headerLine(id, w.project),
			msgLine("u1", "", tsAt(1), userMsg("what is the plan")),
			msgLine("a1", "u1", tsAt(2), thinkingMsg("private reasoning "+thinkingTerm+" do not tell", "the plan is visible")),
			msgLine("u2", "a1", tsAt(3), userMsg("ok zqvisibleterm")),
		)))
	}
	return paths
}

// TestPrivacyThinkingNotIndexed: text planted only inside assistant
// thinking blocks is absent from the bytes of index.db and from every
// recall output (global, project, single session hot and cold, all
// branches, phrase, regex, sessions, inspect) unless indexThinking is on,
// which makes it findable. Expansion reads the source losslessly, thinking
// included, by design.
func TestPrivacyThinkingNotIndexed(t *testing.T) {
	t.Parallel()
	seeded(t)
	w := newWorld(t)
	paths := thinkingSessions(w)
	cfgOff, cfgOn := thinkingConfig(t, w, false), thinkingConfig(t, w, true)
	off := runOpts{global: []string{"--config", cfgOff}}

	r := w.mustRun(t, off, "rebuild", "--scope", "global", "--json")
	require.Zero(t, r.code, "%s", r)
	outputs := []result{r}
	for _, args := range [][]string{
		{"recall", "-q", thinkingTerm, "--scope", "global"},
		{"recall", "-q", thinkingTerm, "--scope", "project"},
		{"recall", "-q", thinkingTerm, "--scope", "global", "--branches", "all"},
		{"recall", "-q", "private reasoning " + thinkingTerm, "--mode", "phrase", "--scope", "global"},
		{"recall", "-q", "zqthinking.*", "--mode", "regex", "--scope", "global"},
		{"recall", "-q", "plan", "--scope", "global", "--page-size", "50", "--snippet-chars", "2000"},
		{"recall", "--scope", "global", "--page-size", "50"},
		{"sessions", "--scope", "global"},
		{"inspect", "index", "--json"},
	} {
		outputs = append(outputs, w.mustRun(t, off, args...))
	}
	for _, p := range paths { // two hot, two cold (hydrated)
		outputs = append(outputs,
			w.mustRun(t, off, "recall", "-q", thinkingTerm, "--scope", "session:"+p),
			w.mustRun(t, off, "recall", "--scope", "session:"+p, "--branches", "all"),
			w.mustRun(t, off, "inspect", "session", p, "--json"))
	}
	for _, o := range outputs {
		assert.NotContains(t, string(o.stdout), thinkingTerm, "memidx %s", strings.Join(shorten(o.args), " "))
	}
	assert.Zero(t, decodeRecall(t, outputs[1]).Total)
	db, err := index.Plaintext(w.index)
	require.NoError(t, err)
	assert.False(t, bytes.Contains(db, []byte(thinkingTerm)), "the thinking term is in index.db")
	assert.True(t, bytes.Contains(db, []byte("zqvisibleterm")), "the grep is meaningful: visible text is there")

	// Expansion is lossless by design: the source, thinking included.
	r = w.mustRun(t, off, "expand", fmt.Sprintf(`{"session":%s,"indices":[1]}`, jsString(paths[0])))
	assert.Contains(t, string(r.stdout), thinkingTerm, "expand re-reads the source losslessly")

	// indexThinking makes it findable (in another index directory).
	on := runOpts{global: []string{"--config", cfgOn}, index: filepath.Join(w.root, "index-thinking")}
	r = w.mustRun(t, on, "recall", "-q", thinkingTerm, "--scope", "global")
	got := decodeRecall(t, r)
	assert.Positive(t, got.Total, "indexThinking: the thinking term is findable\n%s", r)
	db, err = index.Plaintext(filepath.Join(w.root, "index-thinking"))
	require.NoError(t, err)
	assert.True(t, bytes.Contains(db, []byte(thinkingTerm)), "indexThinking: the term is indexed")
	t.Logf("thinking: %d outputs checked without indexThinking; with it, %d hits", len(outputs), got.Total)
}

// TestPrivacyUntrustedProjectConfig: <cwd>/.omp/fabric.json of a project
// that is not trusted is never read: a config there that would index
// thinking, make every session cold and move the index has no effect,
// and a file that is not JSON (or a FIFO, which would block a reader)
// changes nothing. With --trust-project the same config applies.
func TestPrivacyUntrustedProjectConfig(t *testing.T) {
	t.Parallel()
	seeded(t)
	w := newWorld(t)
	thinkingSessions(w)
	omp := filepath.Join(w.project, ".omp")
	require.NoError(t, os.MkdirAll(omp, 0o755))
	evil := filepath.Join(w.root, "evil-index")
	projCfg := filepath.Join(omp, "fabric.json")
	require.NoError(t, os.WriteFile(projCfg, []byte(fmt.Sprintf(`{"memory":{"indexThinking":true,"hotSessions":0,"indexDir":%s}}`, jsString(evil))), 0o600))

	r := w.mustRun(t, runOpts{}, "recall", "-q", thinkingTerm, "--scope", "global")
	assert.Zero(t, decodeRecall(t, r).Total, "untrusted: thinking is not indexed")
	r = w.mustRun(t, runOpts{}, "recall", "-q", "zqvisibleterm", "--scope", "global")
	got := decodeRecall(t, r)
	require.NotEmpty(t, got.Hits)
	assert.Equal(t, "entry", got.Hits[0].Kind, "untrusted: hotSessions 0 did not apply")
	assert.Equal(t, "hot", got.Hits[0].Tier)
	_, err := os.Stat(evil)
	assert.True(t, os.IsNotExist(err), "untrusted: the project's indexDir was not used")

	trusted := runOpts{global: []string{"--trust-project"}, index: filepath.Join(w.root, "index-trusted")}
	r = w.mustRun(t, trusted, "recall", "-q", thinkingTerm, "--scope", "global")
	got = decodeRecall(t, r)
	assert.Positive(t, got.Total, "trusted: indexThinking applies\n%s", r)
	for _, h := range got.Hits {
		assert.Equal(t, "session", h.Kind, "trusted: hotSessions 0 applies, every session is cold")
	}

	// Garbage and a FIFO are not read either.
	require.NoError(t, os.WriteFile(projCfg, []byte("{{{ not json"), 0o600))
	r = w.mustRun(t, runOpts{}, "recall", "-q", "zqvisibleterm", "--scope", "global")
	assert.Zero(t, r.code, "untrusted garbage is never parsed\n%s", r)
	r = w.mustRun(t, runOpts{global: []string{"--trust-project"}}, "recall", "-q", "zqvisibleterm", "--scope", "global")
	assert.Equal(t, 1, r.code, "trusted garbage is an error: the file really is read when trusted\n%s", r)
	require.NoError(t, os.Remove(projCfg))
	require.NoError(t, syscall.Mkfifo(projCfg, 0o600))
	r = w.mustRun(t, runOpts{timeout: 10 * time.Second}, "recall", "-q", "zqvisibleterm", "--scope", "global")
	assert.Zero(t, r.code, "an untrusted FIFO is never opened\n%s", r)
}

// TestPrivacyServeStdioOnly: serve without --stdio (or with anything
// else) is a usage error, and a running server holds no socket.
func TestPrivacyServeStdioOnly(t *testing.T) {
	t.Parallel()
	seeded(t)
	w := newWorld(t)
	for _, args := range [][]string{{"serve"}, {"serve", "--stdio", "extra"}, {"serve", "--port", "8080"},
		{"serve", "--listen", ":8080", "--stdio"}, {"serve", "--stdio=false"}, {"serve", "tcp://127.0.0.1:1"}} {
		r := w.mustRun(t, runOpts{}, args...)
		assert.Equal(t, 2, r.code, "%s", r)
		assert.Equal(t, "usage", r.errCode(), "%s", r)
	}

	cmd := exec.Command(w.bin, "--agent-dir", w.agent, "--index-dir", w.index, "--cwd", w.project, "serve", "--stdio")
	cmd.Env = w.procEnv
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() {
		// Answer one request, so the server is up, then look at its files.
		_, err := io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"memory.sessions","params":{"scope":"global"}}`+"\n")
		if err == nil {
			_, err = bufio.NewReader(stdout).ReadString('\n')
		}
		done <- err
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("serve did not answer")
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", cmd.Process.Pid))
	if err != nil {
		t.Logf("no /proc: the socket check is not run (%v)", err)
	} else {
		own := unixSocketInodes(t, filepath.Join(w.index, "memidx.sock"))
		shell := 0
		for _, fd := range fds {
			target, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", cmd.Process.Pid, fd.Name()))
			inode, isSocket := strings.CutPrefix(target, "socket:[")
			if isSocket && own[strings.TrimSuffix(inode, "]")] {
				shell++ // the shell's Unix socket in the index directory (docs/SERVER.md)
				continue
			}
			assert.False(t, isSocket, "serve holds a socket other than its index directory's: fd %s -> %s", fd.Name(), target)
		}
		assert.LessOrEqual(t, shell, 1, "one listening socket for the shell")
		t.Logf("serve --stdio holds %d file descriptors, no socket but the index directory's Unix socket (%d)", len(fds), shell)
	}
	stdin.Close()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		assert.NoError(t, err, "serve exits 0 at EOF")
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Error("serve did not end at EOF")
	}
}

// unixSocketInodes are the inodes of the Unix sockets bound at path, from
// /proc/net/unix (columns: Num RefCount Protocol Flags Type St Inode Path).
func unixSocketInodes(t *testing.T, path string) map[string]bool {
	b, err := os.ReadFile("/proc/net/unix")
	require.NoError(t, err)
	out := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) >= 8 && f[7] == path {
			out[f[6]] = true
		}
	}
	return out
}
