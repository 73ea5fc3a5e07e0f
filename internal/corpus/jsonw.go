package corpus

import (
	"strconv"

	"github.com/memidx/memidx/internal/jsjson"
)

// jw appends JSON to a byte slice in exactly the form JSON.stringify writes:
// keys in the order they are written (insertion order, as OMP's objects
// have), strings quoted by [jsjson.AppendString], numbers formatted by
// [jsjson.FormatNumber]. It tracks commas itself, so callers write keys and
// values in order and never punctuation.
type jw struct {
	b []byte
	// comma[i] reports whether the container at depth i already holds a
	// member, so the next one needs a separating comma.
	comma []bool
	// afterKey is set between a key and its value.
	afterKey bool
}

func (w *jw) reset() {
	w.b = w.b[:0]
	w.comma = w.comma[:0]
	w.afterKey = false
}

// sep writes the comma that precedes a new member or item, if one is due.
func (w *jw) sep() {
	if w.afterKey {
		w.afterKey = false
		return
	}
	if n := len(w.comma); n > 0 {
		if w.comma[n-1] {
			w.b = append(w.b, ',')
		}
		w.comma[n-1] = true
	}
}

func (w *jw) obj() {
	w.sep()
	w.b = append(w.b, '{')
	w.comma = append(w.comma, false)
}

func (w *jw) arr() {
	w.sep()
	w.b = append(w.b, '[')
	w.comma = append(w.comma, false)
}

func (w *jw) endObj() {
	w.b = append(w.b, '}')
	w.comma = w.comma[:len(w.comma)-1]
}

func (w *jw) endArr() {
	w.b = append(w.b, ']')
	w.comma = w.comma[:len(w.comma)-1]
}

// key writes an object key; the next value call writes its value.
func (w *jw) key(k string) {
	w.sep()
	w.b = jsjson.AppendString(w.b, k)
	w.b = append(w.b, ':')
	w.afterKey = true
}

func (w *jw) str(s string) {
	w.sep()
	w.b = jsjson.AppendString(w.b, s)
}

// strBytes writes b as a JSON string.
func (w *jw) strBytes(b []byte) {
	w.str(string(b))
}

func (w *jw) int(i int64) {
	w.sep()
	w.b = strconv.AppendInt(w.b, i, 10)
}

func (w *jw) num(f float64) {
	w.sep()
	w.b = jsjson.AppendNumber(w.b, f)
}

func (w *jw) bool(v bool) {
	w.sep()
	w.b = strconv.AppendBool(w.b, v)
}

func (w *jw) null() {
	w.sep()
	w.b = append(w.b, "null"...)
}

func (w *jw) kstr(k, v string) { w.key(k); w.str(v) }

// textPart writes one text content part, {"type":"text","text":s}.
func (w *jw) textPart(s []byte) {
	w.obj()
	w.kstr("type", "text")
	w.key("text")
	w.strBytes(s)
	w.endObj()
}

// textParts writes content made of one text part.
func (w *jw) textParts(s []byte) {
	w.arr()
	w.textPart(s)
	w.endArr()
}
func (w *jw) kint(k string, v int64) { w.key(k); w.int(v) }
func (w *jw) knum(k string, v float64) {
	w.key(k)
	w.num(v)
}
func (w *jw) kbool(k string, v bool) { w.key(k); w.bool(v) }

// kstrOrNull writes v, or null when v is empty.
func (w *jw) kstrOrNull(k, v string) {
	w.key(k)
	if v == "" {
		w.null()
		return
	}
	w.str(v)
}

// kstrs writes an array of strings.
func (w *jw) kstrs(k string, vs []string) {
	w.key(k)
	w.arr()
	for _, v := range vs {
		w.str(v)
	}
	w.endArr()
}
