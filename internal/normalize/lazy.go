package normalize

import (
	"errors"
	"strings"

	"github.com/memidx/memidx/internal/jsjson"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/session"
)

// Tags that Planner.Tag gives records in a slim read: how many entries a
// record yields.
const (
	// TagNone: the record yields no entry.
	TagNone uint8 = iota
	// TagOne: exactly one entry, which depends only on the record and
	// on the files of the tool calls of the selection.
	TagOne
	// TagSpecial: the count or the entries depend on more (a message
	// without a role, Fabric traces, branch facts deduplicated across
	// the session): such a selection is normalized whole.
	TagSpecial
)

// Planner collects, while session.ReadSlim has each record parsed, what
// normalizing single entries later needs. Pass its Tag to ReadSlim.
type Planner struct {
	// calls holds the tool calls with touched files of each assistant
	// message, by record index.
	calls map[int][]toolCallFiles
}

type toolCallFiles struct {
	id    string
	files []string
}

// Tag is a session.TagFunc: it classifies the record as Session's
// normalizer would treat it, and remembers its tool calls' files.
func (p *Planner) Tag(rec int, typ string, v jsjson.Value) uint8 {
	if !v.IsObject() {
		return TagNone
	}
	switch typ {
	case "compaction", "custom_message":
		return TagOne
	case "message":
	case "branch_summary":
		return TagSpecial
	default:
		return TagNone
	}
	msg := v.Get("message")
	switch role := msg.Get("role").StrOr(""); role {
	case "", "branchSummary":
		return TagSpecial
	case "toolResult":
		if msg.Get("toolName").StrOr("") == "fabric_exec" {
			return TagSpecial
		}
	case "assistant":
		eachToolCallFiles(msg, func(id string, files []string) {
			if p.calls == nil {
				p.calls = make(map[int][]toolCallFiles)
			}
			p.calls[rec] = append(p.calls[rec], toolCallFiles{strings.Clone(id), files})
		})
	}
	return TagOne
}

// Lazy is the normalized form of a selection of a slim read, made one
// entry at a time: it knows which record each entry comes from, and
// normalizes an entry from the record's bytes when asked. Entry k of a
// Lazy is entry k of Session on the same file, selection and options.
type Lazy struct {
	slim *session.Slim
	// recs is the record index of each entry.
	recs  []int32
	calls map[string][]string
	opt   Options
	// spans and hookIsCustom replace slim once Detach let it go.
	spans        []lazySpan
	hookIsCustom bool
}

// lazySpan is what Entry needs of an entry's record without the slim read.
type lazySpan struct {
	off, end  int64
	line      int32
	synthetic bool
}

// Detach lets go of the slim read, keeping of each entry's record only its
// span, line and whether its id is synthetic: about 28 bytes an entry,
// where the slim records hold some 70 bytes a record and their ids, so
// that a build of a long session holds less while it normalizes. EntryID is no longer available, and Entry no longer checks a
// record's id against the read: the caller must know by other means (the
// file's identity before and after) that the file is the one read.
func (l *Lazy) Detach() {
	if l.slim == nil {
		return
	}
	l.spans = make([]lazySpan, len(l.recs))
	for k, idx := range l.recs {
		r := &l.slim.Records[idx]
		l.spans[k] = lazySpan{off: r.Offset, end: r.End, line: r.Line, synthetic: r.ID.Synthetic()}
	}
	l.hookIsCustom = l.slim.LegacyHookMessages()
	l.slim = nil
}

// NewLazy plans the entries of sel. ok is false when the selection holds a
// record whose entries depend on more than itself (TagSpecial): normalize
// the whole selection with Session then.
func NewLazy(s *session.Slim, sel *lineage.Selection, p *Planner, opt Options) (*Lazy, bool) {
	l := &Lazy{slim: s, opt: opt}
	n := 0
	for _, idx := range sel.Indexes {
		switch s.Records[idx].Tag {
		case TagSpecial:
			return nil, false
		case TagOne:
			n++
		}
	}
	l.recs = make([]int32, 0, n)
	for _, idx := range sel.Indexes {
		if s.Records[idx].Tag == TagOne {
			l.recs = append(l.recs, int32(idx))
		}
		// The files of each call id, the selection's last call winning,
		// as pairToolCalls keeps them.
		for _, c := range p.calls[idx] {
			if l.calls == nil {
				l.calls = make(map[string][]string)
			}
			l.calls[c.id] = c.files
		}
	}
	return l, true
}

// Len is the number of entries.
func (l *Lazy) Len() int { return len(l.recs) }

// Span returns the byte span in the file of entry k's record.
func (l *Lazy) Span(k int) (offset, end int64) {
	if l.slim == nil {
		return l.spans[k].off, l.spans[k].end
	}
	r := &l.slim.Records[l.recs[k]]
	return r.Offset, r.End
}

// EntryID is entry k's EntryID (ok false for nil), known without reading
// the entry. It must not be called after Detach.
func (l *Lazy) EntryID(k int) (id string, ok bool) {
	rid := l.slim.Records[l.recs[k]].ID
	if rid.Synthetic() {
		return "", false
	}
	return rid.String()
}

// ErrRecordChanged is Entry's answer when the bytes given are not the
// record the slim read saw there.
var ErrRecordChanged = errors.New("normalize: the record is no longer the one that was read")

// Entry normalizes entry k from value, the bytes of its record (see Span).
// The entry may share memory with value.
func (l *Lazy) Entry(k int, value []byte) (Entry, error) {
	var ps jsjson.Parser
	return l.EntryWith(&ps, k, value)
}

// EntryWith is Entry parsing with ps, which it resets first: a caller that
// normalizes entries one after another reuses the parser's memory (a
// build of a long session makes far less garbage). The entry is valid
// until ps is used again.
func (l *Lazy) EntryWith(ps *jsjson.Parser, k int, value []byte) (Entry, error) {
	idx := int(l.recs[k])
	ps.Reset()
	v, end, err := ps.ParseValue(value, 0)
	if err != nil || end != len(value) {
		return Entry{}, ErrRecordChanged
	}
	typ := v.Get("type").StrOr("")
	var p Planner
	if p.Tag(idx, typ, v) != TagOne {
		return Entry{}, ErrRecordChanged
	}
	r, ok := l.record(k, v, typ)
	if !ok {
		return Entry{}, ErrRecordChanged
	}
	hookIsCustom := l.hookIsCustom
	if l.slim != nil {
		hookIsCustom = l.slim.LegacyHookMessages()
	}
	res := &Result{Entries: make([]Entry, 0, 1)}
	n := normalizer{opt: l.opt, res: res, hookIsCustom: hookIsCustom, calls: l.calls}
	n.record(&r)
	if len(res.Entries) != 1 {
		return Entry{}, ErrRecordChanged
	}
	e := res.Entries[0]
	e.Index = k
	if l.opt.MaxEntryChars > 0 {
		e.Bound(l.opt.MaxEntryChars)
	}
	return e, nil
}

// record is entry k's record, of value v and type typ; ok is false when v
// does not carry the id the slim read saw (not checked after Detach).
func (l *Lazy) record(k int, v jsjson.Value, typ string) (session.Record, bool) {
	idx := int(l.recs[k])
	if l.slim == nil {
		sp := &l.spans[k]
		r := session.Record{Index: idx, Line: int(sp.line), Offset: sp.off, End: sp.end, Value: v, Type: typ}
		if sp.synthetic {
			r.ID = session.SyntheticID(idx) // the normalizer drops a v1 record's ids
		}
		return r, true
	}
	sr := &l.slim.Records[idx]
	if idv := v.Get("id"); !sr.ID.Synthetic() && (idv.Exists() != sr.ID.Present() && !idv.IsNull() ||
		idv.Exists() && jsjson.Stringify(idv) != jsjson.Stringify(sr.ID.JSON())) {
		return session.Record{}, false
	}
	return session.Record{Index: idx, Line: int(sr.Line), Offset: sr.Offset, End: sr.End, Value: v, Type: typ,
		ID: sr.ID, Parent: sr.Parent, HasParentKey: sr.HasParentKey()}, true
}
