package normalize

import (
	"strings"
	"unsafe"
)

// The small fields of an entry (ids, role, tool, timestamp) used to cost a
// heap object each: a dozen allocations per entry, a third of the read
// path's allocations and so of its garbage collections. The normalizer now
// carves them from chunks it owns, and shares the pointers of values that
// repeat (roles, tool names, outcomes). Nothing writes through an entry's
// pointers, so sharing them is safe; every string is still a copy that does
// not pin the session file.

// slabMax is the largest chunk of pointers or bytes the normalizer carves
// small fields from. Chunks start small so that normalizing one entry (the
// slim reader's expansion) stays cheap.
const (
	slabMax  = 256
	arenaMax = 4096
)

// allocs are the normalizer's chunks.
type allocs struct {
	strs   []string
	floats []float64
	bytes  []byte
	// shared holds one pointer per distinct role or tool name, and tools
	// the pointers of nativeTool's fields, by tool name.
	shared map[string]*string
	tools  map[string]toolPtrs
}

type toolPtrs struct{ name, ref *string }

// Shared pointers to constant values.
var (
	providerOMP = "omp"
	outcomes    = map[string]*string{}
)

func init() {
	for _, o := range []string{Succeeded, Failed, Aborted, TimedOut} {
		outcomes[o] = str(o)
	}
}

// outcome returns the shared pointer to one of the outcome constants.
func outcome(o string) *string { return outcomes[o] }

// ptr returns a pointer to a copy of the string header s, from a chunk.
func (a *allocs) ptr(s string) *string {
	if len(a.strs) == cap(a.strs) {
		a.strs = make([]string, 0, min(max(2*cap(a.strs), 16), slabMax))
	}
	a.strs = append(a.strs, s)
	return &a.strs[len(a.strs)-1]
}

// float returns a pointer to f, from a chunk.
func (a *allocs) float(f float64) *float64 {
	if len(a.floats) == cap(a.floats) {
		a.floats = make([]float64, 0, min(max(2*cap(a.floats), 16), slabMax))
	}
	a.floats = append(a.floats, f)
	return &a.floats[len(a.floats)-1]
}

// clone copies s into a chunk: strings.Clone without an allocation per
// string for the short ones (ids, names).
func (a *allocs) clone(s string) string {
	if len(s) == 0 {
		return ""
	}
	if len(s) > arenaMax/16 {
		return strings.Clone(s)
	}
	if cap(a.bytes)-len(a.bytes) < len(s) {
		a.bytes = make([]byte, 0, min(max(2*cap(a.bytes), 256), arenaMax))
	}
	l := len(a.bytes)
	a.bytes = append(a.bytes, s...)
	// The chunk is only ever appended to: these bytes never change.
	return unsafe.String(&a.bytes[l], len(s))
}

// copyPtr is str(strings.Clone(s)) from the chunks.
func (a *allocs) copyPtr(s string) *string { return a.ptr(a.clone(s)) }

// optCopy is copyPtr, or nil for "".
func (a *allocs) optCopy(s string) *string {
	if s == "" {
		return nil
	}
	return a.copyPtr(s)
}

// share returns the normalizer's one pointer to a copy of s, for values
// that repeat from entry to entry (roles, tool names).
func (a *allocs) share(s string) *string {
	if p, ok := a.shared[s]; ok {
		return p
	}
	if a.shared == nil {
		a.shared = make(map[string]*string)
	}
	p := a.copyPtr(s)
	a.shared[*p] = p
	return p
}

// optShare is share, or nil for "".
func (a *allocs) optShare(s string) *string {
	if s == "" {
		return nil
	}
	return a.share(s)
}

// tool returns the shared pointers to a tool's name and to its reference,
// "omp." + name.
func (a *allocs) tool(name string) toolPtrs {
	if t, ok := a.tools[name]; ok {
		return t
	}
	if a.tools == nil {
		a.tools = make(map[string]toolPtrs)
	}
	t := toolPtrs{name: a.share(name), ref: a.copyPtr("omp." + name)}
	a.tools[*t.name] = t
	return t
}
