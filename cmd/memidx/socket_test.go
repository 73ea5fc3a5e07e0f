//go:build linux || darwin || freebsd

package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
			t.Errorf("the server answered %d commands, want %d %s", n, want, why)
		}
	}
}

// startSocketServer runs memidx serve --socket in process, in another
// working directory, with the directory flags of g and index directory
// dir; stop ends it and checks that its socket is gone.
func startSocketServer(t *testing.T, g globals, dir string) (*sockHost, func()) {
	t.Helper()
	args := []string{"--index-dir", dir, "--cwd", t.TempDir()}
	for _, f := range []struct{ name, v string }{{"--agent-dir", g.agentDir}, {"--session-dir", g.sessionDir}, {"--config", g.config}} {
		if f.v != "" {
			args = append(args, f.name, f.v)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan *sockHost, 1)
	socketStarted = func(h *sockHost) { started <- h }
	done := make(chan int, 1)
	var out, errb bytes.Buffer
	go func() { done <- run(ctx, append(args, "serve", "--socket"), strings.NewReader(""), &out, &errb) }()
	var h *sockHost
	select {
	case h = <-started:
	case code := <-done:
		cancel()
		t.Fatalf("serve --socket exited %d before listening: %s%s", code, out.String(), errb.String())
	}
	return h, func() {
		cancel()
		<-done
		socketStarted = nil
		if _, err := os.Lstat(filepath.Join(dir, sockserve.SocketName)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the socket is still there after the server ended (%v)", err)
		}
	}
}
