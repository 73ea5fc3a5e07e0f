package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/sockserve"
)

// sockHost answers one-shot commands on the socket of its engine's index
// directory, each with the client's own settings (engine.Derive): never
// with the host's live session, trust or catalog.
type sockHost struct {
	ctx    context.Context
	cancel context.CancelFunc
	e      *engine.Engine
	ln     *sockserve.Listener
	slots  chan struct{}
	wg     sync.WaitGroup
	// answered counts the commands answered to the end, and declined
	// keeps the last reason one was declined (tests).
	answered atomic.Int64
	declined atomic.Pointer[string]
}

// decline tells a client the server will not answer it, and why.
func (h *sockHost) decline(c io.Writer, why string) {
	h.declined.Store(&why)
	sockserve.WriteFrame(c, frameDecline, []byte(why))
}

// listenSocket starts answering on the socket of e's index directory.
// ErrBusy, ErrUnsupported and a file in the way are errors; serve --stdio
// goes on without a socket then, serve --socket reports them.
func listenSocket(ctx context.Context, e *engine.Engine) (*sockHost, error) {
	ln, err := sockserve.Listen(e.Config().IndexDir)
	if err != nil {
		return nil, err
	}
	h := &sockHost{e: e, ln: ln, slots: make(chan struct{}, maxSocketClients)}
	h.ctx, h.cancel = context.WithCancel(ctx)
	h.wg.Add(1)
	go h.acceptLoop()
	if socketStarted != nil {
		socketStarted(h)
	}
	return h, nil
}

// close stops listening and lets the commands in flight finish: a shell
// that was answered by a server going away (serve --stdio at the end of
// its input) gets its whole answer. Commands still running after
// socketCloseGrace are cancelled.
func (h *sockHost) close() {
	h.ln.Close()
	done := make(chan struct{})
	go func() { h.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(socketCloseGrace):
		h.cancel()
		<-done
	}
	h.cancel()
}

func (h *sockHost) acceptLoop() {
	defer h.wg.Done()
	for {
		c, err := h.ln.Accept()
		if err != nil {
			return
		}
		h.wg.Add(1)
		select {
		case h.slots <- struct{}{}:
			go func() {
				defer h.wg.Done()
				defer func() { <-h.slots }()
				h.serveConn(c)
			}()
		default:
			go func() {
				defer h.wg.Done()
				defer c.Close()
				h.decline(c, "busy")
			}()
		}
	}
}

// serveConn reads one request, declines it or runs it, and streams its
// output and exit code.
func (h *sockHost) serveConn(c *sockserve.Conn) {
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(socketRequestRead))
	kind, body, err := sockserve.ReadFrame(c, maxSocketRequestBytes)
	if err != nil || kind != frameRequest {
		return
	}
	c.SetReadDeadline(time.Time{})
	var req sockRequest
	if err := json.Unmarshal(body, &req); err != nil {
		h.decline(c, "not a request: "+err.Error())
		return
	}
	sv, why := h.admit(&req)
	if why != "" {
		h.decline(c, why)
		return
	}
	if sockserve.WriteFrame(c, frameAccept, nil) != nil {
		return
	}
	ctx, cancel := context.WithCancel(h.ctx)
	defer cancel()
	go func() {
		// The client sends nothing more: its end of input (an interrupt)
		// or a broken connection ends the command.
		var b [1]byte
		c.Read(b[:])
		cancel()
	}()
	if beforeServed != nil {
		beforeServed()
	}
	out := &frameConn{c: c}
	code := runServed(ctx, sv, &req, out.writer(frameStdout, req.StdoutTerminal), out.writer(frameStderr, req.StderrTerminal))
	if out.write(frameExit, []byte(strconv.Itoa(code))) == nil {
		h.answered.Add(1)
	}
}

// admit checks that the server can answer req exactly as the client would
// answer itself, and returns the command's served settings or the reason
// it declines.
func (h *sockHost) admit(req *sockRequest) (*served, string) {
	switch {
	case req.Version != socketVersion():
		return nil, "another memidx version: " + req.Version
	case !servedCommands[req.Cmd]:
		return nil, "not a served command: " + req.Cmd
	case req.Env.Vars["TZ"] != os.Getenv("TZ"):
		return nil, "another time zone (TZ)"
	}
	sv := &served{base: h.e, env: req.Env}
	g := req.Globals.globals()
	d, err := sv.derive(engineOptions(g, nil))
	if err != nil {
		return nil, err.Error()
	}
	if d.Dirs() != req.Dirs || configHash(d.Config()) != req.ConfigHash {
		return nil, "the client resolved other directories or another configuration"
	}
	sv.first = d
	return sv, ""
}

// served is what a command a server runs for a client uses: the client's
// environment, and engines derived from the server's.
type served struct {
	base  *engine.Engine
	env   wireEnv
	first *engine.Engine // derived by admit, for the command's first open
}

// open is openEngineWith for a served command: the engine a one-shot
// would open, over the server's index.
func (sv *served) open(opt engine.Options) (*engine.Engine, error) {
	if d := sv.first; d != nil && opt.Live == nil && opt.WalkTimeout == 0 && opt.Catalog == nil {
		sv.first = nil // a second open shows the notices again, as a new engine does
		return d, nil
	}
	return sv.derive(opt)
}

func (sv *served) derive(opt engine.Options) (*engine.Engine, error) {
	env := sv.env.engineEnv()
	opt.Env = &env
	opt.BuildCharged, opt.RecordsHeld = nil, nil // the process's heap is the server's
	return sv.base.Derive(opt)
}

// runServed runs a request's command as run would after the global flags,
// writing to the client's outputs.
func runServed(ctx context.Context, sv *served, req *sockRequest, stdout, stderr io.Writer) (code int) {
	g := req.Globals.globals()
	g.served = sv
	defer func() {
		if r := recover(); r != nil {
			writeError(stdout, &cliError{Code: "internal_error", Message: fmt.Sprintf("memidx failed: %v", r)})
			fmt.Fprintf(stderr, "%s\n", debug.Stack())
			code = exitFailed
		}
	}()
	var stdin io.Reader = errReader{errors.New("stdin was not sent")}
	if req.HasStdin {
		stdin = bytes.NewReader(req.Stdin)
	}
	err := runCommand(ctx, g, req.Cmd, req.Args, stdin, stdout, stderr)
	return report(err, g, req.Cmd, append([]string{req.Cmd}, req.Args...), stdout, stderr)
}

// frameConn writes frames to a client, one at a time.
type frameConn struct {
	mu sync.Mutex
	c  io.Writer
}

func (f *frameConn) write(kind byte, p []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return sockserve.WriteFrame(f.c, kind, p)
}

func (f *frameConn) writer(kind byte, terminal bool) *frameWriterTo {
	return &frameWriterTo{f: f, kind: kind, terminal: terminal}
}

// frameWriterTo is one of a client's outputs: stdout or stderr, a
// terminal or not as the client's is.
type frameWriterTo struct {
	f        *frameConn
	kind     byte
	terminal bool
}

func (w *frameWriterTo) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		k := min(len(p), socketChunk)
		if err := w.f.write(w.kind, p[:k]); err != nil {
			return n, err
		}
		n += k
		p = p[k:]
	}
	return n, nil
}

// Terminal reports whether the client's output is a terminal (isTerminal).
func (w *frameWriterTo) Terminal() bool { return w.terminal }

// checkSocketFlags refuses what does not go with serve --socket: the
// shell's commands bring their own live session.
func checkSocketFlags(socket, noSocket bool, lf liveFlags) error {
	switch {
	case socket && noSocket:
		return usageError("--socket and --no-socket contradict each other")
	case socket && lf.live() != nil:
		return usageError("--live-session is a host's (serve --stdio); shell commands bring their own")
	}
	return nil
}

// socketStarted, when set (tests), sees each socket host that listens.
var socketStarted func(*sockHost)

// beforeServed, when set (tests), runs before each accepted command.
var beforeServed func()

// serveSocket is serve --socket: it answers shell commands until
// interrupted or terminated (SIGTERM, as a service manager stops it).
func serveSocket(ctx context.Context, e *engine.Engine, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer stop()
	h, err := listenSocket(ctx, e)
	if err != nil {
		return socketError(e.Config().IndexDir, err)
	}
	defer h.close()
	fmt.Fprintf(stderr, "memidx: answering shell commands on %s\n", h.ln.Path())
	<-ctx.Done()
	return nil
}

// socketError is why serve --socket cannot listen, for the user.
func socketError(dir string, err error) error {
	var ff *sockserve.ForeignFileError
	switch {
	case errors.Is(err, sockserve.ErrBusy):
		return &cliError{Code: "server_running", Message: fmt.Sprintf("another memidx server answers on %s already", filepath.Join(dir, sockserve.SocketName))}
	case errors.Is(err, sockserve.ErrUnsupported):
		return &cliError{Code: "unsupported", Message: "this platform has no memidx socket; shell commands answer themselves"}
	case errors.As(err, &ff):
		return &cliError{Code: "socket_in_the_way", Message: ff.Error()}
	}
	return &cliError{Code: "socket_failed", Message: fmt.Sprintf("cannot listen in %s: %v", dir, err)}
}
