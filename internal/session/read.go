package session

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/jsjson"
	"github.com/memidx/memidx/internal/session/confine"
)

// TitleSlot is the fixed-width first line OMP 16.2.3 and later write.
type TitleSlot struct {
	Title     string
	Source    string // "auto", "user" or ""
	UpdatedAt string
}

// Header is the session line: the first parsed value of the file.
type Header struct {
	ID            string
	Cwd           string
	Timestamp     string
	ParentSession string
	// Title is the logical title: the slot's when a valid slot is present
	// (an empty slot title means none), else the header's own.
	Title string
	// Version is the header's version as OMP compares it (JavaScript
	// numeric coercion); 1 when missing or null, NaN when not numeric.
	Version float64
	Value   jsjson.Value
}

// Malformed is a dropped line.
type Malformed struct {
	Line   int
	Offset int64
	Reason string // coverage.MalformedLine, TornTail or NullRecord
}

// File is a session file as the OMP host reads it.
type File struct {
	Path string
	Size int64
	// SourceHash is the SHA-256 hex of every byte of the file.
	SourceHash string
	BOM        bool
	Title      *TitleSlot
	// Header is nil when the first value is not a session header; the file
	// is then one OMP refuses to open, and Records holds every value.
	Header *Header
	// Records are the parsed values after the header, in file order.
	Records []Record
	// Malformed lists the lines (or tails) that were dropped.
	Malformed []Malformed
	// Problems names everything that makes this file's text less than
	// fully readable or that OMP would refuse.
	Problems coverage.Set
	// Empty is true for a file with no value and no malformed line: OMP
	// would start a fresh session there.
	Empty bool
	// Migrated is true when a v1 or v2 file was brought to v3 in memory.
	Migrated bool

	stream bool
}

// ErrNotRegular is returned for a path that is not a regular file.
var ErrNotRegular = errors.New("session: not a regular file")

// MaxFileBytes bounds what ReadFile loads into memory. OMP cuts every string
// at 500,000 UTF-16 units, so real sessions are far below it.
const MaxFileBytes = 4 << 30

// ReadFile reads and parses the session file at path. It never writes to
// it. An unreadable file is an error; a file that is not a valid session is
// a File with Problems.
func ReadFile(path string) (*File, error) {
	f, st, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > MaxFileBytes {
		return nil, fmt.Errorf("session: %s is %d bytes, over the %d-byte limit", path, st.Size(), int64(MaxFileBytes))
	}
	data, err := AppendAll(f, make([]byte, 0, st.Size()+512))
	if err != nil {
		return nil, err
	}
	return Parse(path, data), nil
}

// OpenRegular opens path read-only and returns it with its file info, or
// ErrNotRegular for anything but a regular file. It never blocks on a FIFO
// or device put in a session's place. A path under a session root that
// this process listed or resolved files in is opened relative to that
// root and never leaves the roots, whatever is swapped on the way since
// the listing (ErrOutsideRoots).
func OpenRegular(path string) (*os.File, os.FileInfo, error) {
	return OpenRegularHeld(nil, path)
}

// OpenRegularHeld is OpenRegular beneath the roots h holds (nil: as
// OpenRegular).
func OpenRegularHeld(h *confine.Held, path string) (*os.File, os.FileInfo, error) {
	f, err := h.Open(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%w: %s", ErrNotRegular, path)
	}
	return f, st, nil
}

// AppendAll appends everything r yields to b, growing it only when b's
// capacity runs out.
func AppendAll(r io.Reader, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// Parse parses the bytes of a session file. data must not be modified
// afterwards: strings in the records alias it.
func Parse(path string, data []byte) *File {
	sum := sha256.Sum256(data)
	return ParseHashed(path, data, hex.EncodeToString(sum[:]))
}

// StreamThreshold is the size from which OMP reads a session with its
// streaming loader, whose rules differ in a few corners (see Options).
const StreamThreshold = 8 << 20

// ParseHashed is Parse for a caller that has already hashed data. Like OMP,
// it uses the streaming loader's rules for files of StreamThreshold bytes
// and more.
func ParseHashed(path string, data []byte, sourceHash string) *File {
	return ParseWith(path, data, sourceHash, Options{Stream: len(data) >= StreamThreshold})
}

// Options select between OMP's two loaders.
type Options struct {
	// Stream applies the streaming loader's rules (OMP uses it for files of
	// 8 MiB and more, checked against the host): the title slot line is
	// trimmed of all JavaScript white space (NBSP, U+FEFF, …) before it is
	// parsed; a U+FEFF before a value is skipped like white space (the
	// record is kept); a line of other non-ASCII white space is malformed.
	Stream bool
	// Parser, when set, parses the records, in the memory it kept
	// (jsjson.Parser.Recycle): the caller recycles it only once nothing
	// of the File is used any more.
	Parser *jsjson.Parser
}

// ParseWith parses with the given loader rules; sourceHash is the
// SHA-256 hex of data.
func ParseWith(path string, data []byte, sourceHash string, opt Options) *File {
	f := &File{Path: path, Size: int64(len(data)), SourceHash: sourceHash, stream: opt.Stream}
	pos := 0
	if bytes.HasPrefix(data, bom) {
		f.BOM = true
		pos = 3
	}
	line := 1
	if slot, next, ok := titleSlot(data, pos, opt.Stream); ok {
		f.Title = slot
		pos = next
		line = 2
	}
	values := parseBody(f, data, pos, line, 0, opt.Parser)
	if len(values) == 0 {
		f.Empty = len(f.Malformed) == 0
		if !f.Empty {
			f.Problems.Add(coverage.InvalidHeader)
		}
		return f
	}
	if h, ok := header(values[0].Value, f.Title); ok {
		f.Header = h
		values = values[1:]
	} else {
		f.Problems.Add(coverage.InvalidHeader)
	}
	f.Records = values
	for i := range f.Records {
		r := &f.Records[i]
		r.Index = i
		r.Type = r.Value.Get("type").StrOr("")
		r.ID = idOf(r.Value.Get("id"), i)
		pv := r.Value.Get("parentId")
		r.HasParentKey = pv.Exists()
		r.Parent = idOf(pv, -1-i)
	}
	version := 3.0
	if f.Header != nil {
		version = f.Header.Version
	}
	f.migrate(version)
	f.checkHostRefusals(version)
	return f
}

// titleSlot recognizes OMP's title slot: the text before the first \n is
// exactly one JSON object with type "title", v 1, string title, updatedAt
// and pad, and source absent or "auto"/"user". Its byte length is not
// checked, as OMP does not check it.
func titleSlot(data []byte, pos int, stream bool) (*TitleSlot, int, bool) {
	nl := bytes.IndexByte(data[pos:], '\n')
	if nl < 0 {
		return nil, 0, false
	}
	first := data[pos : pos+nl]
	if stream {
		first = jsTrim(first)
	}
	v, err := jsjson.Parse(first)
	if err != nil || !v.IsObject() || v.Get("type").StrOr("") != "title" {
		return nil, 0, false
	}
	if n, ok := v.Get("v").Float(); !ok || n != 1 {
		return nil, 0, false
	}
	title, ok1 := v.Get("title").Str()
	updated, ok2 := v.Get("updatedAt").Str()
	_, ok3 := v.Get("pad").Str()
	if !ok1 || !ok2 || !ok3 {
		return nil, 0, false
	}
	src := v.Get("source")
	source := ""
	if src.Exists() {
		s, ok := src.Str()
		switch {
		case ok && s == "auto":
			source = "auto"
		case ok && s == "user":
			source = "user"
		default:
			return nil, 0, false
		}
	}
	return &TitleSlot{Title: strings.Clone(title), Source: source, UpdatedAt: strings.Clone(updated)}, pos + nl + 1, true
}

// recordsAtMost is room for the records of data from pos (at most limit
// of them, when positive). A record starts a line, so there are no more
// records than lines: counting them (a vectorized pass) costs less than
// growing the slice of records, whose copies the collector's write
// barriers slow down. Blank lines make no record: a guess is capped at
// one record per 64 bytes (a Record is 104), so that a file of blank
// lines does not reserve 100 times its size.
func recordsAtMost(data []byte, pos, limit int) int {
	if limit > 0 {
		return min(64, limit)
	}
	return min(bytes.Count(data[pos:], []byte{'\n'})+1, (len(data)-pos)/64+64)
}

// parseBody parses JSON values one after another the way OMP's lenient
// JSONL loader does (Bun's JSONL.parseChunk in a loop): a value may span
// lines; the first value starting on a line is kept and the rest of that
// line ignored; a value with a syntax error drops the line on which it
// started and parsing resumes at the next line; a value still incomplete at
// the end of the input drops everything from its start. A positive limit
// stops after that many records.
func parseBody(f *File, data []byte, pos, line, limit int, ps *jsjson.Parser) []Record {
	records := make([]Record, 0, recordsAtMost(data, pos, limit))
	bodyStart := pos
	if ps == nil {
		ps = new(jsjson.Parser)
	}
	for {
		// Skip whitespace, counting lines.
		for pos < len(data) {
			c := data[pos]
			if c == '\n' {
				line++
			} else if f.stream && c == 0xEF && pos > bodyStart && bytes.HasPrefix(data[pos:], bom) {
				pos += 3
				continue
			} else if c != ' ' && c != '\t' && c != '\r' {
				break
			}
			pos++
		}
		if pos >= len(data) {
			return records
		}
		v, end, err := ps.ParseValue(data, pos)
		if err != nil {
			var se *jsjson.SyntaxError
			if errors.As(err, &se) && se.EOF {
				reason := coverage.TornTail
				if f.stream && cutInString(data[pos:]) {
					// The stream loader ends its input with a newline,
					// which a value cut inside a string cannot hold: a
					// syntax error, not a torn tail.
					reason = coverage.MalformedLine
				}
				f.drop(line, pos, reason)
				return records
			}
			nl := bytes.IndexByte(data[pos:], '\n')
			end := len(data)
			if nl >= 0 {
				end = pos + nl
			}
			// A line of JavaScript whitespace (NBSP, U+3000, a stray BOM…)
			// is skipped like a blank line, as OMP's loader does.
			if !jsBlank(data[pos:end]) || f.stream {
				f.drop(line, pos, coverage.MalformedLine)
			}
			if nl < 0 {
				return records
			}
			pos += nl + 1
			line++
			continue
		}
		startLine := line
		line += bytes.Count(data[pos:end], []byte{'\n'})
		if v.IsNull() {
			f.drop(startLine, pos, coverage.NullRecord)
		} else {
			records = append(records, Record{Line: startLine, Offset: int64(pos), End: int64(end), Value: v})
			if len(records) == limit {
				return records
			}
		}
		nl := bytes.IndexByte(data[end:], '\n')
		if nl < 0 {
			return records
		}
		pos = end + nl + 1
		line++
	}
}

var bom = []byte("\xEF\xBB\xBF")

// cutInString reports whether the incomplete value b becomes a syntax error
// once a newline is appended, as the streaming loader appends one.
func cutInString(b []byte) bool {
	_, _, err := jsjson.ParseValue(append(append([]byte(nil), b...), '\n'), 0)
	var se *jsjson.SyntaxError
	return errors.As(err, &se) && !se.EOF
}

// jsTrim removes JavaScript white space (String.trim) from both ends of b.
func jsTrim(b []byte) []byte {
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if !jsjson.IsTrimSpace(r) {
			break
		}
		b = b[n:]
	}
	for len(b) > 0 {
		r, n := utf8.DecodeLastRune(b)
		if !jsjson.IsTrimSpace(r) {
			break
		}
		b = b[:len(b)-n]
	}
	return b
}

// jsBlank reports whether b is empty after JavaScript's String.trim: only
// white space and line terminators (including NBSP, U+FEFF, U+2028/2029 and
// the Zs separators).
func jsBlank(b []byte) bool { return len(jsTrim(b)) == 0 }

func (f *File) drop(line, pos int, reason string) {
	f.Malformed = append(f.Malformed, Malformed{Line: line, Offset: int64(pos), Reason: reason})
	f.Problems.Add(reason)
}

// header validates the first value as OMP does: an object with type
// "session" and a string id.
func header(v jsjson.Value, slot *TitleSlot) (*Header, bool) {
	if !v.IsObject() || v.Get("type").StrOr("") != "session" {
		return nil, false
	}
	id, ok := v.Get("id").Str()
	if !ok {
		return nil, false
	}
	h := &Header{
		ID:            strings.Clone(id),
		Cwd:           strings.Clone(v.Get("cwd").StrOr("")),
		Timestamp:     strings.Clone(v.Get("timestamp").StrOr("")),
		ParentSession: strings.Clone(v.Get("parentSession").StrOr("")),
		Title:         strings.Clone(v.Get("title").StrOr("")),
		Version:       versionOf(v.Get("version")),
		Value:         v,
	}
	if slot != nil {
		h.Title = slot.Title
	}
	return h, true
}

// versionOf coerces the header's version as JavaScript's relational
// operators do; missing and null mean 1.
func versionOf(v jsjson.Value) float64 {
	switch v.Kind() {
	case jsjson.Absent, jsjson.Null:
		return 1
	}
	return ToNumber(v)
}

// ToNumber converts a JSON value to a number as JavaScript's Number() does.
func ToNumber(v jsjson.Value) float64 {
	switch v.Kind() {
	case jsjson.Null, jsjson.False:
		return 0
	case jsjson.True:
		return 1
	case jsjson.Number:
		f, _ := v.Float()
		return f
	case jsjson.String:
		s, _ := v.Str()
		return stringToNumber(s)
	case jsjson.Array:
		switch v.Len() {
		case 0:
			return 0
		case 1:
			item := v.Index(0)
			if item.Kind() == jsjson.Null {
				return 0
			}
			if item.Kind() == jsjson.Array || item.Kind() == jsjson.Object {
				return ToNumber(item)
			}
			return stringToNumber(toJSString(item))
		}
	}
	return math.NaN()
}

func toJSString(v jsjson.Value) string {
	switch v.Kind() {
	case jsjson.String:
		s, _ := v.Str()
		return s
	case jsjson.Number:
		f, _ := v.Float()
		return jsjson.FormatNumber(f)
	case jsjson.True:
		return "true"
	case jsjson.False:
		return "false"
	}
	return ""
}

// stringToNumber is JavaScript's StringToNumber: surrounding whitespace
// ignored, "" is 0, decimal literals, Infinity, and 0x/0o/0b integers.
func stringToNumber(s string) float64 {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0
	}
	switch s {
	case "Infinity", "+Infinity":
		return math.Inf(1)
	case "-Infinity":
		return math.Inf(-1)
	}
	if len(s) > 2 && s[0] == '0' {
		base := 0
		switch s[1] {
		case 'x', 'X':
			base = 16
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		}
		if base != 0 {
			n, err := strconv.ParseUint(s[2:], base, 64)
			if err != nil || strings.Contains(s, "_") {
				return math.NaN()
			}
			return float64(n)
		}
	}
	// Only plain decimal syntax: ParseFloat would also accept "inf",
	// "nan", hex floats and underscores, which JavaScript does not.
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return math.NaN()
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return f
		}
		return math.NaN()
	}
	return f
}

// migrate applies OMP's in-memory migrations. v1 (version below 2): every
// record except session lines gets a fresh id and becomes the child of the
// previous such record, one linear chain in file order whatever ids it had.
// OMP's ids are random; memidx's are synthetic and marked as such. Later
// session lines keep their own id and no parent. The v2 step (hookMessage
// becoming custom) changes no tree field; normalize applies it through
// File.RoleOf.
func (f *File) migrate(version float64) {
	if version < 2 {
		prev := ID{}
		for i := range f.Records {
			r := &f.Records[i]
			if r.Type == "session" {
				continue
			}
			r.ID = syntheticID(i)
			r.Parent = prev
			r.HasParentKey = true
			prev = r.ID
		}
		f.Migrated = true
	}
	if version < 3 {
		f.Migrated = true
	}
	if version > 4 {
		f.Problems.Add(coverage.UnknownVersion)
	}
}

// LegacyHookMessages reports whether message role "hookMessage" reads as
// "custom" in this file (OMP's v2 to v3 migration).
func (f *File) LegacyHookMessages() bool {
	return f.Header != nil && f.Header.Version < 3
}

// checkHostRefusals flags records that make OMP's loader throw, so that
// callers know the host would not open this file even though memidx can.
func (f *File) checkHostRefusals(version float64) {
	var c RefusalCheck
	for i := range f.Records {
		c.Record(f.Records[i].Type, f.Records[i].Value)
	}
	if c.Refuses(version) {
		f.Problems.Add(coverage.HostRefusesFile)
	}
}

// RefusalCheck looks at records one at a time for what makes OMP's
// loader throw on the file, so that a reader that does not keep the
// records (ReadSlim's tag function) reaches Parse's answer.
type RefusalCheck struct {
	refuse, primitive bool
}

// Record looks at one record: typ is its string "type".
func (c *RefusalCheck) Record(typ string, v jsjson.Value) {
	switch v.Kind() {
	case jsjson.Number, jsjson.String, jsjson.True, jsjson.False:
		// The v1 migration assigns properties to every record; on a
		// primitive that throws in strict-mode JavaScript.
		c.primitive = true
		return
	}
	switch typ {
	case "message":
		msg := v.Get("message")
		if !msg.Exists() || msg.IsNull() {
			c.refuse = true
			return
		}
		if msg.Get("role").StrOr("") == "assistant" && usageWithoutCost(msg.Get("usage")) {
			c.refuse = true
		}
		if msg.Get("role").StrOr("") == "toolResult" && msg.Get("toolName").StrOr("") == "task" &&
			usageWithoutCost(msg.Get("details").Get("usage")) {
			c.refuse = true
		}
	case "model_usage":
		if usageWithoutCost(v.Get("usage")) {
			c.refuse = true
		}
	}
}

// Refuses reports whether OMP refuses a file of the header's version
// holding the records seen.
func (c *RefusalCheck) Refuses(version float64) bool {
	return c.refuse || c.primitive && version < 2
}

// Problems are the file-level problems Parse reports for a file that
// ReadSlim read (a slim read admits none of the malformed-line ones),
// given the refusal check of its records.
func (s *Slim) Problems(c *RefusalCheck) coverage.Set {
	var p coverage.Set
	if s.Header.Version > 4 {
		p.Add(coverage.UnknownVersion)
	}
	if c.Refuses(s.Header.Version) {
		p.Add(coverage.HostRefusesFile)
	}
	return p
}

// usageWithoutCost reports a usage object whose cost.total OMP would read
// through a missing cost.
func usageWithoutCost(u jsjson.Value) bool {
	if !u.Exists() || u.IsNull() {
		return false
	}
	c := u.Get("cost")
	return !c.Exists() || c.IsNull()
}
