package hotbm25

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/memidx/memidx/internal/analyzer"
	"github.com/memidx/memidx/internal/analyzer/natural"
	"github.com/memidx/memidx/internal/blocksum"
	"github.com/memidx/memidx/internal/normalize"
	"github.com/memidx/memidx/internal/termtab"
)

// colWidth is the size of one entry's columns: uint32 length, float32
// weight, float64 timestamp (NaN when the entry has none).
const colWidth = 16

// Stored is the part of an entry a shard keeps for display and
// verification. Text and ArgsCuts are the bounded hot text: Text as recall
// shows it, ArgsCuts the argument rests only search sees.
type Stored struct {
	EntryID          string   `msgpack:"i,omitempty"`
	HasEntryID       bool     `msgpack:"I,omitempty"`
	ParentID         string   `msgpack:"p,omitempty"`
	HasParentID      bool     `msgpack:"P,omitempty"`
	Type             string   `msgpack:"y,omitempty"`
	Role             string   `msgpack:"r,omitempty"`
	Tool             string   `msgpack:"t,omitempty"`
	Tools            []string `msgpack:"T,omitempty"`
	Ref              string   `msgpack:"R,omitempty"`
	Provider         string   `msgpack:"v,omitempty"`
	Action           string   `msgpack:"a,omitempty"`
	Outcome          string   `msgpack:"o,omitempty"`
	Timestamp        float64  `msgpack:"s,omitempty"`
	HasTimestamp     bool     `msgpack:"S,omitempty"`
	IsError          bool     `msgpack:"e,omitempty"`
	Text             string   `msgpack:"x,omitempty"`
	Truncated        bool     `msgpack:"u,omitempty"`
	FilesTouched     []string `msgpack:"f,omitempty"`
	OperationAddress string   `msgpack:"O,omitempty"`
	ParentEntryID    string   `msgpack:"E,omitempty"`
	// ArgsCuts is the rest of the tool-call arguments Text shows cut:
	// bounded with Text, searched through IndexText, never shown.
	ArgsCuts []normalize.ArgsCut `msgpack:"A,omitempty"`
}

// StoredFrom keeps what a shard needs of e.
func StoredFrom(e *normalize.Entry) Stored {
	s := Stored{
		Type:             e.Type,
		Role:             normalize.Get(e.Role),
		Tool:             normalize.Get(e.Tool),
		Tools:            e.Tools,
		Ref:              normalize.Get(e.Ref),
		Provider:         normalize.Get(e.Provider),
		Action:           normalize.Get(e.Action),
		Outcome:          normalize.Get(e.Outcome),
		IsError:          e.IsError,
		Text:             e.Text,
		ArgsCuts:         e.ArgsCuts,
		Truncated:        e.Truncated,
		FilesTouched:     e.FilesTouched,
		OperationAddress: normalize.Get(e.OperationAddress),
		ParentEntryID:    normalize.Get(e.ParentEntryID),
	}
	if e.EntryID != nil {
		s.EntryID, s.HasEntryID = *e.EntryID, true
	}
	if e.ParentID != nil {
		s.ParentID, s.HasParentID = *e.ParentID, true
	}
	if e.Timestamp != nil {
		s.Timestamp, s.HasTimestamp = *e.Timestamp, true
	}
	return s
}

// IndexText is the text the entry was indexed under, for phrase and regex
// verification: Text with the argument rests put back.
func (s *Stored) IndexText() string { return normalize.IndexText(s.Text, s.ArgsCuts) }

// Weight is the reference's lexical provenance weight of an entry when no
// tool/ref/provider/action/outcome filter is present (with one, every entry
// weighs 1): prose ranks ahead of tool plumbing.
func Weight(role, tool string) float32 {
	if tool == "" {
		switch role {
		case "assistant":
			return 2.5
		case "user":
			return 2.25
		case "compactionSummary", "custom":
			return 1.5
		}
	}
	switch role {
	case "toolResult", "fabricOperation":
		return 0.75
	}
	if tool != "" {
		return 0.7
	}
	return 1
}

// Built is an encoded shard: three sealed values ([blocksum]).
type Built struct {
	Dict, Cols, Ents []byte
	Entries          int
	// SumLen is the total token count, for the mean length.
	SumLen int64
}

// Open opens the shard b was built into, in memory.
func (b *Built) Open() (Shard, error) { return Open(b.Dict, b.Cols, b.Ents, b.Entries) }

type posting struct {
	entry uint32
	tf    uint32
}

// Build encodes the shard of entries, whose Text and ArgsCuts are the
// bounded hot text (normalize.Entry.Bound). Terms and lengths come from the
// IndexText, so a word of a tool call's arguments past the display cut is
// found.
func Build(entries []normalize.Entry) (*Built, error) {
	b := NewBuilder(len(entries))
	for i := range entries {
		if err := b.Add(&entries[i]); err != nil {
			return nil, err
		}
	}
	return b.Finish()
}

// Builder builds a shard one entry at a time, keeping of each entry only
// what the shard stores (its postings, columns and encoded form), so that
// a long session is built without holding its normalized entries. Build
// is Add over a slice: both give the same bytes.
type Builder struct {
	// post holds the postings: most terms of a long session occur once,
	// so a term's first posting is kept inline and only a term with more
	// gets a list (a million singleton terms cost some 20 MB less than a
	// slice each).
	post postings
	cols []byte
	offs []byte // the entries' offset table, (n+1) uint32 at Finish
	// body is the entries' msgpack, back to back, in chunks: a long
	// session's entries are never copied to grow one slice.
	body     [][]byte
	bodySize int
	sumLen   int64
	n        int
	counts   map[string]uint32
	spans    []analyzer.Span
	tokr     analyzer.Tokenizer // its tokens live until the next Add
}

// NewBuilder returns a Builder expecting about n entries.
func NewBuilder(n int) *Builder {
	return &Builder{
		post:   postings{ids: make(map[string]uint32, 1024)},
		cols:   make([]byte, 0, colWidth*n),
		offs:   make([]byte, 0, 4*(n+1)),
		counts: make(map[string]uint32, 64),
	}
}

// Add adds the next entry. The builder keeps no reference to e.
func (b *Builder) Add(e *normalize.Entry) error {
	if uint64(b.n+1) >= math.MaxUint32 {
		return errors.New("hotbm25: too many entries")
	}
	i := uint32(b.n)
	b.n++
	clear(b.counts) // its keys may share the memory the tokenizer reuses
	text := e.IndexText()
	b.spans = b.tokr.AppendSpans(b.spans[:0], text)
	b.sumLen += int64(len(b.spans))
	for _, sp := range b.spans {
		b.counts[b.tokr.Token(text, sp)]++
	}
	for t, n := range b.counts {
		b.post.add(t, posting{i, n}, true)
	}
	e.EachStructuralKey(func(k string) { b.post.add(k, posting{i, 1}, false) })
	b.cols = binary.LittleEndian.AppendUint32(b.cols, uint32(len(b.spans)))
	b.cols = binary.LittleEndian.AppendUint32(b.cols, math.Float32bits(Weight(normalize.Get(e.Role), normalize.Get(e.Tool))))
	ts := math.NaN()
	if e.Timestamp != nil {
		ts = *e.Timestamp
	}
	b.cols = binary.LittleEndian.AppendUint64(b.cols, math.Float64bits(ts))
	b.offs = binary.LittleEndian.AppendUint32(b.offs, uint32(b.bodySize))
	return b.appendEntry(StoredFrom(e))
}

// postings are a builder's posting lists, by term.
type postings struct {
	ids   map[string]uint32 // term → id
	first []posting         // by id: the term's first posting
	more  []int32           // by id: the term's index in lists, or -1
	lists [][]posting       // the lists of the terms with more than one
}

// add appends p to term t's list, unless the list already ends with p's
// entry and dedup is set (a structural key an entry has twice). clone
// copies a new term, which may alias the entry's text.
func (ps *postings) add(t string, p posting, clone bool) {
	id, ok := ps.ids[t]
	if !ok {
		if clone {
			t = strings.Clone(t)
		}
		ps.ids[t] = uint32(len(ps.first))
		ps.first = append(ps.first, p)
		ps.more = append(ps.more, -1)
		return
	}
	switch m := ps.more[id]; {
	case m < 0:
		if ps.first[id].entry == p.entry {
			return
		}
		ps.more[id] = int32(len(ps.lists))
		ps.lists = append(ps.lists, []posting{ps.first[id], p})
	default:
		pl := ps.lists[m]
		if pl[len(pl)-1].entry == p.entry {
			return
		}
		ps.lists[m] = append(pl, p)
	}
}

// appendList appends term id's postings to dst.
func (ps *postings) appendList(dst []posting, id uint32) []posting {
	if m := ps.more[id]; m >= 0 {
		return append(dst, ps.lists[m]...)
	}
	return append(dst, ps.first[id])
}

// addList adds a new key with its whole list.
func (ps *postings) addList(key string, pl []posting) {
	ps.ids[key] = uint32(len(ps.first))
	ps.first = append(ps.first, pl[0])
	if len(pl) == 1 {
		ps.more = append(ps.more, -1)
		return
	}
	ps.more = append(ps.more, int32(len(ps.lists)))
	ps.lists = append(ps.lists, pl)
}

// appendTo appends the encoding of term id's list to b.
func (ps *postings) appendTo(b []byte, id uint32) []byte {
	if m := ps.more[id]; m >= 0 {
		return appendPostings(b, ps.lists[m])
	}
	one := [1]posting{ps.first[id]}
	return appendPostings(b, one[:])
}

// bodyChunk is the size of the body's chunks.
const bodyChunk = 1 << 20

// appendEntry appends the msgpack of s to the body.
func (b *Builder) appendEntry(s Stored) error {
	n := len(b.body)
	if n == 0 || len(b.body[n-1]) >= cap(b.body[n-1])*7/8 {
		// Chunks grow with the body up to bodyChunk: a small shard
		// allocates little.
		c := min(bodyChunk, max(4<<10, b.bodySize))
		b.body = append(b.body, make([]byte, 0, c+c/8))
		n++
	}
	last := b.body[n-1]
	grown, err := appendMsgpack(last, s)
	b.bodySize += len(grown) - len(last)
	b.body[n-1] = grown
	return err
}

// Finish encodes the shard. The builder must not be used after.
func (b *Builder) Finish() (*Built, error) {
	b.addStems()
	terms := make([]string, 0, len(b.post.ids))
	for t := range b.post.ids {
		terms = append(terms, t)
	}
	sort.Strings(terms)
	// The payloads back to back, not a slice each.
	var pays []byte
	ends := make([]uint32, len(terms))
	for i, t := range terms {
		pays = b.post.appendTo(pays, b.post.ids[t])
		ends[i] = uint32(len(pays))
	}
	b.post = postings{}
	dict, err := termtab.BuildPacked(terms, pays, ends)
	if err != nil {
		return nil, err
	}
	terms, pays, ends = nil, nil, nil
	out := &Built{Entries: b.n, SumLen: b.sumLen}
	if out.Dict, err = blocksum.Seal(dict); err != nil {
		return nil, err
	}
	dict = nil
	if out.Cols, err = blocksum.Seal(b.cols); err != nil {
		return nil, err
	}
	b.cols = nil
	// The offset table then the bodies, sealed without joining them first.
	b.offs = binary.LittleEndian.AppendUint32(b.offs, uint32(b.bodySize))
	if out.Ents, err = blocksum.Seal(append([][]byte{b.offs}, b.body...)...); err != nil {
		return nil, err
	}
	b.offs, b.body = nil, nil
	return out, nil
}

// appendMsgpack appends the msgpack encoding of v to b.
func appendMsgpack(b []byte, v any) ([]byte, error) {
	w := appendWriter{b}
	enc := msgpack.GetEncoder()
	defer msgpack.PutEncoder(enc)
	enc.Reset(&w)
	err := enc.Encode(v)
	return w.b, err
}

type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// appendPostings appends the encoding of a posting list to b.
func appendPostings(b []byte, pl []posting) []byte {
	b = binary.AppendUvarint(b, uint64(len(pl)))
	prev := uint32(0)
	for _, p := range pl {
		b = binary.AppendUvarint(b, uint64(p.entry-prev))
		b = binary.AppendUvarint(b, uint64(p.tf))
		prev = p.entry
	}
	return b
}

// ErrCorrupt reports a shard whose values do not agree with each other.
var ErrCorrupt = errors.New("hotbm25: corrupt shard")

// Shard reads an encoded shard in place; it is valid as long as the bytes.
// Every read is verified against the values' block checksums; a read that
// meets damage yields nothing (a zero column, an empty posting list, an
// entry error) and Err reports it.
type Shard struct {
	dict termtab.Table
	cols []byte // verified whole at Open: scoring reads it per posting
	ents blocksum.Bytes
	n    int
}

// Open checks and opens a shard of n entries from its three sealed values.
func Open(dict, cols, ents []byte, n int) (Shard, error) { return OpenSeen(dict, cols, ents, n, nil) }

// OpenSeen is Open with the values' verified blocks kept in seen (see
// blocksum.Seen), when not nil.
func OpenSeen(dict, cols, ents []byte, n int, seen *[3]blocksum.Seen) (Shard, error) {
	var v [3]blocksum.Bytes
	for i, b := range [][]byte{dict, cols, ents} {
		var sn *blocksum.Seen
		if seen != nil {
			sn = &seen[i]
		}
		var err error
		if v[i], err = blocksum.OpenSeen(b, sn); err != nil {
			return Shard{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
	}
	t, err := termtab.Open(v[0])
	if err != nil {
		return Shard{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	cols, ok := v[1].Slice(0, v[1].Len())
	if !ok || len(cols) != n*colWidth {
		return Shard{}, ErrCorrupt
	}
	s := Shard{dict: t, cols: cols, ents: v[2], n: n}
	if last, ok := s.ents.Uint32(4 * n); !ok || int(last) != s.ents.Len()-4*(n+1) {
		return Shard{}, ErrCorrupt
	}
	return s, nil
}

// Err reports damage that any read of the shard met: what was read after
// it may be wrong, and the shard should be rebuilt.
func (s Shard) Err() error {
	for _, err := range []error{s.dict.Err(), s.ents.Err()} {
		if err != nil {
			return fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
	}
	return nil
}

// Len returns the number of entries.
func (s Shard) Len() int { return s.n }

// Postings iterates the postings of key: a term, a structural key, or a
// stem's natural.Key, whose postings are the stemmed field's.
func (s Shard) Postings(key string) Postings {
	i, ok := s.dict.Find(key)
	if !ok {
		if stem, isStem := strings.CutPrefix(key, natural.KeyPrefix); isStem && natural.SelfStem(stem) {
			// No key: the stem's only form is the stem itself.
			return s.Postings(stem)
		}
		return Postings{}
	}
	p := Postings{b: s.dict.Payload(i), max: uint32(s.n)}
	p.count = p.uvarint()
	return p
}

// Columns are a shard's fixed-width columns, by entry.
type Columns []byte

// Columns returns the shard's columns, for a scan over many entries: the
// Shard's methods take it by value, and a call through a pointer to one
// copies it whole, for every entry.
func (s Shard) Columns() Columns { return s.cols }

// DocLen returns the token count of entry i.
func (s Shard) DocLen(i int) uint32 { return Columns(s.cols).DocLen(i) }

// Weight returns the provenance weight of entry i.
func (s Shard) Weight(i int) float32 { return Columns(s.cols).Weight(i) }

// LenWeight returns entry i's token count and provenance weight, read
// together: a scan over many entries wants both.
func (s Shard) LenWeight(i int) (uint32, float32) { return Columns(s.cols).LenWeight(i) }

// Timestamp returns the epoch-ms timestamp of entry i.
func (s Shard) Timestamp(i int) (float64, bool) { return Columns(s.cols).Timestamp(i) }

// DocLen is Shard.DocLen.
func (c Columns) DocLen(i int) uint32 { return binary.LittleEndian.Uint32(c[i*colWidth:]) }

// Weight is Shard.Weight.
func (c Columns) Weight(i int) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(c[i*colWidth+4:]))
}

// LenWeight is Shard.LenWeight.
func (c Columns) LenWeight(i int) (uint32, float32) {
	e := c[i*colWidth : i*colWidth+8]
	return binary.LittleEndian.Uint32(e), math.Float32frombits(binary.LittleEndian.Uint32(e[4:]))
}

// Timestamp is Shard.Timestamp.
func (c Columns) Timestamp(i int) (float64, bool) {
	f := math.Float64frombits(binary.LittleEndian.Uint64(c[i*colWidth+8:]))
	return f, !math.IsNaN(f)
}

// Entry decodes stored entry i.
func (s Shard) Entry(i int) (Stored, error) {
	if i < 0 || i >= s.n {
		return Stored{}, fmt.Errorf("hotbm25: entry %d of %d", i, s.n)
	}
	base := 4 * (s.n + 1)
	o, ok := s.ents.Slice(4*i, 4*i+8)
	if !ok {
		return Stored{}, ErrCorrupt
	}
	a, b := binary.LittleEndian.Uint32(o), binary.LittleEndian.Uint32(o[4:])
	if a > b {
		return Stored{}, ErrCorrupt
	}
	raw, ok := s.ents.Slice(base+int(a), base+int(b))
	if !ok {
		return Stored{}, ErrCorrupt
	}
	var st Stored
	if err := msgpack.Unmarshal(raw, &st); err != nil {
		return Stored{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return st, nil
}

// Terms returns the dictionary, for regex and vocabulary scans.
func (s Shard) Terms() termtab.Table { return s.dict }

// Postings is a cursor over one posting list.
type Postings struct {
	b     []byte
	count uint64
	read  uint64
	cur   uint32
	max   uint32
	bad   bool
}

// Count returns the number of entries in the list (its document
// frequency), never more than the shard's entries (a damaged count cannot
// inflate a bound or a score).
func (p Postings) Count() int { return int(min(p.count, uint64(p.max))) }

func (p *Postings) uvarint() uint64 {
	// Most deltas and frequencies fit one byte: decode those inline.
	if len(p.b) > 0 && p.b[0] < 0x80 {
		v := p.b[0]
		p.b = p.b[1:]
		return uint64(v)
	}
	v, n := binary.Uvarint(p.b)
	if n <= 0 {
		p.bad = true
		p.b = nil
		return 0
	}
	p.b = p.b[n:]
	return v
}

// Next returns the next entry and its term frequency; ok is false at the
// end (or on a damaged list, which Err then reports).
func (p *Postings) Next() (entry uint32, tf uint32, ok bool) {
	if p.read >= p.count || p.bad {
		return 0, 0, false
	}
	d := p.uvarint()
	tf64 := p.uvarint()
	if p.bad {
		return 0, 0, false
	}
	if p.read > 0 && d == 0 || uint64(p.cur)+d >= uint64(p.max) {
		p.bad = true
		return 0, 0, false
	}
	p.cur += uint32(d)
	p.read++
	return p.cur, uint32(tf64), true
}

// Fill reads the rest of the list into tf, by entry: tf[e] is set to the
// frequency of every posting read (tf and seen must hold the shard's
// entries). Filling several lists with one seen collects their union:
// each entry not yet seen is marked and appended to union (which must
// list the entries seen marks), and Fill returns it. It reads exactly what Next would, with the same checks, so
// that a column scan and a cursor agree even on a damaged list; zero
// reports a posting of frequency 0, which only a damaged list holds and a
// column cannot tell from absence.
func (p *Postings) Fill(tf []uint32, seen []bool, union []uint32) (_ []uint32, zero bool) {
	if p.bad {
		return union, false
	}
	// Room for every entry the rest can add (union lists entries seen,
	// each below max), so that the loops store by index.
	u := len(union)
	room := max(0, min(int(min(p.count-p.read, uint64(p.max))), int(p.max)-u))
	union = slices.Grow(union, room)[:u+room]
	for p.read < p.count {
		u = p.fillRun(tf, seen, union, u)
		// The posting fillRun stopped at is Next's.
		e, f, ok := p.Next()
		if !ok {
			break
		}
		tf[e], zero = f, zero || f == 0
		if !seen[e] {
			seen[e] = true
			union[u] = e
			u++
		}
	}
	return union[:u], zero
}

// fillRun is Fill's loop over the postings whose delta and frequency
// fit one byte each and are not 0, within the list's entries (most
// are): it stops before any other posting, for Next to read and check.
// It keeps the cursor in locals, which the stores to the columns cannot
// alias.
func (p *Postings) fillRun(tf []uint32, seen []bool, union []uint32, u int) int {
	k := int(min(p.count-p.read, uint64(len(p.b)/2)))
	b, cur := p.b[:2*k], int(p.cur)
	tf, seen = tf[:p.max], seen[:p.max]
	i := 0
	for ; i+1 < len(b); i += 2 {
		d, f := b[i], b[i+1]
		e := cur + int(d)
		if d-1 >= 0x7f || f-1 >= 0x7f || e >= len(tf) {
			break
		}
		cur = e
		tf[e] = uint32(f)
		if !seen[e] {
			seen[e] = true
			union[u] = uint32(e)
			u++
		}
	}
	p.b, p.cur, p.read = p.b[i:], uint32(cur), p.read+uint64(i/2)
	return u
}

// Err reports a damaged list.
func (p *Postings) Err() error {
	if p.bad {
		return ErrCorrupt
	}
	return nil
}
