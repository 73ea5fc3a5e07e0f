package engine

import (
	"sync"
	"unsafe"

	"github.com/memidx/memidx/internal/jsjson"
)

// ResponseTooLarge: a single hit could not be shortened under the envelope
// (its follow call alone is too long) and was left out.
const ResponseTooLarge = "response_too_large"

// jsonLen is the length of v's JSON in UTF-16 code units, with HTML
// characters unescaped as JavaScript writes them.
func jsonLen(v any) int {
	b, err := marshalAs(v)
	if err != nil {
		return 1 << 30
	}
	return utf16Len(b)
}

// utf16Len is the length of the JSON text b in UTF-16 code units, read in
// place: b is not kept.
func utf16Len(b []byte) int { return jsjson.UTF16Len(unsafe.String(unsafe.SliceData(b), len(b))) }

// hitLen is jsonLen(h) without the encoder's second pass over what
// Hit.MarshalJSON returns (that pass, a compaction of compact JSON, was
// half of measuring a page), into a buffer used again (hitEncoders).
func hitLen(h Hit) int {
	e := hitEncoders.Get().(*hitEncoder)
	defer hitEncoders.Put(e)
	e.buf.Reset()
	if err := e.encode(h); err != nil {
		return 1 << 30
	}
	return utf16Len(e.buf.Bytes())
}

// hitEncoders are hitLen's encoders; a buffer grows to a hit's size.
var hitEncoders = sync.Pool{New: func() any { return &hitEncoder{} }}

// fitEnvelope keeps a page within MaxResponseChars: trailing hits are
// dropped (next then points at the first dropped one); a lone oversized hit
// is shortened, never allowed to break the envelope.
func fitEnvelope(p *RecallPage) {
	lens := make([]int, len(p.Hits))
	sum := 0
	for i, h := range p.Hits {
		lens[i] = hitLen(h)
		sum += lens[i]
	}
	skeleton := func() int {
		hits := p.Hits
		p.Hits = []Hit{}
		n := jsonLen(p)
		p.Hits = hits
		return n
	}
	total := func() int {
		n := skeleton() + sum
		if len(p.Hits) > 1 {
			n += len(p.Hits) - 1
		}
		return n
	}
	for len(p.Hits) > 1 && total() > MaxResponseChars {
		last := len(p.Hits) - 1
		sum -= lens[last]
		p.Hits = p.Hits[:last]
		lens = lens[:last]
		if p.nextFor != nil {
			p.Next = p.nextFor(len(p.Hits))
		}
		if p.QueryCoverage != nil {
			p.setQueryCoverage() // of the hits the page keeps
		}
	}
	if len(p.Hits) == 1 && total() > MaxResponseChars {
		shrinkHit(&p.Hits[0], total()-MaxResponseChars)
		sum = hitLen(p.Hits[0])
		if total() > MaxResponseChars {
			p.Hits = p.Hits[:0]
			if p.nextFor != nil {
				p.Next = p.nextFor(0)
			}
			if p.QueryCoverage != nil {
				p.setQueryCoverage()
			}
			p.Coverage.Reasons = append(p.Coverage.Reasons, ResponseTooLarge)
			p.Coverage.Complete = false
		}
	}
}

// shrinkHit cuts a hit's text by at least excess units.
func shrinkHit(h *Hit, excess int) {
	if e := h.Entry; e != nil {
		n := jsjson.UTF16Len(e.Snippet) - excess - 16
		if n < 1 {
			n = 1
		}
		e.Snippet = boundString(e.Snippet, n)
		e.Truncated = true
		for _, p := range []**string{&e.EntryID, &e.ParentID, &e.OperationAddress, &e.Role, &e.Tool, &e.Ref, &e.Provider, &e.Action} {
			if *p != nil {
				v := boundString(**p, 64)
				*p = &v
			}
		}
		e.SessionID = boundString(e.SessionID, 64)
		if e.Context != nil {
			for i := range e.Context.Next {
				c := &e.Context.Next[i]
				c.Snippet, c.Truncated = boundString(c.Snippet, 64), true
				for _, p := range []**string{&c.EntryID, &c.Role} {
					if *p != nil {
						v := boundString(**p, 64)
						*p = &v
					}
				}
			}
		}
		return
	}
	if s := h.Session; s != nil {
		s.Cwd = boundString(s.Cwd, 64)
		s.SessionID = boundString(s.SessionID, 64)
	}
}
