package lexicon

import (
	"fmt"
	"unsafe"

	"github.com/memidx/memidx/internal/blocksum"
	"github.com/memidx/memidx/internal/strsort"
)

// BuildGathered writes the same sealed segment as BuildSorted, gathering
// each key's docs in a map and sorting the distinct keys once. A heap
// merge of a thousand sources (a rebuild's write batch) compares each key
// some twenty times; a batch's sessions share most of their words, so the
// distinct keys are a fraction of all of them.
func BuildGathered(srcs []Source) ([]byte, error) {
	return Gather(srcs).Seal(srcs)
}

// Gathered is a segment's keys gathered and sorted before its sessions
// have doc numbers: most of BuildGathered's work, which a writer does
// before its write transaction, where the docs are numbered (Seal). It
// holds its own copy of every distinct key, none of the sources'.
type Gathered struct {
	g     *gathering
	order []int32
	n     int // sources
}

// Gather gathers the keys of srcs, whose Doc it ignores: the docs are
// given to Seal.
func Gather(srcs []Source) *Gathered {
	g := newGathering(srcs)
	order := g.sortedKeys()
	g.ids, g.last = nil, nil // Seal follows the chains only
	return &Gathered{g: g, order: order, n: len(srcs)}
}

// Seal writes the sealed segment with numbered[i].Doc the doc of the i-th
// source given to Gather (only the docs are read: their keys may be gone);
// the docs must increase, as the postings do.
func (gd *Gathered) Seal(numbered []Source) ([]byte, error) {
	if len(numbered) != gd.n {
		return nil, fmt.Errorf("lexicon: %d docs for %d gathered sessions", len(numbered), gd.n)
	}
	for i := 1; i < len(numbered); i++ {
		if numbered[i].Doc <= numbered[i-1].Doc {
			return nil, fmt.Errorf("lexicon: docs %d, %d do not increase", numbered[i-1].Doc, numbered[i].Doc)
		}
	}
	g := gd.g
	var w segmentWriter
	for _, k := range gd.order {
		for o := g.first[k]; o >= 0; o = g.next[o] {
			w.docs = append(w.docs, numbered[g.src[o]].Doc)
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
	first []int32  // by key: its first occurrence
	last  []int32  // by key: its last occurrence
	src   []uint32 // by occurrence: its source's position
	next  []int32  // by occurrence: the key's next one, -1 for none
}

// newGathering gathers srcs, each occurrence by its source's position.
func newGathering(srcs []Source) *gathering {
	total := 0
	for _, s := range srcs {
		total += s.Len
	}
	g := &gathering{ids: make(map[string]int32, total/4), src: make([]uint32, 0, total), next: make([]int32, 0, total)}
	for n, s := range srcs {
		for i := range s.Len {
			g.add(s.Key(i), uint32(n))
		}
	}
	return g
}

func (g *gathering) add(key []byte, src uint32) {
	o := int32(len(g.src))
	g.src = append(g.src, src)
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
func (g *gathering) sortedKeys() []int32 { return strsort.Order(g.keys) }
