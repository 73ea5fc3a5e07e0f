package normalize

import "unsafe"

// Scratch is memory Session reuses from one call to the next: the
// entries' array and the bytes of their longest texts (tool output and
// assistant messages, most of a session's bytes). A rebuild normalizes
// every session of an archive, and allocating both afresh was a quarter
// of its allocation. A caller that passes one (Options.Scratch) must be
// done with a Result, and every string of its entries, before the next
// Session with the same Scratch, which writes over them: a build whose
// tier builder copies what it keeps (coldvocab.Builder). The zero
// Scratch is ready to use; it is not safe for concurrent use.
type Scratch struct {
	entries []Entry
	text    textArena
}

// A Scratch keeps an entries' array of at most maxScratchEntries and
// texts of at most maxArenaChunks chunks of textChunk: a long session
// does not pin its memory for the sessions after it.
const (
	maxScratchEntries = 4096
	textChunk         = 256 << 10
	maxArenaChunks    = 16
)

// take returns the entries' array for a session of about n entries,
// emptied of the last one's.
func (s *Scratch) take(n int) []Entry {
	clear(s.entries) // nothing of the last session stays reachable
	s.text.reset()
	if cap(s.entries) < n {
		return make([]Entry, 0, n)
	}
	return s.entries[:0]
}

// give keeps the array of entries for the next session.
func (s *Scratch) give(entries []Entry) {
	if cap(entries) > maxScratchEntries {
		entries = nil
	}
	s.entries = entries
}

// textArena holds texts back to back in chunks it reuses. A text is
// appended to what start returns, then kept: it stays in the arena when
// it fit where start put it (else append moved it to memory of its own).
// Only one text is built at a time. A nil arena gives every text memory
// of its own.
type textArena struct {
	chunks [][]byte
	cur    int
}

func (a *textArena) reset() {
	for i := range a.chunks {
		a.chunks[i] = a.chunks[i][:0]
	}
	a.cur = 0
}

// start returns an empty slice to append a text of about hint bytes to.
func (a *textArena) start(hint int) []byte {
	if a == nil || hint > textChunk/4 {
		return make([]byte, 0, hint)
	}
	if len(a.chunks) == 0 {
		a.chunks = append(a.chunks, make([]byte, 0, textChunk))
	}
	if c := a.chunks[a.cur]; cap(c)-len(c) < max(hint, 64) {
		if a.cur+1 == len(a.chunks) {
			if len(a.chunks) == maxArenaChunks {
				return make([]byte, 0, hint)
			}
			a.chunks = append(a.chunks, make([]byte, 0, textChunk))
		}
		a.cur++
	}
	c := a.chunks[a.cur]
	return c[len(c):len(c):cap(c)]
}

// keep returns b, a text appended to what start returned, as a string,
// and keeps its bytes in the arena if they are where start put them.
func (a *textArena) keep(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if a != nil && len(a.chunks) > 0 {
		c := a.chunks[a.cur]
		if len(c)+len(b) <= cap(c) && unsafe.SliceData(c[len(c):cap(c)]) == unsafe.SliceData(b) {
			a.chunks[a.cur] = c[:len(c)+len(b)]
		}
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}
