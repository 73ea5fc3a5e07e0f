package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"io/fs"
	"strings"

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
	return usageError("unknown inspect subject %q", args[0])
}

// newFlags returns a flag set that reports errors instead of exiting.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseInterleaved parses flags that may stand before or after the
// positional arguments.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, usageError("%v", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
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
		return usageError("inspect lineage takes one FILE")
	}
	mode, err := lineage.ParseMode(*branches)
	if err != nil {
		return usageError("%v", err)
	}
	f, err := readSession(pos[0])
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
		return usageError("inspect entries takes one FILE")
	}
	mode, err := lineage.ParseMode(*branches)
	if err != nil {
		return usageError("%v", err)
	}
	if *maxChars < 0 {
		return usageError("--max-entry-chars must be 0 or more, not %d", *maxChars)
	}
	f, err := readSession(pos[0])
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
		File:               pos[0],
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
	g.json = g.json || *asJSON
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
	g.json = g.json || *asJSON
	return answer(g, stdout, stderr, func(e *engine.Engine) (*engine.SessionReport, error) {
		id, err := sessionPrefix(e, pos[0])
		if err != nil {
			return nil, err
		}
		return e.InspectSession(ctx, id, *branches)
	}, printSessionReport)
}
