package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"strings"
	"time"

	"github.com/memidx/memidx/engine"
)

// A one-shot recall, expand, sessions, walk or call asks a running server
// (serve --stdio, serve --socket) of the same index directory over the
// socket of internal/sockserve, and prints its answer: the server runs the
// very command, with the client's own settings, over its warm engine
// (engine.Derive). The client answers itself, silently, when no server
// listens, the server declines, or its first frame has not come within
// serverWait. --no-server or MEMIDX_NO_SERVER=1 skip the socket.

// serverFirstByte is how long a one-shot command waits for a server: from
// the start of the connect to the server's first frame (its acceptance or
// refusal). Once accepted the answer may take as long as the command
// does, as it would without a server.
const serverFirstByte = 50 * time.Millisecond

// serverWait is serverFirstByte; tests on a loaded machine lengthen it.
var serverWait = serverFirstByte

// Limits of the socket.
const (
	// maxSocketRequestBytes bounds a request frame: the command line and
	// up to requestStdinBytes of stdin, base64 in JSON.
	maxSocketRequestBytes = 24 << 20
	// requestStdinBytes is what a command reads of stdin (requestJSON).
	requestStdinBytes = 16 << 20
	// maxSocketOutputFrame bounds one output frame a client reads;
	// a server writes at most socketChunk bytes a frame.
	maxSocketOutputFrame = 1 << 20
	socketChunk          = 64 << 10
	// maxSocketClients is how many one-shot commands a server answers at
	// once; the next ones are declined ("busy") and answer themselves.
	maxSocketClients = 16
	// socketRequestRead bounds the wait for a request once connected.
	socketRequestRead = 5 * time.Second
	// socketCloseGrace is how long a server that stops (serve --stdio at
	// the end of its input) lets the shell's commands in flight finish
	// before it cancels them.
	socketCloseGrace = 10 * time.Second
	// interruptGrace is how long an interrupted client waits for the
	// server's last words (a walk's "interrupted" line) before it leaves.
	interruptGrace = 2 * time.Second
)

// Frame kinds.
const (
	frameRequest = 'q'
	frameAccept  = 'a'
	frameDecline = 'd'
	frameStdout  = 'o'
	frameStderr  = 'e'
	frameExit    = 'x'
)

// socketProtocol changes whenever the request or the frames change.
const socketProtocol = "memidx-socket/1"

// servedCommands are the commands a server answers for a shell.
var servedCommands = map[string]bool{"recall": true, "expand": true, "sessions": true, "walk": true, "call": true}

// sockRequest is a one-shot command as a server runs it: the command line
// after the global flags, the globals resolved, the environment the
// command depends on, and what the client resolved its directories and
// configuration to (the server answers only when its own are the same).
type sockRequest struct {
	Version    string      `json:"version"`
	Cmd        string      `json:"cmd"`
	Args       []string    `json:"args"`
	Globals    wireGlobals `json:"globals"`
	Env        wireEnv     `json:"env"`
	Dirs       engine.Dirs `json:"dirs"`
	ConfigHash string      `json:"configHash"`
	// Stdin is what the command reads of stdin ("-"), when HasStdin.
	Stdin          []byte `json:"stdin,omitempty"`
	HasStdin       bool   `json:"hasStdin,omitempty"`
	StdoutTerminal bool   `json:"stdoutTerminal,omitempty"`
	StderrTerminal bool   `json:"stderrTerminal,omitempty"`
}

// wireGlobals are the globals a command reads, resolved by the client.
type wireGlobals struct {
	AgentDir     string `json:"agentDir,omitempty"`
	IndexDir     string `json:"indexDir,omitempty"`
	SessionDir   string `json:"sessionDir,omitempty"`
	Cwd          string `json:"cwd,omitempty"`
	Config       string `json:"config,omitempty"`
	TrustProject bool   `json:"trustProject,omitempty"`
	Pretty       bool   `json:"pretty,omitempty"`
	Format       string `json:"format,omitempty"`
	Color        string `json:"color,omitempty"`
	Verbose      bool   `json:"verbose,omitempty"`
}

func wireOf(g globals) wireGlobals {
	return wireGlobals{AgentDir: g.agentDir, IndexDir: g.indexDir, SessionDir: g.sessionDir, Cwd: g.cwd, Config: g.config,
		TrustProject: g.trustProject, Pretty: g.pretty, Format: g.format, Color: g.color, Verbose: g.verbose}
}

func (w wireGlobals) globals() globals {
	return globals{agentDir: w.AgentDir, indexDir: w.IndexDir, sessionDir: w.SessionDir, cwd: w.Cwd, config: w.Config,
		trustProject: w.TrustProject, pretty: w.Pretty, format: w.Format, color: w.Color, verbose: w.Verbose}
}

// wireEnv is the process environment as the engine and the CLI read it.
type wireEnv struct {
	Home   string `json:"home"`
	Cwd    string `json:"cwd"`
	TmpDir string `json:"tmpDir"`
	GOOS   string `json:"goos"`
	// Vars are the set variables of envKeys.
	Vars map[string]string `json:"vars"`
}

// envKeys are the variables that decide OMP's directories
// (internal/session/locate), the colour (NO_COLOR, TERM) and dates (TZ).
// A server checks the directories it derives from them against the
// client's own (Dirs), so a variable missing here cannot go unnoticed.
var envKeys = []string{"HOME", "PI_CONFIG_DIR", "OMP_PROFILE", "PI_PROFILE", "PI_CODING_AGENT_DIR",
	"XDG_DATA_HOME", "PI_CODING_AGENT_SESSION_DIR", "TMPDIR", "TMP", "TEMP", "PWD", "NO_COLOR", "TERM", "TZ"}

func processWireEnv() wireEnv {
	e := engine.ProcessEnv()
	w := wireEnv{Home: e.Home, Cwd: e.Cwd, TmpDir: e.TmpDir, GOOS: e.GOOS, Vars: map[string]string{}}
	for _, k := range envKeys {
		if v, ok := os.LookupEnv(k); ok {
			w.Vars[k] = v
		}
	}
	return w
}

func (w wireEnv) engineEnv() engine.Env {
	return engine.Env{Home: w.Home, Cwd: w.Cwd, TmpDir: w.TmpDir, GOOS: w.GOOS, LookupEnv: engine.EnvMap(w.Vars)}
}

// getenv reads a variable of the command's environment: the client's for
// a command a server runs for it.
func (g globals) getenv(k string) string {
	if g.served != nil {
		return g.served.env.Vars[k]
	}
	return os.Getenv(k)
}

// terminal reports whether w is a terminal: for a command a server runs,
// whether the client's output is one.
func (g globals) terminal(w io.Writer) bool {
	if t, ok := w.(interface{ Terminal() bool }); ok && g.served != nil {
		return t.Terminal()
	}
	return isTerminal(w)
}

// configHash names an effective configuration.
func configHash(c engine.Config) string {
	b, err := json.Marshal(c)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// socketVersion is what client and server must share: the protocol and
// the build.
func socketVersion() string { return socketProtocol + " " + versionString() }

// readsStdin reports whether a command line names stdin ("-") as its
// request: a positional "-", not the value of a flag (the table says
// which flags take one).
func readsStdin(cmd string, args []string) bool {
	c := lookupCommand(cmd)
	if c == nil {
		return false
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			for _, r := range args[i+1:] {
				if r == "-" {
					return true
				}
			}
			return false
		case a == "-":
			return true
		case strings.HasPrefix(a, "-"):
			name, _, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if spec := lookupFlag(c.flags, name); spec != nil && spec.arg != "" && !hasVal {
				i++ // its value
			}
		}
	}
	return false
}
