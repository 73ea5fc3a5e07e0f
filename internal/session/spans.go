package session

import "os"

// SpanReader reads byte spans of a session file a block ahead, so that
// spans taken in file order (a slim read's records, an entry selection)
// read the file sequentially.
type SpanReader struct {
	f   *os.File
	buf []byte
	off int64 // the file offset of buf[0]
}

// spanAhead is the block a SpanReader reads at once.
const spanAhead = 256 << 10

// NewSpanReader returns a reader of f's spans.
func NewSpanReader(f *os.File) *SpanReader { return &SpanReader{f: f} }

// Read returns the bytes [off, end) of the file, valid until the next
// Read; ok is false when the file no longer holds them (it was cut since
// the spans were taken).
func (r *SpanReader) Read(off, end int64) (b []byte, ok bool) {
	if off < r.off || end > r.off+int64(len(r.buf)) {
		n := max(spanAhead, int(end-off))
		if cap(r.buf) < n {
			r.buf = make([]byte, n)
		}
		m, _ := r.f.ReadAt(r.buf[:n], off)
		r.buf, r.off = r.buf[:m], off
		if end > off+int64(m) {
			return nil, false
		}
	}
	return r.buf[off-r.off : end-r.off], true
}
