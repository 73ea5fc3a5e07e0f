package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// The text content is read from the wire JSON, not from engine's Go
// types: what a model reads is what the structured content says.

type wireError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type wireCoverage struct {
	Complete bool       `json:"complete"`
	Reasons  []string   `json:"reasons"`
	Error    *wireError `json:"error"`
}

type wireHit struct {
	Kind          string          `json:"kind"`
	SessionID     string          `json:"sessionId"`
	Index         int             `json:"index"`
	Role          *string         `json:"role"`
	Tool          *string         `json:"tool"`
	Outcome       string          `json:"outcome"`
	Timestamp     *float64        `json:"timestamp"`
	LastTimestamp *float64        `json:"lastTimestamp"`
	Cwd           string          `json:"cwd"`
	MatchedTerms  int             `json:"matchedTerms"`
	Snippet       string          `json:"snippet"`
	Truncated     bool            `json:"truncated"`
	Follow        json.RawMessage `json:"follow"`
}

type wireEntry struct {
	Index     int      `json:"index"`
	Role      *string  `json:"role"`
	Type      string   `json:"type"`
	Tool      *string  `json:"tool"`
	Outcome   *string  `json:"outcome"`
	Timestamp *float64 `json:"timestamp"`
	Text      string   `json:"text"`
	TextRange struct {
		Start, End, Total int
		Complete          bool
	} `json:"textRange"`
}

type wireSession struct {
	ID            string   `json:"id"`
	File          string   `json:"file"`
	Cwd           string   `json:"cwd"`
	EntryCount    *int     `json:"entryCount"`
	Tier          *string  `json:"tier"`
	LastTimestamp *float64 `json:"lastTimestamp"`
}

// wireResult is any memory result, as far as the text tells it.
type wireResult struct {
	Total      int             `json:"total"`
	Hits       []wireHit       `json:"hits"`
	Session    string          `json:"session"`
	EntryCount *int            `json:"entryCount"`
	Entries    []wireEntry     `json:"entries"`
	Sessions   []wireSession   `json:"sessions"`
	Next       json.RawMessage `json:"next"`
	Coverage   *wireCoverage   `json:"coverage"`
	Error      *wireError      `json:"error"`
}

// render is the text a model reads for a result.
func render(ref string, body []byte) string {
	var r wireResult
	if err := json.Unmarshal(body, &r); err != nil {
		return string(body)
	}
	var b strings.Builder
	if r.Error != nil {
		fmt.Fprintf(&b, "error %s: %s\n", r.Error.Code, r.Error.Message)
	} else if r.Coverage != nil && r.Coverage.Error != nil {
		fmt.Fprintf(&b, "error %s: %s\n", r.Coverage.Error.Code, r.Coverage.Error.Message)
	}
	switch ref {
	case "memory.recall":
		renderHits(&b, r)
	case "memory.expand", "memory.walk":
		renderEntries(&b, r, true)
	case "memory.sessions":
		renderSessions(&b, r)
	}
	renderNext(&b, r.Next)
	return strings.TrimRight(b.String(), "\n")
}

// summary is the text of a result too large to repeat its entries' text.
func summary(ref string, body []byte) string {
	var r wireResult
	if err := json.Unmarshal(body, &r); err != nil {
		return "the result is in structuredContent"
	}
	var b strings.Builder
	b.WriteString("(the entries' text is too large to repeat here: read it in structuredContent)\n")
	if ref == "memory.expand" || ref == "memory.walk" {
		renderEntries(&b, r, false)
	}
	renderNext(&b, r.Next)
	return strings.TrimRight(b.String(), "\n")
}

func renderCoverage(b *strings.Builder, c *wireCoverage) {
	if c == nil {
		return
	}
	if c.Complete {
		b.WriteString("coverage: complete\n")
		return
	}
	fmt.Fprintf(b, "coverage: INCOMPLETE (%s): an empty or short answer is not proof of absence\n", strings.Join(c.Reasons, ", "))
}

func renderHits(b *strings.Builder, r wireResult) {
	fmt.Fprintf(b, "%d hits, %d on this page\n", r.Total, len(r.Hits))
	renderCoverage(b, r.Coverage)
	for i, h := range r.Hits {
		if h.Kind == "session" {
			fmt.Fprintf(b, "\n[%d] session %s (cold: not searched entry by entry) cwd %s, last %s, %d query terms\n",
				i+1, h.SessionID, h.Cwd, when(h.LastTimestamp), h.MatchedTerms)
		} else {
			fmt.Fprintf(b, "\n[%d] session %s #%d %s %s\n", i+1, h.SessionID, h.Index, who(h.Role, h.Tool, h.Outcome), when(h.Timestamp))
			b.WriteString(indent(h.Snippet))
			if h.Truncated {
				b.WriteString(" …")
			}
			b.WriteByte('\n')
		}
		fmt.Fprintf(b, "    follow: %s\n", h.Follow)
	}
	if len(r.Hits) > 0 {
		b.WriteString("\nPass a follow to memory_call to read that entry whole (or search that session).\n")
	}
}

func renderEntries(b *strings.Builder, r wireResult, withText bool) {
	if r.Session != "" {
		fmt.Fprintf(b, "session %s", r.Session)
		if r.EntryCount != nil {
			fmt.Fprintf(b, " (%d entries)", *r.EntryCount)
		}
		fmt.Fprintf(b, ", %d on this page\n", len(r.Entries))
	}
	for _, e := range r.Entries {
		out := ""
		if e.Outcome != nil {
			out = *e.Outcome
		}
		fmt.Fprintf(b, "\n--- #%d %s %s", e.Index, who(e.Role, e.Tool, out), when(e.Timestamp))
		if tr := e.TextRange; !tr.Complete || tr.Start > 0 {
			fmt.Fprintf(b, " [characters %d-%d of %d]", tr.Start, tr.End, tr.Total)
		}
		b.WriteByte('\n')
		if withText {
			b.WriteString(e.Text)
			b.WriteByte('\n')
		}
	}
}

func renderSessions(b *strings.Builder, r wireResult) {
	fmt.Fprintf(b, "%d sessions, %d on this page\n", r.Total, len(r.Sessions))
	renderCoverage(b, r.Coverage)
	for _, s := range r.Sessions {
		n := "?"
		if s.EntryCount != nil {
			n = fmt.Sprint(*s.EntryCount)
		}
		tier := ""
		if s.Tier != nil {
			tier = *s.Tier
		}
		fmt.Fprintf(b, "- %s  %s entries, %s, last %s, cwd %s\n", s.ID, n, tier, when(s.LastTimestamp), s.Cwd)
	}
}

func renderNext(b *strings.Builder, next json.RawMessage) {
	if len(next) == 0 || string(next) == "null" {
		return
	}
	fmt.Fprintf(b, "\nnext: %s\nPass next unchanged to memory_call for the rest.\n", next)
}

func who(role, tool *string, outcome string) string {
	parts := []string{}
	if role != nil {
		parts = append(parts, *role)
	}
	if tool != nil {
		parts = append(parts, *tool)
	}
	if outcome != "" {
		parts = append(parts, outcome)
	}
	return strings.Join(parts, " ")
}

func when(ms *float64) string {
	if ms == nil {
		return ""
	}
	return time.UnixMilli(int64(*ms)).UTC().Format(time.RFC3339)
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}
