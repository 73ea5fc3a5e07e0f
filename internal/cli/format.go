package cli

import (
	"bytes"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/coverage"
)

// The values of the global --format and --color.
const (
	formatText = "text"
	formatJSON = "json"

	colorAuto   = "auto"
	colorAlways = "always"
	colorNever  = "never"
)

// humanOutput reports whether w gets the human form: --format text, or a
// terminal unless --format json (--json) or --pretty asked for JSON.
func humanOutput(g globals, w io.Writer) bool {
	switch g.format {
	case formatJSON:
		return false
	case formatText:
		return true
	}
	return !g.pretty && g.terminal(w)
}

// colorOn reports whether the human form written to w is coloured:
// --color always, or (auto) w is a terminal, NO_COLOR is unset or empty
// and TERM is not dumb, as https://no-color.org asks.
func colorOn(g globals, w io.Writer) bool {
	switch g.color {
	case colorAlways:
		return true
	case colorNever:
		return false
	}
	return g.terminal(w) && g.getenv("NO_COLOR") == "" && g.getenv("TERM") != "dumb"
}

// SGR sequences of the coloured human form.
const (
	sgrReset  = "\x1b[0m"
	sgrBold   = "\x1b[1m"
	sgrMatch  = "\x1b[1;31m" // as grep and rg mark a match
	sgrFollow = "\x1b[36m"
	sgrError  = "\x1b[31m"
)

var (
	// hitHeader is compiled when first colouring: a process compiles no
	// pattern at start (every one-shot command starts a process).
	hitHeader   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\s*\d+\.\s+[0-9.]+|#\d+ \S+)`) })
	followArrow = "→ "
)

// colorize styles a human form line by line: a hit's rank and score and
// an entry's header bold, the follow command cyan, an error red, and the
// query's matches (match, when set) bold red elsewhere.
func colorize(text []byte, match *regexp.Regexp) []byte {
	lines := strings.SplitAfter(string(text), "\n")
	var b strings.Builder
	for _, line := range lines {
		body, nl := strings.CutSuffix(line, "\n")
		switch {
		case strings.HasPrefix(body, "error "):
			body = sgrError + body + sgrReset
		case strings.Contains(body, followArrow):
			i := strings.Index(body, followArrow)
			body = body[:i] + sgrFollow + body[i:] + sgrReset
		case hitHeader().MatchString(body):
			loc := hitHeader().FindStringIndex(body)
			body = sgrBold + body[:loc[1]] + sgrReset + body[loc[1]:]
		case match != nil:
			body = match.ReplaceAllStringFunc(body, func(m string) string { return sgrMatch + m + sgrReset })
		}
		b.WriteString(body)
		if nl {
			b.WriteByte('\n')
		}
	}
	return []byte(b.String())
}

// writeHuman writes a human form to w, coloured when colorOn says so.
func writeHuman(g globals, w io.Writer, human func(io.Writer)) {
	if !colorOn(g, w) {
		human(w)
		return
	}
	var buf bytes.Buffer
	human(&buf)
	w.Write(colorize(buf.Bytes(), g.highlight))
}

// queryMatcher is what the coloured human form marks in snippets: the
// pattern of a regex query, the words of any other, case-insensitively
// (a natural query's stems match the words' starts). nil for none.
func queryMatcher(query string, mode engine.QueryMode) *regexp.Regexp {
	if mode == engine.ModeRegex {
		re, err := regexp.Compile(query)
		if err != nil {
			return nil
		}
		return re
	}
	var alts []string
	for _, w := range strings.FieldsFunc(query, func(r rune) bool { return !isWordRune(r) }) {
		if len([]rune(w)) >= 2 {
			alts = append(alts, regexp.QuoteMeta(w))
		}
	}
	if len(alts) == 0 {
		return nil
	}
	return regexp.MustCompile(`(?i)(` + strings.Join(alts, "|") + `)`)
}

func isWordRune(r rune) bool {
	return r == '_' || r == '-' || r == '.' || r == '/' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127
}

// Notices and coverage reasons that describe normal operation: true on
// every call at a shell, so the human form shows them only with --verbose
// (JSON always carries them).
//
//   - the default scope at a shell (no live session: the project);
//   - entries cut at maxEntryChars (the bound doing its job).
var routineReasons = []string{coverage.MaxEntryChars}

// routineNotice reports whether n is the notice of the default scope at
// a shell.
func routineNotice(n engine.Notice) bool {
	return n.Key == "scope" && strings.HasPrefix(n.Message, "no live session")
}

// humanNotices writes the notices the human form shows: the routine ones
// only with --verbose.
func humanNotices(g globals, w io.Writer, notices []engine.Notice) {
	if !g.verbose {
		notices = slices.DeleteFunc(slices.Clone(notices), routineNotice)
	}
	showNotices(w, notices)
}

// humanCoverage is c as the human form tells it: without the routine
// reasons unless --verbose, and complete when only they made it not.
func humanCoverage(g globals, c engine.Coverage) engine.Coverage {
	if g.verbose || !slices.ContainsFunc(c.Reasons, isRoutineReason) {
		return c
	}
	c.Reasons = slices.DeleteFunc(slices.Clone(c.Reasons), isRoutineReason)
	if len(c.Reasons) == 0 && c.StaleSessions == 0 {
		c.Complete = true
	}
	return c
}

func isRoutineReason(r string) bool { return slices.Contains(routineReasons, r) }

// humanPage is a page as the human form tells it (humanCoverage).
func humanPage(g globals, p *engine.RecallPage) *engine.RecallPage {
	c := *p
	c.Coverage = humanCoverage(g, p.Coverage)
	return &c
}

// humanSessions is a listing as the human form tells it (humanCoverage).
func humanSessions(g globals, r *engine.SessionsResult) *engine.SessionsResult {
	c := *r
	c.Coverage = humanCoverage(g, r.Coverage)
	return &c
}
