package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"golang.org/x/term"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/sockserve"
)

// askServer has a running server answer a served command, and reports
// whether it did; its exit code is the command's. When no server answers,
// the caller answers itself (stdin, when it was read, is put back).
func askServer(ctx context.Context, g globals, cmd string, args []string, stdin *io.Reader, stdout, stderr io.Writer) (int, bool) {
	if !servedCommands[cmd] || g.noServer || g.served != nil || os.Getenv("MEMIDX_NO_SERVER") == "1" {
		return 0, false
	}
	req, dir, ok := newSockRequest(g, cmd, args, stdin, stdout, stderr)
	if !ok {
		return 0, false
	}
	conn, ok := connectServer(dir, req)
	if !ok {
		return 0, false
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() {
		// The server ends the command as an interrupt would, and its last
		// words still come.
		conn.CloseWrite()
		conn.SetReadDeadline(time.Now().Add(interruptGrace))
	})
	defer stop()
	return relayAnswer(conn, stdout, stderr)
}

// newSockRequest is the request of a command line and the index
// directory whose server may answer it, or false when it is not one a
// server can run for this process.
func newSockRequest(g globals, cmd string, args []string, stdin *io.Reader, stdout, stderr io.Writer) (*sockRequest, string, bool) {
	env := processWireEnv()
	e, err := engine.Open(engine.Options{AgentDir: g.agentDir, IndexDir: g.indexDir, Cwd: g.cwd, ConfigFile: g.config,
		SessionDir: g.sessionDir, TrustProject: g.trustProject})
	if err != nil {
		return nil, "", false // the command says why, itself
	}
	defer e.Close() // it only resolved the settings
	req := &sockRequest{Version: socketVersion(), Cmd: cmd, Args: args, Globals: wireOf(g), Env: env,
		Dirs: e.Dirs(), ConfigHash: configHash(e.Config()),
		StdoutTerminal: isTerminal(stdout), StderrTerminal: isTerminal(stderr)}
	if readsStdin(cmd, args) {
		if f, ok := (*stdin).(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			return nil, "", false // typed at a terminal: read by the command itself
		}
		b, err := io.ReadAll(io.LimitReader(*stdin, requestStdinBytes))
		*stdin = io.MultiReader(bytes.NewReader(b), errReader{err})
		if err != nil {
			return nil, "", false
		}
		req.Stdin, req.HasStdin = b, true
	}
	return req, e.Config().IndexDir, true
}

// errReader answers err (nil: EOF) after what was read before.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	return 0, io.EOF
}

// connectServer sends req to the index directory's server and waits
// serverWait from the connect for its acceptance.
func connectServer(dir string, req *sockRequest) (*sockserve.Conn, bool) {
	deadline := time.Now().Add(serverWait)
	conn, err := sockserve.Dial(dir)
	if err != nil {
		return nil, false
	}
	body, err := json.Marshal(req)
	if err == nil {
		conn.SetDeadline(deadline)
		err = sockserve.WriteFrame(conn, frameRequest, body)
	}
	var kind byte
	if err == nil {
		kind, _, err = sockserve.ReadFrame(conn, maxSocketOutputFrame)
	}
	if err != nil || kind != frameAccept {
		conn.Close()
		return nil, false
	}
	conn.SetDeadline(time.Time{})
	return conn, true
}

// relayAnswer copies the server's output frames to stdout and stderr and
// returns its exit code. A server that ends before anything was written
// is no answer (false: the caller answers itself); after output, it is a
// failure of this command.
func relayAnswer(conn io.Reader, stdout, stderr io.Writer) (int, bool) {
	wrote := false
	for {
		kind, p, err := sockserve.ReadFrame(conn, maxSocketOutputFrame)
		if err == nil {
			switch kind {
			case frameStdout:
				_, err = stdout.Write(p)
			case frameStderr:
				_, err = stderr.Write(p)
			case frameExit:
				code, cerr := strconv.Atoi(string(p))
				if cerr == nil {
					return code, true
				}
				err = cerr
			default:
				err = fmt.Errorf("an unknown frame %q", kind)
			}
		}
		if err == nil {
			wrote = true
			continue
		}
		if !wrote {
			return 0, false
		}
		fmt.Fprintf(stderr, "memidx: the server ended before its answer was complete (%v); run again with --no-server\n", err)
		return exitFailed, true
	}
}
