package cli

import (
	"encoding/json"
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
		printError(w, p.Error)
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
			fmt.Fprintf(w, "%2d. %6.3f  %s  %s #%d %s%s\n      %s\n",
				i+1, e.Score, date(e.Timestamp), short(e.SessionID), e.Index, role, about(e.Title, e.Cwd), oneLine(e.Snippet, 160))
			if e.Context != nil {
				for _, c := range e.Context.Next {
					r := ""
					if c.Role != nil {
						r = *c.Role
					}
					fmt.Fprintf(w, "        #%d %s: %s\n", c.Index, r, oneLine(c.Snippet, 150))
				}
			}
			fmt.Fprintf(w, "      → memidx expand %s -n %d\n", short(e.SessionID), e.Index)
		} else if s := h.Session; s != nil {
			fmt.Fprintf(w, "%2d. %6.3f  %s  %s (cold session, %d terms)%s\n      → %s\n",
				i+1, s.Score, date(s.LastTimestamp), short(s.SessionID), s.MatchedTerms, about(s.Title, s.Cwd), coldCommand(s))
		}
	}
	fmt.Fprintf(w, "%d of %d hits", len(p.Hits), p.Total)
	if p.WeakMatch {
		fmt.Fprintf(w, "; weak match (%d%% of the query)", int(100**p.QueryCoverage)) // floor: 49.96% is not 50%
	}
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
		printError(w, r.Error)
		return
	}
	count := "?"
	if r.EntryCount != nil {
		count = fmt.Sprint(*r.EntryCount)
	}
	fmt.Fprintf(w, "%s  (%s entries, branches %s)\n", r.Session, count, r.Branches)
	if r.Title != "" {
		fmt.Fprintf(w, "%s\n", quoteTitle(r.Title))
	}
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
		printError(w, r.Error)
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
		fmt.Fprintf(w, "%s  %s  %-4s %5s entries%s\n", short(s.ID), date(s.LastTimestamp), tier, n, about(s.Title, s.Cwd))
	}
	fmt.Fprintf(w, "%d of %d sessions (scope %s)", len(r.Sessions), r.Total, r.Scope)
	if !r.Coverage.Complete {
		fmt.Fprintf(w, "; coverage incomplete: %s", strings.Join(r.Coverage.Reasons, ", "))
	}
	fmt.Fprintln(w)
}

// about is what a row says of its session after its numbers: its title
// and project, each when known.
func about(title, cwd string) string {
	var b strings.Builder
	if title != "" {
		b.WriteString("  " + quoteTitle(title))
	}
	if p := project(cwd); p != "" {
		b.WriteString("  " + p)
	}
	return b.String()
}

// quoteTitle is a session title on one line, quoted.
func quoteTitle(title string) string { return "“" + oneLine(title, 80) + "”" }

// coldCommand is the command that returns a cold session's entries: its
// follow, a single-session recall, as flags (the integrity bindings are
// left to the follow itself: a person reruns it).
func coldCommand(s *engine.SessionHit) string {
	var a map[string]any
	if json.Unmarshal(s.Follow.Args, &a) != nil {
		return "memidx call '" + string(s.Follow.Args) + "'"
	}
	parts := []string{"memidx recall --scope session:" + short(s.SessionID)}
	defaults := map[string]string{"queryMode": "literal", "queryMatch": "any", "branches": "active"}
	for _, f := range []struct{ key, flag string }{
		{"queryMode", "mode"}, {"queryMatch", "match"}, {"branches", "branches"},
		{"role", "role"}, {"tool", "tool"}, {"ref", "ref"}, {"provider", "provider"},
		{"action", "action"}, {"outcome", "outcome"}, {"since", "since"}, {"until", "until"},
	} {
		v, ok := a[f.key]
		if !ok || v == nil {
			continue
		}
		text := fmt.Sprint(v)
		if n, isNum := v.(float64); isNum {
			text = fmt.Sprintf("%.0f", n)
		}
		if text != defaults[f.key] {
			parts = append(parts, "--"+f.flag, shellQuote(text))
		}
	}
	if q, _ := a["query"].(string); strings.TrimSpace(q) != "" {
		parts = append(parts, "--", shellQuote(q))
	}
	return strings.Join(parts, " ")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == ':' || r == '/' || r == '@' || r == '+' || r == ',' ||
			'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// printError is the human form of an answer's error, with its hint.
func printError(w io.Writer, eo *engine.ErrorObject) {
	fmt.Fprintf(w, "error %s: %s\n", eo.Code, eo.Message)
	if eo.Hint != "" {
		fmt.Fprintf(w, "  %s\n", eo.Hint)
	}
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

// printIndexReport is the human form of inspect index: its totals.
func printIndexReport(w io.Writer, r *engine.IndexReport) {
	t := r.Totals
	fmt.Fprintf(w, "index %s\n", r.IndexDir)
	fmt.Fprintf(w, "%s: %d hot, %d cold", plural(t.Records, "record"), t.Hot, t.Cold)
	if t.Incomplete > 0 {
		fmt.Fprintf(w, ", %d incomplete", t.Incomplete)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  sources     %s\n", mb(t.SourceBytes))
	fmt.Fprintf(w, "  cache       %s  %.3f of the sources\n", mb(t.CacheBytes), t.CacheSourceRatio)
	fmt.Fprintf(w, "    hot       %s\n", mb(t.HotCacheBytes))
	fmt.Fprintf(w, "    cold      %s  %.3f of the cold sources (%s)\n", mb(t.ColdCacheBytes), t.ColdSourceRatio, mb(t.ColdSourceBytes))
	fmt.Fprintf(w, "    lexicon   %s\n", mb(t.LexiconBytes))
	fmt.Fprintf(w, "  index file  %s\n", mb(t.IndexFileBytes))
	if r.Storage != nil {
		printStorage(w, r.Storage)
	}
	if t.Records > 0 {
		fmt.Fprintln(w, "every record: memidx --json inspect index")
	}
}

// printStorage is the human form of where the index file's bytes go.
func printStorage(w io.Writer, u *engine.IndexStorage) {
	fmt.Fprintf(w, "  %-8s %8s %8s %10s %10s %10s %10s %10s\n", "bucket", "values", "buckets", "keys", "values", "checksums", "pages", "in use")
	for _, b := range u.Buckets {
		fmt.Fprintf(w, "  %-8s %8d %8d %10s %10s %10s %10s %10s\n", b.Name, b.Values, b.Buckets,
			mb(b.KeyBytes), mb(b.ValueBytes), mb(b.ChecksumBytes), mb(b.PageBytes), mb(b.InuseBytes))
	}
	var pages int64
	for _, b := range u.Buckets {
		pages += b.PageBytes
	}
	fmt.Fprintf(w, "  file used %s, of which free pages, freelist and meta %s\n", mb(u.UsedBytes), mb(u.UsedBytes-pages))
}

// printSessionReport is the human form of inspect session.
func printSessionReport(w io.Writer, r *engine.SessionReport) {
	rec := r.Record
	if rec == nil {
		fmt.Fprintf(w, "%s\nno record", r.Path)
		if !r.Coverage.Complete {
			fmt.Fprintf(w, ": %s", strings.Join(r.Coverage.Reasons, ", "))
		}
		fmt.Fprintln(w)
		return
	}
	fmt.Fprintf(w, "%s  %s  %s  branches %s  %s\n", rec.SessionID, rec.Tier, fmt.Sprintf("%d entries", rec.EntryCount), rec.Branches, project(rec.Cwd))
	fmt.Fprintf(w, "  dates     %s .. %s\n", date(rec.FirstTs), date(rec.LastTs))
	fmt.Fprintf(w, "  source    %s  hash %s  lineage %s\n", mb(r.Size), short(rec.SourceHash), short(rec.LineageFingerprint))
	fmt.Fprintf(w, "  cache     %s  %.3f of the source\n", mb(rec.CacheBytes), ratioOf(rec.CacheBytes, r.Size))
	switch {
	case r.Shard != nil:
		fmt.Fprintf(w, "  shard     %d entries, %d terms\n", r.Shard.Entries, r.Shard.Terms)
	case r.Digest != nil:
		fmt.Fprintf(w, "  digest    %d files touched, %d errors\n", len(r.Digest.FilesTouched), r.Digest.ErrorCount)
	}
	if len(rec.Reasons) == 0 {
		fmt.Fprintln(w, "  complete")
	} else {
		fmt.Fprintf(w, "  incomplete: %s\n", strings.Join(rec.Reasons, ", "))
	}
	fmt.Fprintf(w, "  %s\n", r.Path)
}

// printLineage is the human form of inspect lineage.
func printLineage(w io.Writer, r *lineageReport) {
	id := "(no session header)"
	if r.SessionID != nil {
		id = *r.SessionID
	}
	fmt.Fprintf(w, "%s  version %s  %s\n", id, r.Version, plural(len(r.Records), "record"))
	if r.LeafIndex != nil {
		fmt.Fprintf(w, "  leaf      %s at index %d\n", idText(r.LeafID), *r.LeafIndex)
	} else {
		fmt.Fprintln(w, "  leaf      none")
	}
	fmt.Fprintf(w, "  %-9s %s: %s\n", r.Branches, plural(len(r.ActiveBranchIndexes), "record"), spans(r.ActiveBranchIndexes))
	fmt.Fprintf(w, "  hash      %s  lineage %s\n", short(r.SourceHash), short(r.LineageFingerprint))
	switch {
	case r.Coverage.Complete:
		fmt.Fprintln(w, "  complete")
	default:
		fmt.Fprintf(w, "  incomplete: %s", strings.Join(r.Coverage.Reasons, ", "))
		if n := len(r.Coverage.Malformed); n > 0 {
			fmt.Fprintf(w, " (%d malformed lines)", n)
		}
		fmt.Fprintln(w)
	}
}

// spans writes ascending indexes as ranges: 0-10, 14, 16-29.
func spans(ix []int) string {
	if len(ix) == 0 {
		return "none"
	}
	var b strings.Builder
	for i := 0; i < len(ix); {
		j := i
		for j+1 < len(ix) && ix[j+1] == ix[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		if j == i {
			fmt.Fprintf(&b, "%d", ix[i])
		} else {
			fmt.Fprintf(&b, "%d-%d", ix[i], ix[j])
		}
		i = j + 1
	}
	return b.String()
}

// mb is a byte count for a reader: MB, or kB and bytes when smaller.
func mb(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1e6:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	case n < 1e9:
		return fmt.Sprintf("%.2f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.2f GB", float64(n)/1e9)
}

// plural is n and noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// idText is an id as the file spells it: a string without its quotes.
func idText(raw rawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

func ratioOf(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
