package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/term"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/hugeheap"
	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/indexfile"
)

// Main runs the command line of os.Args and returns the process's exit
// code. serveMCP serves `memidx mcp`; nil hands that command to the
// memidx-mcp command beside this one (handOffMCP), so that a command
// that speaks no MCP does not link the SDK, whose start-up every one-shot
// command would pay.
func Main(serveMCP MCPServe) int {
	mcpServe = serveMCP
	hugeHeap.Store(true)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	go func() {
		<-ctx.Done()
		stop() // a second interrupt ends the process at once
	}()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if ctx.Err() != nil {
		// Interrupted: what was written stays written, and the shell
		// learns of the interrupt as from any Unix tool.
		code = exitInterrupted
	}
	stop()
	return code
}

// Exit codes: one scheme for every command.
const (
	// exitOK: the request was answered, including an answer with no hits
	// or with incomplete coverage (its coverage says so).
	exitOK = 0
	// exitFailed: the request was answered with an error (session_not_found,
	// stale_pointer, invalid_regex, …), a walk ended before its whole
	// selection (its lines have no coverage to say so), or memidx itself
	// failed.
	exitFailed = 1
	// exitUsage: the command line is wrong (unknown flag, missing
	// argument, a request that is not JSON or has an unknown field).
	exitUsage = 2
	// exitInterrupted: SIGINT (Ctrl-C) ended the command, 128 + 2 as a
	// shell reports a process killed by it.
	exitInterrupted = 130
)

// globals are the flags every command accepts, before or after its name.
type globals struct {
	agentDir     string
	indexDir     string
	cwd          string
	config       string
	sessionDir   string
	trustProject bool
	pretty       bool
	// format is formatText or formatJSON, "" for the default (text on a
	// terminal).
	format string
	// color is colorAuto, colorAlways or colorNever ("" is auto).
	color string
	// verbose shows the notices about normal operation (routineNotice) in
	// the human form too.
	verbose bool
	// highlight marks the query's matches in the coloured human form.
	highlight *regexp.Regexp
	// live is the host's live session from a command's --live-* flags:
	// the engine's, never a request argument.
	live *engine.StaticLive
	// shortHeap: the command is a short question (batchHeap).
	shortHeap bool
	// noServer: answer here, not through a running server (--no-server).
	noServer bool
	// served is set when a server runs the command for a client
	// (socket_server.go).
	served *served
}

// cliError is a failure reported to the user as JSON with a stable code.
type cliError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// usage marks a wrong command line: exit 2 and a pointer to the
	// command's help.
	usage bool
}

func (e *cliError) Error() string { return e.Code + ": " + e.Message }

func usageError(format string, a ...any) error {
	return &cliError{Code: "usage", Message: fmt.Sprintf(format, a...), usage: true}
}

// requestError is a request the CLI could not read (not JSON, an unknown
// field, a wrong type): a usage error that keeps the wire's code.
func requestError(eo *engine.ErrorObject) error {
	return &cliError{Code: eo.Code, Message: eo.Message, usage: true}
}

// answered is a request the engine answered with an error; the answer has
// been written already. It exits 1.
type answered struct{ err error }

func (a *answered) Error() string { return a.err.Error() }
func (a *answered) Unwrap() error { return a.err }

// run is the whole CLI; main only wires the process to it.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	cmd := ""
	defer func() {
		if r := recover(); r != nil {
			writeError(stdout, &cliError{Code: "internal_error", Message: fmt.Sprintf("memidx failed: %v", r)})
			fmt.Fprintf(stderr, "%s\n", debug.Stack())
			code = exitFailed
		}
	}()
	g, rest, err := splitGlobals(args)
	if err == nil && len(rest) == 0 {
		fmt.Fprint(stderr, usageText())
		return exitUsage
	}
	if err == nil {
		cmd = rest[0]
		switch {
		case cmd == "--version" || cmd == "version":
			fmt.Fprintln(stdout, versionString())
			return exitOK
		case cmd == "help" || cmd == "-h" || cmd == "--help" || cmd == "-help":
			return cmdHelp(rest[1:], stdout, stderr)
		case commandHelp(cmd) == "":
			cmd = ""
			err = usageError("unknown command %q%s", rest[0], suggestCommand(rest[0]))
		case wantsHelp(rest[1:]):
			fmt.Fprint(stdout, helpFor(cmd, rest[1:]))
			return exitOK
		}
	}
	if err == nil {
		err = g.resolveDirs()
	}
	if err == nil {
		if code, ok := askServer(ctx, g, cmd, rest[1:], &stdin, stdout, stderr); ok {
			return code
		}
		err = runCommand(ctx, g, cmd, rest[1:], stdin, stdout, stderr)
	}
	return report(err, g, cmd, rest, stdout, stderr)
}

func runCommand(ctx context.Context, g globals, cmd string, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	switch cmd {
	case "recall", "sessions", "call", "catalog", "inspect":
		if g.served == nil { // a server's heap is its own
			g.shortHeap = true
			defer restoreHeap()
			adviseHeap(g)
		}
	}
	switch cmd {
	case "inspect":
		return cmdInspect(ctx, g, args, stdin, stdout, stderr)
	case "rebuild":
		return cmdRebuild(ctx, g, args, stdout, stderr)
	case "recall":
		return cmdRecall(ctx, g, args, stdin, stdout, stderr)
	case "expand":
		return cmdExpand(ctx, g, args, stdin, stdout, stderr)
	case "sessions":
		return cmdSessions(ctx, g, args, stdin, stdout, stderr)
	case "call":
		return cmdCall(ctx, g, args, stdin, stdout, stderr)
	case "walk":
		return cmdWalk(ctx, g, args, stdin, stdout, stderr)
	case "serve":
		return cmdServe(ctx, g, args, stdin, stdout, stderr)
	case "mcp":
		return cmdMCP(ctx, g, args, stdin, stdout)
	case "catalog":
		return cmdCatalog(ctx, g, args, stdout)
	case "gen":
		return cmdGen(ctx, g, args, stdout)
	case "bench":
		return cmdBench(ctx, g, args, stdout, stderr)
	case "eval":
		return cmdEval(ctx, g, args, stdin, stdout, stderr)
	case "completion":
		return cmdCompletion(args, stdout)
	}
	return usageError("unknown command %q", cmd)
}

// report turns a command's outcome into its exit code and, for a failure
// the command did not print itself, its message: JSON on stdout (unless it
// is a terminal) and, for a usage error, one line and a pointer to the
// help on stderr.
func report(err error, g globals, cmd string, rest []string, stdout, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	var a *answered
	if errors.As(err, &a) {
		return exitFailed
	}
	var sf *silentFailure
	if errors.As(err, &sf) {
		fmt.Fprintln(stderr, "memidx:", sf.msg)
		return exitFailed
	}
	human := humanOutput(g, stdout)
	var ce *cliError
	if errors.As(err, &ce) && ce.usage {
		if !human {
			writeError(stdout, err)
		}
		name := "memidx"
		if cmd != "" {
			name += " " + cmd
			if cmd == "inspect" && len(rest) > 1 && commandHelp("inspect "+rest[1]) != "" {
				name += " " + rest[1]
			}
		}
		fmt.Fprintf(stderr, "%s: %s\nsee '%s --help'\n", name, ce.Message, name)
		return exitUsage
	}
	if human {
		code, msg := errorParts(err)
		fmt.Fprintf(stderr, "memidx: %s: %s\n", code, msg)
	} else {
		writeError(stdout, err)
	}
	return exitFailed
}

// splitGlobals takes the global flags (globalFlags) out of args wherever
// they stand and returns the rest in order.
func splitGlobals(args []string) (globals, []string, error) {
	var g globals
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		name, val, hasVal := strings.Cut(a, "=")
		spec := globalFlag(name)
		if spec == nil {
			rest = append(rest, a)
			continue
		}
		if spec.arg == "" {
			if hasVal {
				return g, nil, usageError("%s takes no value", name)
			}
			spec.global(&g, "")
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return g, nil, usageError("%s needs a value", name)
			}
			i++
			val = args[i]
		}
		if val == "" {
			return g, nil, usageError("%s needs a value", name)
		}
		if err := checkValue(spec, spec.names[0], val); err != nil {
			return g, nil, err
		}
		spec.global(&g, val)
	}
	if g.pretty && g.format == formatText {
		return g, nil, usageError("--pretty indents JSON; it does not go with --format text")
	}
	return g, rest, nil
}

// globalFlag is the global flag spelled arg (--name), nil for none.
func globalFlag(arg string) *flagSpec {
	name, ok := strings.CutPrefix(arg, "--")
	if !ok {
		return nil
	}
	return lookupFlag(globalFlags, name)
}

// resolveDirs makes the directory flags absolute against the shell's
// working directory (not --cwd: a shell user means the directory they
// typed the command in) and refuses an input directory that does not
// exist. The index directory is output: it is created on first use (and a
// damaged one is answered around), so it is only made absolute.
func (g *globals) resolveDirs() error {
	for _, d := range []struct {
		flag  string
		p     *string
		isDir bool // must exist as a directory
	}{
		{"--agent-dir", &g.agentDir, true},
		{"--session-dir", &g.sessionDir, true},
		{"--cwd", &g.cwd, true},
		{"--index-dir", &g.indexDir, false},
		{"--config", &g.config, false},
	} {
		if *d.p == "" {
			continue
		}
		abs, err := filepath.Abs(*d.p)
		if err != nil {
			return usageError("%s %s: %v", d.flag, *d.p, err)
		}
		*d.p = abs
		if !d.isDir {
			continue
		}
		st, err := os.Stat(abs)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return usageError("%s %s: no such directory", d.flag, abs)
		case err != nil:
			return usageError("%s %s: %v", d.flag, abs, err)
		case !st.IsDir():
			return usageError("%s %s is not a directory", d.flag, abs)
		}
	}
	return nil
}

// errorParts is the code and message of any error.
func errorParts(err error) (string, string) {
	var ce *cliError
	var eo *engine.ErrorObject
	switch {
	case errors.As(err, &ce):
		return ce.Code, ce.Message
	case errors.As(err, &eo):
		return eo.Code, eo.Message
	}
	if de := engine.DomainError(err); de != nil {
		return de.Code, de.Message
	}
	if errors.Is(err, indexfile.ErrInternal) {
		// A bug met inside an index transaction: the index was left as
		// it is.
		return "internal_error", err.Error()
	}
	return "error", err.Error()
}

// writeError prints err as {"error":{"code":…,"message":…}}; a domain
// error keeps its code and facts.
func writeError(w io.Writer, err error) {
	var eo *engine.ErrorObject
	if errors.As(err, &eo) {
		writeJSON(w, false, map[string]any{"error": eo})
		return
	}
	code, msg := errorParts(err)
	writeJSON(w, false, map[string]any{"error": &cliError{Code: code, Message: msg}})
}

func writeJSON(w io.Writer, pretty bool, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if pretty {
		enc.SetIndent("", "  ")
	}
	return enc.Encode(v)
}

// openEngine builds the engine the global flags describe.
func openEngine(g globals) (*engine.Engine, error) { return openEngineWith(g, "", nil) }

// answer opens the engine the global flags describe, asks it one question
// and writes the answer: JSON, or on a terminal its human form when human
// is not nil. An answer that carries an error exits 1. The configuration
// notices, which such an answer has no field for, go to stderr.
func answer[R any](g globals, stdout, stderr io.Writer, ask func(*engine.Engine) (R, error), human func(io.Writer, R)) error {
	e, err := openEngine(g)
	if err != nil {
		return err
	}
	showNotices(stderr, e.Notices())
	res, err := ask(e)
	if err != nil {
		return err
	}
	var hf func(io.Writer)
	if human != nil {
		hf = func(w io.Writer) { human(w, res) }
	}
	return output(g, stdout, res, hf)
}

// output writes a result: JSON, or on a terminal the human form when
// the command has one (it shows the error too). A result that carries an
// error exits 1.
func output(g globals, stdout io.Writer, res any, human func(io.Writer)) error {
	var rerr error
	if f, ok := res.(engine.Failure); ok {
		rerr = f.Err()
	}
	if human != nil && humanOutput(g, stdout) {
		writeHuman(g, stdout, human)
	} else if err := writeJSON(stdout, g.pretty, res); err != nil {
		return err
	}
	if rerr != nil {
		return &answered{rerr}
	}
	return nil
}

// showNotices writes notices to stderr on a terminal, one line each:
// where a command's JSON has no notices field, or its human form is shown.
func showNotices(w io.Writer, notices []engine.Notice) {
	for _, n := range notices {
		fmt.Fprintf(w, "memidx: note: %s\n", noticeText(n))
	}
}

func noticeText(n engine.Notice) string {
	if n.File != "" && n.Key != "" {
		return fmt.Sprintf("%s (%s in %s)", n.Message, n.Key, n.File)
	}
	return n.Message
}

// openEngineWith also loads a capability catalog file.
func openEngineWith(g globals, catalogFile string, live engine.LiveSession, set ...func(*engine.Options)) (*engine.Engine, error) {
	opt := engineOptions(g, live)
	if catalogFile != "" {
		c, err := engine.LoadCatalog(catalogFile)
		if err != nil {
			return nil, &cliError{Code: "invalid_catalog", Message: err.Error()}
		}
		opt.Catalog = c
	}
	if g.shortHeap {
		opt.BuildCharged, opt.RecordsHeld = batchHeap()
	}
	for _, f := range set {
		f(&opt)
	}
	if g.served != nil {
		return g.served.open(opt)
	}
	return engine.Open(opt)
}

// engineOptions are the engine options of the global flags and a live
// session (the host's, else the command's --live-* flags).
func engineOptions(g globals, live engine.LiveSession) engine.Options {
	opt := engine.Options{
		AgentDir:     g.agentDir,
		IndexDir:     g.indexDir,
		Cwd:          g.cwd,
		ConfigFile:   g.config,
		SessionDir:   g.sessionDir,
		TrustProject: g.trustProject,
	}
	switch {
	case live != nil:
		opt.Live = live
	case g.live != nil:
		opt.Live = *g.live
	}
	return opt
}

// batchHeap sets the collector of a process that asks one short question:
// it lives for milliseconds, so collecting its garbage early is wasted work
// (a recall ran one collection at 2k sessions and five at 10k with the
// default GOGC, 14-15% longer than with GOGC=400; with 400 it still ran
// one at 10k, 5-6 ms of a 44 ms process, which 1600 spares), while a first
// call that indexes an archive must stay bounded: a soft limit of
// shortHeapFloor, raised with the builds' charge as a rebuild's is, holds
// it near what it used before. GOGC and GOMEMLIMIT, when set, win. expand and walk keep the
// runtime's defaults (their memory is bounded per entry); a long-lived
// host (serve, mcp) sets its own (hostHeap). The settings are the process's, and
// runCommand puts them back when the command ends (restoreHeap).
// The records a call reads are added to the limit as they are read
// (index.HeapSteeringHeld): at 100k sessions they alone were over the
// floor, and the collector ran back to back, half the call's time.
// It returns the engine's Options.BuildCharged and RecordsHeld hooks
// that steer the soft limit, or nils.
func batchHeap() (charged, held func(n int64)) {
	var undo []func()
	limited := os.Getenv("GOMEMLIMIT") == ""
	if os.Getenv("GOGC") == "" {
		pct := shortGCPercent
		if !limited {
			pct = shortGCPercentUnbounded // the user's limit may be far off
		}
		prev := debug.SetGCPercent(pct)
		undo = append(undo, func() { debug.SetGCPercent(prev) })
	}
	if limited {
		var restore func()
		charged, held, restore = index.HeapSteeringHeld(0, shortHeapFloor, shortReadFloor)
		undo = append(undo, restore)
	}
	heapUndo.Lock()
	heapUndo.fns = append(heapUndo.fns, undo...)
	heapUndo.Unlock()
	return charged, held
}

// heapUndo puts back what batchHeap changed, newest first.
var heapUndo struct {
	sync.Mutex
	fns []func()
}

// hostGCPercent is GOGC for a long-lived host (serve, mcp) when GOGC is
// not set: nearly all of its heap is what it keeps between calls (the
// records and the watched listing, ~120 MB at 100k sessions), and a call
// makes a few hundred KB of garbage, so the default 100 doubled its
// resident size for garbage it collects every few hundred calls anyway.
// At 50 a 100k server peaked at 214 MiB instead of 251, at no CPU cost a
// call that the measurement could see (at 25, 193 MiB, and collections
// showed in a rare term's CPU time).
const hostGCPercent = 50

// hostHeap sets the collector of a long-lived host (see hostGCPercent),
// unless GOGC is set; the returned function puts it back.
func hostHeap() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	prev := debug.SetGCPercent(hostGCPercent)
	return func() { debug.SetGCPercent(prev) }
}

// restoreHeap undoes batchHeap.
func restoreHeap() {
	heapUndo.Lock()
	defer heapUndo.Unlock()
	for i := len(heapUndo.fns) - 1; i >= 0; i-- {
		heapUndo.fns[i]()
	}
	heapUndo.fns = nil
}

// hugeHeap is set by Main: the process's one short question backs the
// heap it fills with huge pages (hugeheap; 100k sessions: 33,000 page
// faults, a quarter of the recall's CPU on the test VM). Commands run in
// process by tests, and a server's, leave it alone.
var hugeHeap atomic.Bool

// prepareHeap is hugeheap.Prepare (tests count the calls).
var prepareHeap = hugeheap.Prepare

// shortHugeHeap is how much of a short question's heap is advised: about
// what a recall over 100k sessions fills. Untouched, it is address space
// only.
const shortHugeHeap = 128 << 20

// hugeHeapIndex is the index file size from which a short question's heap
// is worth advising: the advice costs 2-3 ms (a collection, and the
// heap's growth), a 4 KiB fault 10.5 µs on the test VM (~1 µs on
// hardware), and a recall fills ~0.7 KB a session. Measured there, a
// global recall advised: 2k sessions of 0.5 MB (index 38 MB) 6% slower,
// 10k (52 MB) 21% faster, 100k (170 MB) 29% faster.
const hugeHeapIndex = 48 << 20

// adviseHeap advises the heap of a process's short question (hugeheap),
// once, when Main armed it, the index is large, and no server runs it.
func adviseHeap(g globals) {
	if g.served == nil && hugeHeap.Swap(false) && largeIndex(g.indexDir) {
		prepareHeap(shortHugeHeap)
	}
}

// largeIndex reports whether the index file of dir is hugeHeapIndex or
// more.
func largeIndex(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, indexfile.FileName))
	return err == nil && st.Size() >= hugeHeapIndex
}

// shortHeapFloor is a short question's soft heap limit while its builds
// are charged less (see batchHeap).
const shortHeapFloor = 64 << 20

// shortReadFloor is shortHeapFloor while the question builds nothing: a
// settled 100k recall peaked at 98-102 MiB under 64 MiB, 87-91 under 48
// at the same wall time (0.24-0.30 s, four runs alternated); under 32,
// 75-80 MiB, but 0.33 s. Once the listing's refs were the targets and
// 32 bytes each, 20 runs interleaved (medians): under 48, 240-250 ms,
// 420-430 ms of CPU, 85 MiB; under 40, 260 ms, 78 MiB; under 36,
// 255-265 ms, 455-460 ms, 74-75 MiB; under 32, 280 ms, 505 ms, 72 MiB.
// 36 takes a tenth off the peak for 6% of the time, well within the
// stat floor's 1.3x. A call that indexes keeps 64 from its first build
// on (48 throughout made a fresh 2k archive's first recall 16% slower,
// 48 whenever no build was charged 6%).
const shortReadFloor = 36 << 20

// shortGCPercent is GOGC for a short question (batchHeap): its first
// collection comes at 64 MB of heap, where the soft limit
// (shortHeapFloor) bounds it anyway.
const shortGCPercent = 1600

// shortGCPercentUnbounded is GOGC for a short question when GOMEMLIMIT is
// set and batchHeap's soft limit is not: 1600 would let a first call that
// indexes grow its heap to 17 times what it holds.
const shortGCPercentUnbounded = 400

// isTerminal reports whether w is a terminal. /dev/null is a character
// device but not a terminal; tests replace it.
var isTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// versionString is the module version and VCS revision the binary was
// built from.
func versionString() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "memidx (unknown version)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, modified, at string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		case "vcs.time":
			at = ", " + s.Value
		}
	}
	out := "memidx " + v
	if rev != "" {
		out += fmt.Sprintf(" (revision %s%s%s)", short(rev), at, modified)
	}
	return out + " " + info.GoVersion
}
