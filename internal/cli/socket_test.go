//go:build linux || darwin || freebsd

package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/sockserve"
)

// localCases are the goldens of served commands that a server cannot
// answer, and why: they are answered before, or without, an index
// directory.
var localCases = map[string]string{
	"recall-help":         "help is answered before any server is asked",
	"expand-help":         "help is answered before any server is asked",
	"walk-help":           "help is answered before any server is asked",
	"missing-agent-dir":   "a directory flag that does not exist is a usage error first",
	"missing-session-dir": "a directory flag that does not exist is a usage error first",
	"cwd-is-a-file":       "a directory flag that does not exist is a usage error first",
	"no-omp-dir":          "without an agent directory there is no index directory",
}

// Every golden of a served command gives the same stdout, stderr and exit
// when a server (serve --socket, started for the case on its index
// directory, in another working directory) answers it, and the server's
// counter shows that it did.
func TestGoldensThroughAServer(t *testing.T) {
	defer func(w time.Duration) { serverWait = w }(serverWait)
	serverWait = 10 * time.Second // a loaded machine must not fall back
	caseServer = startCaseServer
	defer func() { caseServer = nil }()
	for name, test := range map[string]func(*testing.T){
		"recall": TestRecall, "expand": TestExpand, "walk": TestWalk, "walk-incomplete": TestWalkIncomplete,
		"sessions": TestSessions, "call": TestCall, "global": TestGlobal, "format": TestFormat,
	} {
		t.Run(name, test)
	}
}

// startCaseServer starts serve --socket on the index directory a case's
// command line resolves to, and returns the check of its counter.
func startCaseServer(t *testing.T, c cliCase, args []string) func() {
	g, rest, err := splitGlobals(args)
	if err != nil || len(rest) == 0 || !servedCommands[rest[0]] {
		return nil
	}
	why, local := localCases[c.name]
	var dir string
	if err := g.resolveDirs(); err == nil {
		if e, err := engine.Open(engineOptions(g, nil)); err == nil {
			dir = e.Config().IndexDir
		}
	}
	if dir == "" {
		if !local {
			t.Errorf("%s: no index directory to serve, and not one of localCases", c.name)
		}
		return nil
	}
	h, stop := startSocketServer(t, g, dir)
	return func() {
		stop() // waits for the server's handlers
		n := h.answered.Load()
		want := int64(1)
		if local {
			want = 0
		}
		if n != want {
			declined := "declined none (the client did not connect in time, or did not ask)"
			if d := h.declined.Load(); d != nil {
				declined = "last declined: " + *d
			}
			t.Errorf("the server answered %d commands, want %d %s; %s", n, want, why, declined)
		}
	}
}

// startSocketServer runs memidx serve --socket in process, in another
// working directory, with the directory flags of g and index directory
// dir; stop ends it and checks that its socket is gone.
func startSocketServer(t *testing.T, g globals, dir string, extra ...string) (*sockHost, func()) {
	t.Helper()
	args := []string{"--index-dir", dir, "--cwd", t.TempDir()}
	for _, f := range []struct{ name, v string }{{"--agent-dir", g.agentDir}, {"--session-dir", g.sessionDir}, {"--config", g.config}} {
		if f.v != "" {
			args = append(args, f.name, f.v)
		}
	}
	h, stop := startServer(t, append(append(args, extra...), "serve", "--socket"))
	var once sync.Once
	return h, func() {
		once.Do(stop)
		if _, err := os.Lstat(filepath.Join(dir, sockserve.SocketName)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the socket is still there after the server ended (%v)", err)
		}
	}
}

// startServer runs memidx with args, a serve command line, in process
// until stop, and returns the socket host it listens with.
func startServer(t *testing.T, args []string) (*sockHost, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan *sockHost, 1)
	socketStarted = func(h *sockHost) { started <- h }
	done := make(chan int, 1)
	inR, inW := io.Pipe()
	var out, errb bytes.Buffer
	go func() { done <- run(ctx, args, inR, &out, &errb) }()
	var h *sockHost
	select {
	case h = <-started:
	case code := <-done:
		cancel()
		t.Fatalf("%v exited %d before listening: %s%s", args, code, out.String(), errb.String())
	}
	var once sync.Once
	return h, func() {
		once.Do(func() {
			cancel()
			inW.Close()
			<-done
			socketStarted = nil
		})
	}
}

// A server answers only what it can answer exactly as the client would;
// each difference is a reason to decline.
func TestServerDeclinesWhatItCannotAnswerExactly(t *testing.T) {
	w := newWorld(t)
	g := globals{agentDir: w.agent, indexDir: w.index, cwd: w.proj}
	h, stop := startSocketServer(t, g, w.index)
	defer stop()
	// A project configuration that applies only when trusted.
	mkdir(t, w.proj+"/.omp")
	writeFile(t, w.proj+"/.omp/fabric.json", `{"memory":{"hotSessions":1}}`)
	tests := []struct {
		name   string
		change func(r *sockRequest)
		why    string // "" answers
	}{
		{"the same settings", func(r *sockRequest) {}, ""},
		{"another cwd", func(r *sockRequest) { r.Globals.Cwd = w.root }, ""},
		{"another version", func(r *sockRequest) { r.Version = "memidx-socket/0 memidx v0.0.1" }, "another memidx version"},
		{"a command it does not serve", func(r *sockRequest) { r.Cmd = "rebuild" }, "not a served command"},
		{"another time zone", func(r *sockRequest) { r.Env.Vars["TZ"] = "Asia/Tokyo" }, "another time zone"},
		{"a trusted project", func(r *sockRequest) { r.Globals.TrustProject = true }, "the effective configuration differs"},
		{"another index dir", func(r *sockRequest) { r.Globals.IndexDir = w.root + "/other" }, "the index directory differs"},
		{"another agent dir", func(r *sockRequest) { r.Globals.AgentDir = w.root + "/home" }, "directories differ"},
		{"directories resolved otherwise", func(r *sockRequest) { r.Dirs.AgentDir = "/elsewhere" }, "other directories"},
		{"another configuration", func(r *sockRequest) { r.ConfigHash = "0" }, "another configuration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdin io.Reader = strings.NewReader("")
			req, dir, ok := newSockRequest(g, "recall", []string{"flaky"}, &stdin, io.Discard, io.Discard)
			if !ok || dir != w.index {
				t.Fatalf("newSockRequest: %v, index dir %s", ok, dir)
			}
			tt.change(req)
			_, why := h.admit(req)
			if tt.why == "" && why != "" || !strings.Contains(why, tt.why) {
				t.Errorf("admit: %q, want %q", why, tt.why)
			}
		})
	}
}

// When no server answers (none runs, it declines, it is busy, it says
// nothing within serverWait) or the user bypasses it, the command answers
// itself, silently: the same stdout, stderr and exit as with --no-server.
func TestClientFallsBackSilently(t *testing.T) {
	tests := []struct {
		name string
		// server starts what listens on the index dir, if anything, and
		// returns its counter (nil: none) and stop.
		server func(t *testing.T, w *world) (*atomic.Int64, func())
		args   []string
		env    string // MEMIDX_NO_SERVER
	}{
		{"no server", nil, nil, ""},
		{"a server of another configuration", func(t *testing.T, w *world) (*atomic.Int64, func()) {
			writeFile(t, w.root+"/other.json", `{"memory":{"hotSessions":1}}`)
			h, stop := startSocketServer(t, globals{agentDir: w.agent, config: w.root + "/other.json"}, w.index)
			return &h.answered, stop
		}, nil, ""},
		{"a busy server", func(t *testing.T, w *world) (*atomic.Int64, func()) {
			h, stop := startSocketServer(t, globals{agentDir: w.agent}, w.index)
			for range maxSocketClients {
				h.slots <- struct{}{}
			}
			return &h.answered, func() {
				for range maxSocketClients {
					<-h.slots
				}
				stop()
			}
		}, nil, ""},
		{"a server that says nothing", silentServer, nil, ""},
		{"--no-server", servedWorld, []string{"--no-server"}, ""},
		{"MEMIDX_NO_SERVER=1", servedWorld, nil, "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("MEMIDX_NO_SERVER", tt.env)
			local := newWorld(t)
			want := runCLI(t, local.args("--no-server", "recall", "flaky"), "", false)
			w := newWorld(t)
			var answered *atomic.Int64
			if tt.server != nil {
				var stop func()
				answered, stop = tt.server(t, w)
				defer stop()
			}
			start := time.Now()
			got := runCLI(t, w.args(append(tt.args, "recall", "flaky")...), "", false)
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("the command took %v", took)
			}
			if got.code != want.code || w.mask(got.stdout) != local.mask(want.stdout) || w.mask(got.stderr) != local.mask(want.stderr) {
				t.Errorf("got exit %d\n%s%s\nwant exit %d\n%s%s", got.code, got.stdout, got.stderr, want.code, want.stdout, want.stderr)
			}
			if answered != nil && answered.Load() != 0 {
				t.Errorf("the server answered %d commands", answered.Load())
			}
		})
	}
}

// args are the world's directory flags and then a.
func (w *world) args(a ...string) []string {
	return append([]string{"--agent-dir", w.agent, "--index-dir", w.index, "--cwd", w.proj}, a...)
}

func servedWorld(t *testing.T, w *world) (*atomic.Int64, func()) {
	h, stop := startSocketServer(t, globals{agentDir: w.agent}, w.index)
	return &h.answered, stop
}

// silentServer accepts connections on the world's socket and never
// answers.
func silentServer(t *testing.T, w *world) (*atomic.Int64, func()) {
	ln, err := sockserve.Listen(w.index)
	if err != nil {
		t.Fatal(err)
	}
	var conns []*sockserve.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	return nil, func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	}
}

// The host's live session (serve --stdio --live-session) is never a shell
// command's: the server answers it as the shell would without one.
func TestServerKeepsItsHostsLiveSessionToItself(t *testing.T) {
	local := newWorld(t)
	want := runCLI(t, local.args("--no-server", "recall", "flaky"), "", false)
	w := newWorld(t)
	h, stop := startServer(t, []string{"--agent-dir", w.agent, "--index-dir", w.index, "--cwd", w.proj,
		"serve", "--stdio", "--live-session", w.session, "--live-leaf", "e000001e"})
	got := runCLI(t, w.args("recall", "flaky"), "", false)
	stop()
	if got.code != want.code || w.mask(got.stdout) != local.mask(want.stdout) || w.mask(got.stderr) != local.mask(want.stderr) {
		t.Errorf("got exit %d\n%s%s\nwant exit %d\n%s%s", got.code, got.stdout, got.stderr, want.code, want.stdout, want.stderr)
	}
	if n := h.answered.Load(); n != 1 {
		t.Errorf("the server answered %d commands, want 1", n)
	}
}

// A request frame longer than maxSocketRequestBytes is refused before it
// is read (nothing of it is allocated), and the server goes on.
func TestServerRefusesAnOversizedRequest(t *testing.T) {
	w := newWorld(t)
	h, stop := startSocketServer(t, globals{agentDir: w.agent}, w.index)
	defer stop()
	c, err := sockserve.Dial(w.index)
	if err != nil {
		t.Fatal(err)
	}
	head := []byte{frameRequest, 0x7f, 0xff, 0xff, 0xff} // 2 GiB announced
	if _, err := c.Write(head); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := c.Read(make([]byte, 1)); n != 0 || !errors.Is(err, io.EOF) {
		t.Errorf("read %d bytes, %v; want the server to close the connection", n, err)
	}
	c.Close()
	if r := runCLI(t, w.args("recall", "flaky"), "", false); r.code != 0 {
		t.Errorf("exit %d after the refused request: %s", r.code, r.stderr)
	}
	stop()
	if n := h.answered.Load(); n != 1 {
		t.Errorf("the server answered %d commands, want 1", n)
	}
}

func TestReadsStdin(t *testing.T) {
	for _, tt := range []struct {
		cmd  string
		args []string
		want bool
	}{
		{"recall", []string{"-"}, true},
		{"recall", []string{"--scope", "global", "-"}, true},
		{"recall", []string{"-q", "-"}, false},
		{"recall", []string{"--query=-", "x"}, false},
		{"recall", []string{"--", "-"}, true},
		{"recall", []string{"--json", "-"}, true},
		{"call", []string{"-"}, true},
		{"expand", []string{"abc", "-n", "1"}, false},
		{"expand", []string{"--max-chars", "-", "x"}, false},
		{"walk", []string{"--timeout", "1s", "-"}, true},
		{"nosuch", []string{"-"}, false},
	} {
		if got := readsStdin(tt.cmd, tt.args); got != tt.want {
			t.Errorf("readsStdin(%s %q) = %v, want %v", tt.cmd, tt.args, got, tt.want)
		}
	}
}

// A serve --stdio whose input ends while it answers a shell's command
// lets that command finish: the shell gets the answer it would have given
// itself, not "context canceled".
func TestServerEndingLetsTheShellsCommandFinish(t *testing.T) {
	w := newWorld(t)
	want := runCLI(t, w.args("--no-server", "recall", "flaky"), "", false)
	inR, inW := io.Pipe()
	started := make(chan *sockHost, 1)
	socketStarted = func(h *sockHost) { started <- h }
	defer func() { socketStarted = nil }()
	entered, release := make(chan struct{}), make(chan struct{})
	beforeServed = func() { close(entered); <-release }
	defer func() { beforeServed = nil }()
	done := make(chan int, 1)
	var out, errb bytes.Buffer
	go func() {
		done <- run(context.Background(), w.args("serve", "--stdio"), inR, &out, &errb)
	}()
	h := <-started
	got := make(chan result, 1)
	go func() { got <- runCLI(t, w.args("recall", "flaky"), "", false) }()
	<-entered
	inW.Close() // serve's input ends while the shell's command runs
	time.Sleep(50 * time.Millisecond)
	close(release)
	r := <-got
	if code := <-done; code != 0 {
		t.Errorf("serve exited %d: %s", code, errb.String())
	}
	if r.code != want.code || r.stdout != want.stdout {
		t.Errorf("got exit %d\n%s%s\nwant exit %d\n%s", r.code, r.stdout, r.stderr, want.code, want.stdout)
	}
	if n := h.answered.Load(); n != 1 {
		t.Errorf("the server answered %d commands, want 1", n)
	}
}
