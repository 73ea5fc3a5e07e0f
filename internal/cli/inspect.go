package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/analyzer"
	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/normalize"
	"github.com/memidx/memidx/internal/session"
)

func cmdInspect(ctx context.Context, g globals, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError("inspect needs a subject: lineage, entries, tokens, index or session")
	}
	switch args[0] {
	case "lineage":
		return inspectLineage(g, args[1:], stdout)
	case "entries":
		return inspectEntries(g, args[1:], stdout)
	case "tokens":
		return inspectTokens(g, args[1:], stdin, stdout)
	case "index":
		return inspectIndex(ctx, g, args[1:], stdout, stderr)
	case "session":
		return inspectSession(ctx, g, args[1:], stdout, stderr)
	}
	return usageError("unknown inspect subject %q%s", args[0], suggestCommand("inspect "+args[0]))
}

// newFlags returns a flag set that reports errors instead of exiting.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseInterleaved parses flags that may stand before or after the
// positional arguments. The flag set must be the command table's
// (checkFlags); an unknown flag, a missing value or a value outside a
// flag's allowed set is a usage error in GNU spelling.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	checkFlags(fs)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, flagError(fs.Name(), err)
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		if args[0] == "--" {
			pos = append(pos, args[1:]...)
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	c := lookupCommand(fs.Name())
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err == nil {
			err = checkValue(lookupFlag(c.flags, f.Name), f.Name, f.Value.String())
		}
	})
	return pos, err
}

// flagMessage is one of package flag's parse errors, with the flag's name.
type flagMessage struct {
	re     *regexp.Regexp
	format func(cmd string, m []string) string
}

// flagMessages are compiled at the first parse error: a process compiles
// no pattern at start.
var flagMessages = sync.OnceValue(func() []flagMessage {
	return []flagMessage{
		{regexp.MustCompile(`^flag provided but not defined: -(.*)$`), func(cmd string, m []string) string {
			return "unknown flag " + dash(m[1]) + suggestFlag(cmd, m[1])
		}},
		{regexp.MustCompile(`^flag needs an argument: -(.*)$`), func(_ string, m []string) string {
			return dash(m[1]) + " needs a value"
		}},
		{regexp.MustCompile(`^invalid (?:boolean )?value "(.*)" for (?:flag )?-(\S+): (.*)$`), func(_ string, m []string) string {
			msg := fmt.Sprintf("invalid value %q for %s", m[1], dash(m[2]))
			if m[3] != "parse error" {
				msg += ": " + m[3]
			}
			return msg
		}},
		{regexp.MustCompile(`^invalid boolean flag (\S+): (.*)$`), func(_ string, m []string) string {
			return dash(m[1]) + " takes no value"
		}},
	}
})

// flagError spells a parse error of package flag as GNU tools do.
func flagError(cmd string, err error) error {
	msg := err.Error()
	for _, fm := range flagMessages() {
		if m := fm.re.FindStringSubmatch(msg); m != nil {
			return usageError("%s", fm.format(cmd, m))
		}
	}
	return usageError("%s", msg)
}

// sessionFile is the file of the session x names: a path as given, or an
// id or unique id prefix, resolved by the engine as every command resolves
// one (a session-scope listing of x answers its file, or
// session_not_found / ambiguous_session with the candidates).
func sessionFile(g globals, x string) (string, error) {
	if looksLikePath(x) {
		return x, nil
	}
	e, err := openEngine(g)
	if err != nil {
		return "", err
	}
	res, err := e.Sessions(context.Background(), engine.SessionsRequest{Scope: engine.ScopeOf(x), Limit: 1})
	if err != nil {
		return "", err
	}
	if res.Error != nil {
		return "", res.Error
	}
	if len(res.Sessions) == 0 {
		return "", &cliError{Code: coverage.SessionNotFound, Message: fmt.Sprintf("no session file or session id %q", x)}
	}
	return res.Sessions[0].File, nil
}

// looksLikePath reports whether x names a file rather than a session id:
// it has a directory, a .jsonl suffix or exists.
func looksLikePath(x string) bool {
	if strings.ContainsAny(x, `/\`) || strings.HasSuffix(x, ".jsonl") {
		return true
	}
	_, err := os.Stat(x)
	return err == nil
}

func readSession(path string) (*session.File, error) {
	f, err := session.ReadFile(path)
	if err != nil {
		code := coverage.SourceUnavailable
		if errors.Is(err, fs.ErrNotExist) {
			code = coverage.SessionNotFound
		}
		return nil, &cliError{Code: code, Message: err.Error()}
	}
	return f, nil
}

type fileCoverage struct {
	Complete  bool            `json:"complete"`
	Reasons   []string        `json:"reasons"`
	Malformed []malformedLine `json:"malformed,omitempty"`
}

type malformedLine struct {
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

func coverageOf(f *session.File, s coverage.Set) fileCoverage {
	c := fileCoverage{Complete: s.Complete(), Reasons: s.Reasons()}
	for _, m := range f.Malformed {
		c.Malformed = append(c.Malformed, malformedLine{Line: m.Line, Reason: m.Reason})
	}
	return c
}

type lineageRecord struct {
	Index    int        `json:"index"`
	Line     int        `json:"line"`
	Type     *string    `json:"type"`
	ID       rawMessage `json:"id"`
	ParentID rawMessage `json:"parentId"`
}

func inspectLineage(g globals, args []string, stdout io.Writer) error {
	fl := newFlags("inspect lineage")
	branches := fl.String("branches", "active", "active or all")
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError("inspect lineage takes one SESSION (an id, an id prefix or a path)")
	}
	mode, err := lineage.ParseMode(*branches)
	if err != nil {
		return usageError("%v", err)
	}
	file, err := sessionFile(g, pos[0])
	if err != nil {
		return err
	}
	f, err := readSession(file)
	if err != nil {
		return err
	}
	sel := lineage.Select(f, mode, nil)
	var problems coverage.Set
	problems.Merge(f.Problems)
	problems.Merge(sel.Problems)
	out := &lineageReport{
		Version:             versionJSON(f),
		LeafID:              rawJSON(sel.LeafID),
		ActiveBranchIndexes: sel.Indexes,
		Branches:            sel.Branches,
		LineageFingerprint:  sel.Fingerprint,
		SourceHash:          f.SourceHash,
		Records:             make([]lineageRecord, len(f.Records)),
		Coverage:            coverageOf(f, problems),
	}
	if f.Header != nil {
		out.SessionID = &f.Header.ID
	}
	if sel.LeafIndex >= 0 {
		out.LeafIndex = &sel.LeafIndex
	}
	for i := range f.Records {
		r := &f.Records[i]
		lr := lineageRecord{Index: r.Index, Line: r.Line, ID: rawJSON(r.IDValue()), ParentID: rawJSON(r.ParentValue())}
		if r.Value.IsObject() {
			if t, ok := r.Value.Get("type").Str(); ok {
				lr.Type = &t
			}
		}
		out.Records[i] = lr
	}
	return output(g, stdout, out, func(w io.Writer) { printLineage(w, out) })
}

// lineageReport is what inspect lineage prints.
type lineageReport struct {
	Version             rawMessage      `json:"version"`
	SessionID           *string         `json:"sessionId"`
	LeafID              rawMessage      `json:"leafId"`
	LeafIndex           *int            `json:"leafIndex"`
	ActiveBranchIndexes []int           `json:"activeBranchIndexes"`
	Branches            lineage.Mode    `json:"branches"`
	LineageFingerprint  string          `json:"lineageFingerprint"`
	SourceHash          string          `json:"sourceHash"`
	Records             []lineageRecord `json:"records"`
	Coverage            fileCoverage    `json:"coverage"`
}

// versionJSON is the header's version after OMP's in-memory migration.
func versionJSON(f *session.File) rawMessage {
	if f.Header == nil {
		return rawMessage("null")
	}
	if f.Header.Version < 3 {
		return rawMessage("3")
	}
	return rawJSON(f.Header.Value.Get("version"))
}

func inspectEntries(g globals, args []string, stdout io.Writer) error {
	fl := newFlags("inspect entries")
	branches := fl.String("branches", "active", "active or all")
	thinking := fl.Bool("index-thinking", false, "include thinking blocks")
	noOutput := fl.Bool("no-index-tool-output", false, "leave tool output out")
	maxChars := fl.Int("max-entry-chars", 0, "cut each entry's text after N Unicode scalars (0: no cut)")
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError("inspect entries takes one SESSION (an id, an id prefix or a path)")
	}
	mode, err := lineage.ParseMode(*branches)
	if err != nil {
		return usageError("%v", err)
	}
	if *maxChars < 0 {
		return usageError("--max-entry-chars must be 0 or more, not %d", *maxChars)
	}
	file, err := sessionFile(g, pos[0])
	if err != nil {
		return err
	}
	f, err := readSession(file)
	if err != nil {
		return err
	}
	sel := lineage.Select(f, mode, nil)
	res := normalize.Session(f, sel, normalize.Options{
		MaxEntryChars:   *maxChars,
		IndexThinking:   *thinking,
		IndexToolOutput: !*noOutput,
	})
	out := struct {
		SessionID          string            `json:"sessionId"`
		File               string            `json:"file"`
		Branches           lineage.Mode      `json:"branches"`
		LineageFingerprint string            `json:"lineageFingerprint"`
		SourceHash         string            `json:"sourceHash"`
		EntryCount         int               `json:"entryCount"`
		Entries            []normalize.Entry `json:"entries"`
		Coverage           fileCoverage      `json:"coverage"`
	}{
		SessionID:          res.SessionID,
		File:               file,
		Branches:           sel.Branches,
		LineageFingerprint: sel.Fingerprint,
		SourceHash:         f.SourceHash,
		EntryCount:         len(res.Entries),
		Entries:            res.Entries,
		Coverage:           coverageOf(f, res.Problems),
	}
	return writeJSON(stdout, g.pretty, out)
}

func inspectTokens(g globals, args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) == 0 {
		return usageError("inspect tokens takes TEXT (or - for stdin)")
	}
	text := strings.Join(args, " ")
	if text == "-" {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return err
		}
		text = string(b)
	}
	toks := analyzer.Tokens(text)
	if toks == nil {
		toks = []string{}
	}
	return writeJSON(stdout, g.pretty, toks)
}

func inspectIndex(ctx context.Context, g globals, args []string, stdout, stderr io.Writer) error {
	fl := newFlags("inspect index")
	asJSON := fl.Bool("json", false, "JSON even on a terminal (as the global --json)")
	storage := fl.Bool("storage", false, "where the bytes of the index file go, by bucket and kind")
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usageError("inspect index takes no arguments")
	}
	if *asJSON {
		g.format = formatJSON
	}
	return answer(g, stdout, stderr, func(e *engine.Engine) (*engine.IndexReport, error) {
		if *storage {
			return e.InspectIndexStorage(ctx)
		}
		return e.InspectIndex(ctx)
	}, printIndexReport)
}

func inspectSession(ctx context.Context, g globals, args []string, stdout, stderr io.Writer) error {
	fl := newFlags("inspect session")
	asJSON := fl.Bool("json", false, "JSON even on a terminal (as the global --json)")
	branches := fl.String("branches", "active", "active or all")
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError("inspect session takes one <id-or-path>")
	}
	if *asJSON {
		g.format = formatJSON
	}
	return answer(g, stdout, stderr, func(e *engine.Engine) (*engine.SessionReport, error) {
		return e.InspectSession(ctx, pos[0], *branches)
	}, printSessionReport)
}
