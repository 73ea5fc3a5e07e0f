package lexicon

import (
	"slices"
	"strings"
	"unsafe"

	"github.com/memidx/memidx/internal/blocksum"
)

// BuildGathered writes the same sealed segment as BuildSorted, gathering
// each key's docs in a map and sorting the distinct keys once. A heap
// merge of a thousand sources (a rebuild's write batch) compares each key
// some twenty times; a batch's sessions share most of their words, so the
// distinct keys are a fraction of all of them.
func BuildGathered(srcs []Source) ([]byte, error) {
	g := newGathering(srcs)
	var w segmentWriter
	for _, k := range g.sortedKeys() {
		for o := g.first[k]; o >= 0; o = g.next[o] {
			w.docs = append(w.docs, g.doc[o])
		}
		key := g.keys[k]
		if err := w.flush(unsafe.Slice(unsafe.StringData(key), len(key))); err != nil {
			return nil, err
		}
	}
	return blocksum.Seal(w.out.Bytes())
}

// gathering lists each distinct key once, with its docs as a chain of
// occurrences (first, next), in the sources' order.
type gathering struct {
	ids   map[string]int32
	keys  []string
	first []int32 // by key: its first occurrence
	last  []int32 // by key: its last occurrence
	doc   []uint32
	next  []int32 // by occurrence: the key's next one, -1 for none
}

func newGathering(srcs []Source) *gathering {
	total := 0
	for _, s := range srcs {
		total += s.Len
	}
	g := &gathering{ids: make(map[string]int32, total/4), doc: make([]uint32, 0, total), next: make([]int32, 0, total)}
	for _, s := range srcs {
		for i := range s.Len {
			g.add(s.Key(i), s.Doc)
		}
	}
	return g
}

func (g *gathering) add(key []byte, doc uint32) {
	o := int32(len(g.doc))
	g.doc = append(g.doc, doc)
	g.next = append(g.next, -1)
	k, ok := g.ids[string(key)]
	if !ok {
		k = int32(len(g.keys))
		s := string(key)
		g.ids[s] = k
		g.keys = append(g.keys, s)
		g.first = append(g.first, o)
		g.last = append(g.last, o)
		return
	}
	g.next[g.last[k]] = o
	g.last[k] = o
}

// sortedKeys returns the keys' indexes in increasing byte order.
func (g *gathering) sortedKeys() []int32 {
	order := make([]int32, len(g.keys))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(g.keys[a], g.keys[b]) })
	return order
}
