package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/memidx/memidx/engine"
)

// printRecall is the short human form of a page: per hit its score,
// date, session, entry and the command that expands it.
func printRecall(w io.Writer, p *engine.RecallPage) {
	if p.Error != nil {
		fmt.Fprintf(w, "error %s: %s\n", p.Error.Code, p.Error.Message)
		return
	}
	for i, h := range p.Hits {
		if e := h.Entry; e != nil {
			role := ""
			if e.Role != nil {
				role = *e.Role
			}
			if e.Tool != nil {
				role += "/" + *e.Tool
			}
			fmt.Fprintf(w, "%2d. %6.3f  %s  %s #%d %s\n      %s\n      → memidx expand %s -n %d\n",
				i+1, e.Score, date(e.Timestamp), short(e.SessionID), e.Index, role, oneLine(e.Snippet, 160), short(e.SessionID), e.Index)
		} else if s := h.Session; s != nil {
			fmt.Fprintf(w, "%2d. %6.3f  %s  %s (cold session, %d terms)  %s\n      → memidx expand %s\n",
				i+1, s.Score, date(s.LastTimestamp), short(s.SessionID), s.MatchedTerms, project(s.Cwd), short(s.SessionID))
		}
	}
	fmt.Fprintf(w, "%d of %d hits", len(p.Hits), p.Total)
	if p.Next != nil {
		fmt.Fprint(w, "; more with --offset")
	}
	if !p.Coverage.Complete {
		fmt.Fprintf(w, "; coverage incomplete: %s", strings.Join(p.Coverage.Reasons, ", "))
	}
	fmt.Fprintln(w)
}

// printExpand is the human form of an expansion page.
func printExpand(w io.Writer, r *engine.ExpandResult) {
	if r.Error != nil {
		fmt.Fprintf(w, "error %s: %s\n", r.Error.Code, r.Error.Message)
		return
	}
	count := "?"
	if r.EntryCount != nil {
		count = fmt.Sprint(*r.EntryCount)
	}
	fmt.Fprintf(w, "%s  (%s entries, branches %s)\n", r.Session, count, r.Branches)
	for _, e := range r.Entries {
		role := e.Type
		if e.Role != nil {
			role = *e.Role
		}
		if e.Tool != nil {
			role += "/" + *e.Tool
		}
		mark := ""
		if e.Anchor != nil && *e.Anchor {
			mark = "  *"
		}
		fmt.Fprintf(w, "\n#%d %s  %s%s\n", e.Index, role, date(e.Timestamp), mark)
		text := e.Text
		if !e.TextRange.Complete {
			text += fmt.Sprintf(" [… %d..%d of %d]", e.TextRange.Start, e.TextRange.End, e.TextRange.Total)
		}
		for _, line := range strings.Split(text, "\n") {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
	if r.Next != nil {
		fmt.Fprintln(w, "\nmore: memidx call with this page's next (memidx --json expand … shows it)")
	}
}

// printSessions is the human form of a session listing.
func printSessions(w io.Writer, r *engine.SessionsResult) {
	if r.Error != nil {
		fmt.Fprintf(w, "error %s: %s\n", r.Error.Code, r.Error.Message)
		return
	}
	for _, s := range r.Sessions {
		tier, n := "-", "?"
		if s.Tier != nil {
			tier = *s.Tier
		}
		if s.EntryCount != nil {
			n = fmt.Sprint(*s.EntryCount)
		}
		fmt.Fprintf(w, "%s  %s  %-4s %5s entries  %s\n", short(s.ID), date(s.LastTimestamp), tier, n, project(s.Cwd))
	}
	fmt.Fprintf(w, "%d of %d sessions (scope %s)", len(r.Sessions), r.Total, r.Scope)
	if !r.Coverage.Complete {
		fmt.Fprintf(w, "; coverage incomplete: %s", strings.Join(r.Coverage.Reasons, ", "))
	}
	fmt.Fprintln(w)
}

// date is an epoch-ms timestamp as a local date and minute.
func date(ms *float64) string {
	if ms == nil {
		return "????-??-?? ??:??"
	}
	return time.UnixMilli(int64(*ms)).Local().Format("2006-01-02 15:04")
}

// project is the last two elements of a cwd.
func project(cwd string) string {
	if cwd == "" {
		return ""
	}
	parent, base := filepath.Split(filepath.Clean(cwd))
	if p := filepath.Base(parent); p != "" && p != "." && p != string(filepath.Separator) {
		return p + string(filepath.Separator) + base
	}
	return base
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
