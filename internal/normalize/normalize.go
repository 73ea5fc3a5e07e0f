package normalize

import (
	"math"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/jsjson"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/session"
)

// Options is the privacy and size policy of a normalization. The zero value
// indexes neither thinking nor tool output and does not truncate; use
// DefaultOptions for the spec's defaults.
type Options struct {
	// MaxEntryChars cuts each entry's text after this many Unicode scalars
	// and adds max_entry_chars; 0 keeps the whole text.
	MaxEntryChars int
	// IndexThinking includes assistant thinking blocks in the text.
	IndexThinking bool
	// IndexToolOutput includes tool-result bodies, bash output and Fabric
	// operation results in the text.
	IndexToolOutput bool
	// FullToolArgs writes tool-call arguments whole in the text. Without
	// it the text shows the reference's display, cut after MaxArgsChars
	// scalars and marked "…", and the rest goes to Entry.ArgsCuts (indexed,
	// not shown).
	FullToolArgs bool
	// Scratch, when set, is memory Session reuses: the Result it returns
	// is valid only until the next Session with the same Scratch.
	Scratch *Scratch
}

// DefaultOptions are the spec's defaults: maxEntryChars 2000, no thinking,
// tool output included.
func DefaultOptions() Options {
	return Options{MaxEntryChars: 2000, IndexToolOutput: true}
}

// Lossless is the policy of expansion: every byte of text, thinking, tool
// output and tool-call arguments included, nothing cut, so that expansion's
// textRange is truthful.
func Lossless() Options {
	return Options{IndexThinking: true, IndexToolOutput: true, FullToolArgs: true}
}

// Result is the normalized form of one selection of a session file.
type Result struct {
	SessionID string
	Entries   []Entry
	// Problems merges the file's and the selection's problems with
	// normalization's own (truncation, duplicate addresses).
	Problems coverage.Set
}

// MaxArgsChars bounds the serialized arguments of a tool call in the text,
// in Unicode scalars, as the reference does (unless FullToolArgs).
const MaxArgsChars = 400

// Session normalizes the records of f that sel selects.
func Session(f *session.File, sel *lineage.Selection, opt Options) *Result {
	res := &Result{}
	var text *textArena
	if s := opt.Scratch; s != nil {
		res.Entries, text = s.take(len(sel.Indexes)), &s.text
		defer func() { s.give(res.Entries) }()
	} else {
		res.Entries = make([]Entry, 0, len(sel.Indexes))
	}
	if f.Header != nil {
		res.SessionID = f.Header.ID
	}
	res.Problems.Merge(f.Problems)
	res.Problems.Merge(sel.Problems)
	n := normalizer{f: f, opt: opt, res: res, hookIsCustom: f.LegacyHookMessages(), text: text}
	n.pairToolCalls(sel.Indexes)
	for _, idx := range sel.Indexes {
		n.record(&f.Records[idx])
	}
	n.checkDuplicates()
	if opt.MaxEntryChars > 0 {
		for i := range res.Entries {
			if res.Entries[i].Bound(opt.MaxEntryChars) {
				res.Problems.Add(coverage.MaxEntryChars)
			}
		}
	}
	return res
}

type normalizer struct {
	f            *session.File
	opt          Options
	res          *Result
	hookIsCustom bool
	// calls maps a toolCallId to the files its call touched, so that the
	// result of the call carries them too.
	calls map[string][]string
	// facts dedups branch-summary facts across the session by address.
	facts map[string]bool
	// buf is stringifyArgs's encoding buffer.
	buf []byte
	// text holds the texts of tool results and assistant messages (nil:
	// each its own memory).
	text *textArena
	// allocs holds the entries' small fields.
	allocs
}

// pairToolCalls records the paths each tool call touches, keyed by call id.
func (n *normalizer) pairToolCalls(indexes []int) {
	for _, idx := range indexes {
		r := &n.f.Records[idx]
		if r.Type != "message" {
			continue
		}
		msg := r.Value.Get("message")
		if msg.Get("role").StrOr("") != "assistant" {
			continue
		}
		eachToolCallFiles(msg, func(id string, files []string) {
			if n.calls == nil {
				n.calls = make(map[string][]string)
			}
			n.calls[id] = files
		})
	}
}

// eachToolCallFiles calls fn with the id and the touched paths (copies) of
// every tool call of an assistant message that has an id and touches any.
func eachToolCallFiles(msg jsjson.Value, fn func(id string, files []string)) {
	for _, b := range msg.Get("content").Items() {
		if b.Value.Get("type").StrOr("") != "toolCall" {
			continue
		}
		id := b.Value.Get("id").StrOr("")
		if id == "" {
			continue
		}
		if files := filesFromArgs(b.Value.Get("arguments"), nil); len(files) > 0 {
			fn(id, files)
		}
	}
}

func (n *normalizer) emit(e Entry) *Entry {
	e.Index = len(n.res.Entries)
	n.res.Entries = append(n.res.Entries, e)
	return &n.res.Entries[len(n.res.Entries)-1]
}

func (n *normalizer) record(r *session.Record) {
	v := r.Value
	if !v.IsObject() {
		return
	}
	base := Entry{
		Record:    r.Index,
		Line:      r.Line,
		Type:      r.Type,
		EntryID:   n.stringField(v.Get("id")),
		ParentID:  n.stringField(v.Get("parentId")),
		Timestamp: n.timestampOf(v.Get("timestamp")),
	}
	if r.ID.Synthetic() {
		base.EntryID, base.ParentID = nil, nil
	}
	switch r.Type {
	case "message":
		msg := v.Get("message")
		if base.Timestamp == nil {
			base.Timestamp = n.timestampOf(msg.Get("timestamp"))
		}
		n.message(base, msg)
	case "compaction":
		base.Role = n.share(RoleCompaction)
		base.Text = "compaction: " + v.Get("summary").StrOr("")
		n.emit(base)
	case "branch_summary":
		// Branch-summary prose is never indexed; its typed facts are.
		base.Role = n.share(RoleBranchSummary)
		carrier := n.emit(base)
		n.branchFacts(*carrier, v, v.Get("fromId"))
	case "custom_message":
		base.Role = n.share(RoleCustom)
		base.Text = customText(v.Get("customType").StrOr(""), contentText(v.Get("content")))
		n.emit(base)
	}
}

func (n *normalizer) message(base Entry, msg jsjson.Value) {
	role := msg.Get("role").StrOr("")
	if role == "hookMessage" && n.hookIsCustom {
		role = RoleCustom
	}
	base.Role = n.optShare(role)
	var text string
	switch role {
	case "user", "developer":
		text = contentText(msg.Get("content"))
	case "assistant":
		text = n.assistant(&base, msg)
	case "toolResult":
		text = n.toolResult(&base, msg)
	case "bashExecution":
		text = n.execution(&base, msg, "bash", msg.Get("command"))
	case "pythonExecution":
		text = n.execution(&base, msg, "python", msg.Get("code"))
	case "custom", "hookMessage":
		text = customText(msg.Get("customType").StrOr(""), contentText(msg.Get("content")))
	case "compactionSummary":
		text = "compaction: " + msg.Get("summary").StrOr("")
	case "branchSummary":
		text = ""
	case "fileMention":
		text = n.fileMention(&base, msg)
	}
	if base.Role == nil && strings.TrimSpace(text) == "" {
		return
	}
	base.Text = text
	carrier := n.emit(base)
	switch role {
	case "toolResult":
		if carrier.Tool != nil && *carrier.Tool == "fabric_exec" {
			n.executionTrace(*carrier, msg.Get("details"))
		}
	case "branchSummary":
		n.branchFacts(*carrier, msg, msg.Get("fromId"))
	}
}

// nativeTool gives a native OMP tool call or result its structural
// identity: provider omp, action the tool name, ref omp.<tool>. The
// pointers are shared by every entry of the same tool.
func (n *normalizer) nativeTool(e *Entry, tool string) {
	if tool == "" {
		return
	}
	t := n.tool(tool)
	e.Tool = t.name
	e.Provider = &providerOMP
	e.Action = t.name
	e.Ref = t.ref
}

func (n *normalizer) assistant(e *Entry, msg jsjson.Value) string {
	// The text is decoded straight into b, which the returned string then
	// owns.
	b := n.text.start(assistantHint)
	var files []string
	first := true
	sep := func() {
		if !first {
			b = append(b, '\n')
		}
		first = false
	}
	for _, blk := range msg.Get("content").Items() {
		bv := blk.Value
		switch bv.Get("type").StrOr("") {
		case "text":
			sep()
			b = bv.Get("text").AppendStr(b)
		case "thinking":
			if n.opt.IndexThinking {
				sep()
				b = bv.Get("thinking").AppendStr(b)
			}
		case "toolCall":
			name := bv.Get("name").StrOr("")
			sep()
			b = append(b, "Tool: "...)
			b = append(b, name...)
			b = append(b, '(')
			b = n.writeArgs(b, e, n.stringifyArgs(bv.Get("arguments")))
			b = append(b, ')')
			if e.Tool == nil {
				n.nativeTool(e, name)
				if name == "" {
					e.Tool = n.ptr("")
				}
			}
			e.Tools = append(e.Tools, name)
			files = filesFromArgs(bv.Get("arguments"), files)
		}
	}
	if em := msg.Get("errorMessage").StrOr(""); em != "" {
		sep()
		b = append(b, "Error: "...)
		b = append(b, em...)
	}
	if len(e.Tools) < 2 {
		e.Tools = nil
	}
	if e.Tool != nil && *e.Tool == "" {
		e.Tool = nil
	}
	e.FilesTouched = files
	sr := msg.Get("stopReason").StrOr("")
	e.IsError = msg.Get("isError").Truthy() || sr == "error" || msg.Get("errorMessage").StrOr("") != ""
	return n.text.keep(b)
}

// assistantHint is the room an assistant message's text starts with in
// the text arena; a longer one moves to memory of its own as it grows.
const assistantHint = 512

func (n *normalizer) toolResult(e *Entry, msg jsjson.Value) string {
	tool := msg.Get("toolName").StrOr("")
	n.nativeTool(e, tool)
	e.ToolCallID = n.optCopy(msg.Get("toolCallId").StrOr(""))
	if e.ToolCallID != nil {
		e.FilesTouched = append([]string(nil), n.calls[*e.ToolCallID]...)
	}
	details := msg.Get("details")
	isErr := msg.Get("isError").Kind() == jsjson.True
	exit, hasExit := exitCode(details.Get("exitCode"))
	timedOut := details.Get("timedOut").Kind() == jsjson.True
	e.IsError = msg.Get("isError").Truthy() || (hasExit && exit != 0) || timedOut
	if tool != "" {
		switch {
		case timedOut:
			e.Outcome = outcome(TimedOut)
		case e.IsError:
			e.Outcome = outcome(Failed)
		default:
			e.Outcome = outcome(Succeeded)
		}
	}
	if !n.opt.IndexToolOutput {
		b := appendToolResultPrefix(nil, tool, isErr)
		return unsafe.String(&b[0], len(b))
	}
	// prefix + ": " + contentText(content), decoded straight into the
	// text: tool output is most of a session's bytes.
	c := msg.Get("content")
	b := n.text.start(len(tool) + len("toolResult() [error]: ") + contentSizeHint(c))
	b = appendToolResultPrefix(b, tool, isErr)
	prefix := len(b)
	b = append(b, ": "...)
	head := len(b)
	b = appendContentText(b, c)
	if len(b) == head {
		b = b[:prefix]
	}
	return n.text.keep(b)
}

// appendToolResultPrefix appends a tool result's prefix to b:
// "toolResult", the tool in parentheses if any, " [error]" if isErr.
func appendToolResultPrefix(b []byte, tool string, isErr bool) []byte {
	b = append(b, "toolResult"...)
	if tool != "" {
		b = append(b, '(')
		b = append(b, tool...)
		b = append(b, ')')
	}
	if isErr {
		b = append(b, " [error]"...)
	}
	return b
}

// appendContentText appends contentText(c) to b.
func appendContentText(b []byte, c jsjson.Value) []byte {
	if c.Kind() == jsjson.String {
		return c.AppendStr(b)
	}
	first := true
	for _, p := range c.Items() {
		if p.Value.Get("type").StrIs("text") {
			if !first {
				b = append(b, '\n')
			}
			first = false
			b = p.Value.Get("text").AppendStr(b)
		}
	}
	return b
}

// contentSizeHint is about the byte length of contentText(c).
func contentSizeHint(c jsjson.Value) int {
	if c.Kind() == jsjson.String {
		return c.SizeHint()
	}
	n := 0
	for _, p := range c.Items() {
		n += p.Value.Get("text").SizeHint() + 1
	}
	return n
}

// execution handles the user's ! and $ commands (bashExecution,
// pythonExecution): the command is always indexed, the output only with
// IndexToolOutput.
func (n *normalizer) execution(e *Entry, msg jsjson.Value, tool string, code jsjson.Value) string {
	n.nativeTool(e, tool)
	exit, hasExit := exitCode(msg.Get("exitCode"))
	cancelled := msg.Get("cancelled").Kind() == jsjson.True
	e.IsError = hasExit && exit != 0
	switch {
	case cancelled:
		e.Outcome = outcome(Aborted)
	case hasExit && exit != 0:
		e.Outcome = outcome(Failed)
	case hasExit:
		e.Outcome = outcome(Succeeded)
	}
	var b strings.Builder
	b.WriteString(tool)
	b.WriteString("$ ")
	b.WriteString(code.StrOr(""))
	if ec := msg.Get("exitCode"); ec.Kind() == jsjson.Number {
		f, _ := ec.Float()
		b.WriteString(" [exit ")
		b.WriteString(jsjson.FormatNumber(f))
		b.WriteByte(']')
	}
	if out := msg.Get("output").StrOr(""); n.opt.IndexToolOutput && out != "" {
		b.WriteByte('\n')
		b.WriteString(out)
	}
	return b.String()
}

// fileMention indexes the mentioned paths, and the injected file contents
// as tool output.
func (n *normalizer) fileMention(e *Entry, msg jsjson.Value) string {
	var b strings.Builder
	for i, f := range msg.Get("files").Items() {
		p := f.Value.Get("path").StrOr("")
		if p != "" {
			e.FilesTouched = appendUnique(e.FilesTouched, strings.TrimSpace(p))
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("file: ")
		b.WriteString(p)
		if c := f.Value.Get("content").StrOr(""); n.opt.IndexToolOutput && c != "" {
			b.WriteByte('\n')
			b.WriteString(c)
		}
	}
	return b.String()
}

func exitCode(v jsjson.Value) (float64, bool) {
	f, ok := v.Float()
	if !ok || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// contentText is a string content, or the text parts of a content array
// joined with newlines.
func contentText(c jsjson.Value) string {
	if s, ok := c.Str(); ok {
		return s
	}
	var parts []string
	for _, p := range c.Items() {
		if p.Value.Get("type").StrOr("") == "text" {
			parts = append(parts, p.Value.Get("text").StrOr(""))
		}
	}
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts, "\n")
}

func customText(customType, body string) string {
	if customType == "" {
		return body
	}
	return "[" + customType + "] " + body
}

// stringifyArgs is JSON.stringify(arguments), whole: the display cut is
// writeArgs's. It encodes into one reused buffer: arguments can be large
// (a write carries a whole file), and growing a fresh slice for each call
// copied them over and over. The result is a view of that buffer, valid
// until the next call: writeArgs copies it into the text (and the cut rest
// into a string of its own), so the arguments are no longer copied into a
// string first.
func (n *normalizer) stringifyArgs(args jsjson.Value) string {
	if !args.Exists() {
		return "undefined"
	}
	n.buf = jsjson.AppendValue(n.buf[:0], args)
	if len(n.buf) == 0 {
		return ""
	}
	return unsafe.String(&n.buf[0], len(n.buf))
}

// writeArgs writes the text form of a tool call's arguments to b, the
// builder of e's text: whole under FullToolArgs; otherwise the reference's
// display, cut after MaxArgsChars scalars and marked "…", with the rest
// kept in e.ArgsCuts at the cut so that search still sees it. args may be
// stringifyArgs's view of a reused buffer: nothing keeps it but a copy.
func (n *normalizer) writeArgs(b []byte, e *Entry, args string) []byte {
	if !n.opt.FullToolArgs {
		if shown, ok := TruncateScalars(args, MaxArgsChars); ok {
			b = append(b, shown...)
			e.ArgsCuts = append(e.ArgsCuts, ArgsCut{At: len(b), Rest: strings.Clone(args[len(shown):])})
			return append(b, "…"...)
		}
	}
	return append(b, args...)
}

// writeArgsTo is writeArgs onto a strings.Builder.
func (n *normalizer) writeArgsTo(b *strings.Builder, e *Entry, args string) {
	cuts := len(e.ArgsCuts)
	out := n.writeArgs(nil, e, args)
	for i := cuts; i < len(e.ArgsCuts); i++ {
		e.ArgsCuts[i].At += b.Len()
	}
	b.Write(out)
}

// TruncateScalars cuts s after max Unicode scalars. ok is false when s is
// not longer than that.
func TruncateScalars(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	if max > 0 && asciiPrefix(s, max) {
		// Each of the first max bytes is a scalar: the cut is at max.
		// Tool-call arguments, cut at every read, are mostly ASCII.
		return s[:max], true
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i], true
		}
		n++
	}
	return s, false
}

// asciiPrefix reports whether s[:n] is all ASCII, eight bytes at a time;
// len(s) >= n.
func asciiPrefix(s string, n int) bool {
	i := 0
	for ; i+8 <= n; i += 8 {
		w := s[i : i+8]
		if (w[0]|w[1]|w[2]|w[3]|w[4]|w[5]|w[6]|w[7])&0x80 != 0 {
			return false
		}
	}
	for ; i < n; i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// CountScalars returns the number of Unicode scalars of s.
func CountScalars(s string) int { return utf8.RuneCountInString(s) }

// stringField is a copy of v's text when v is a string, else nil.
func stringField(v jsjson.Value) *string {
	s, ok := v.Str()
	if !ok {
		return nil
	}
	return str(strings.Clone(s))
}

// stringField is the function stringField with the normalizer's chunks.
func (n *normalizer) stringField(v jsjson.Value) *string {
	s, ok := v.Str()
	if !ok {
		return nil
	}
	return n.copyPtr(s)
}

// timestampOf returns epoch milliseconds of a finite number or a date
// string JavaScript's Date.parse accepts in ISO form.
func (n *normalizer) timestampOf(v jsjson.Value) *float64 {
	switch v.Kind() {
	case jsjson.Number:
		f, _ := v.Float()
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil
		}
		return n.float(f)
	case jsjson.String:
		s, _ := v.Str()
		if ms, ok := ParseDate(s); ok {
			return n.float(ms)
		}
	}
	return nil
}

var dateLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
	"2006-01-02",
	"2006-01",
	"2006",
}

// ParseDate parses the ISO 8601 forms of Date.parse into epoch
// milliseconds. Forms without an offset are read as UTC (JavaScript reads
// date-times without an offset as local time; OMP always writes "Z").
func ParseDate(s string) (float64, bool) {
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return float64(t.UnixMilli()), true
		}
	}
	return 0, false
}

// filesFromArgs collects the string values under keys that end in "file"
// or "path" (optionally plural), case-insensitively, walking the arguments
// recursively; array items inherit their array's key. Values are trimmed and
// deduplicated, first occurrence first.
func filesFromArgs(v jsjson.Value, out []string) []string {
	var walk func(v jsjson.Value, pathKey bool, depth int)
	walk = func(v jsjson.Value, pathKey bool, depth int) {
		if depth > 64 {
			return
		}
		switch v.Kind() {
		case jsjson.String:
			if pathKey {
				if s := strings.TrimSpace(v.StrOr("")); s != "" {
					out = appendUnique(out, s)
				}
			}
		case jsjson.Array:
			for _, it := range v.Items() {
				walk(it.Value, pathKey, depth+1)
			}
		case jsjson.Object:
			for _, m := range v.Members() {
				walk(m.Value, isPathKey(m.Key), depth+1)
			}
		}
	}
	walk(v, false, 0)
	return out
}

func isPathKey(k string) bool {
	if isASCIIKey(k) {
		// The common case, without ToLower's copy of a key like
		// "filePath": only the last five bytes matter.
		k = k[max(0, len(k)-5):]
		b := []byte{0, 0, 0, 0, 0}[:len(k)]
		for i := range len(k) {
			c := k[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b[i] = c
		}
		t := strings.TrimSuffix(string(b), "s")
		return strings.HasSuffix(t, "file") || strings.HasSuffix(t, "path")
	}
	k = strings.ToLower(k)
	k = strings.TrimSuffix(k, "s")
	return strings.HasSuffix(k, "file") || strings.HasSuffix(k, "path")
}

// isASCIIKey reports whether k is all ASCII.
func isASCIIKey(k string) bool {
	for i := 0; i < len(k); i++ {
		if k[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, strings.Clone(s))
}

func (n *normalizer) checkDuplicates() {
	ids := make(map[string]bool, len(n.res.Entries))
	addrs := make(map[string]bool)
	for i := range n.res.Entries {
		e := &n.res.Entries[i]
		if e.EntryID != nil {
			if ids[*e.EntryID] {
				n.res.Problems.Add(coverage.DuplicateEntryID)
			}
			ids[*e.EntryID] = true
		}
		if e.OperationAddress != nil {
			if addrs[*e.OperationAddress] {
				n.res.Problems.Add(coverage.DuplicateOperationAddress)
			}
			addrs[*e.OperationAddress] = true
		}
	}
}
