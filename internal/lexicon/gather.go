package lexicon

import (
	"fmt"
	"slices"
	"sync"
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
	gd := new(Gatherer).Gather(srcs)
	gd.g.ids = nil // Seal reads the occurrences and counts only
	return gd
}

// A Gatherer gathers one segment after another with the memory of the
// ones given back (Recycle): a rebuild gathers a segment a write batch,
// a hundred at 100k sessions, and each took its 16 MB afresh (a tenth of
// the rebuild's allocation). Gather and Recycle may be called from
// different goroutines (a writer gathers the next batch while it seals
// the last); the Gatherer keeps at most one gathering's memory besides
// those in use, until it is dropped.
type Gatherer struct {
	mu    sync.Mutex
	spare []*gathering
}

// maxSpareGatherings is how many gatherings a Gatherer keeps unused: a
// writer has one being gathered and one being sealed, and the sealed one
// comes back before the next gather. A second spare only held a batch's
// worth of memory (some 8 MiB of a 2k rebuild's peak RSS) for nothing.
const maxSpareGatherings = 1

// Gather is the package's Gather, with memory given back before.
func (gr *Gatherer) Gather(srcs []Source) *Gathered {
	gr.mu.Lock()
	var g *gathering
	if n := len(gr.spare); n > 0 {
		g, gr.spare = gr.spare[n-1], gr.spare[:n-1]
	}
	gr.mu.Unlock()
	if g == nil {
		g = new(gathering)
	}
	g.gather(srcs)
	return &Gathered{g: g, order: g.sortedKeys(), n: len(srcs)}
}

// Recycle gives back the memory of gd, which must not be used after.
func (gr *Gatherer) Recycle(gd *Gathered) {
	if gd == nil || gd.g == nil || gd.g.ids == nil {
		return // not gathered by a Gatherer
	}
	g := gd.g
	gd.g, gd.order = nil, nil
	gr.mu.Lock()
	defer gr.mu.Unlock()
	if len(gr.spare) < maxSpareGatherings {
		gr.spare = append(gr.spare, g)
	}
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
	// Room for the segment at once, not by doubling: each key's bytes and
	// heads, a byte or two a posting.
	w.out.b = make([]byte, 0, packedHeaderLen+g.keyBytes+4*len(g.keys)+2*len(g.occ))
	// A write numbers its sources one after another: a source's doc is
	// then the first one's plus its position, not looked up.
	first, consecutive := uint32(0), len(numbered) > 0
	if consecutive {
		first = numbered[0].Doc
		consecutive = numbered[len(numbered)-1].Doc-first == uint32(len(numbered)-1)
	}
	// Lay the docs out by key, in the keys' order, in one pass over the
	// occurrences in the sources' order (so each key's docs increase):
	// writes that do not wait on each other, where following each key's
	// chain of occurrences was a load that waited on the one before (1.4
	// of a 100k rebuild's ~30 CPU-seconds).
	pos := slices.Grow(g.pos[:0], len(g.keys))[:len(g.keys)]
	at := int32(0)
	for _, k := range gd.order {
		pos[k] = at
		at += g.count[k]
	}
	docs := slices.Grow(g.docs[:0], len(g.occ))[:len(g.occ)]
	for _, o := range g.occ {
		d := first + o.src
		if !consecutive {
			d = numbered[o.src].Doc
		}
		docs[pos[o.key]] = d
		pos[o.key]++
	}
	g.pos, g.docs = pos, docs
	at = 0
	for _, k := range gd.order {
		end := at + g.count[k]
		w.docs = docs[at:end:end]
		at = end
		key := g.keys[k]
		if err := w.flush(unsafe.Slice(unsafe.StringData(key), len(key))); err != nil {
			return nil, err
		}
	}
	return blocksum.Seal(w.out.Bytes())
}

// gathering lists each distinct key once, with how often it occurs, and
// every occurrence in the sources' order.
type gathering struct {
	ids   map[string]int32
	keys  []string // views of text
	count []int32  // by key: its occurrences
	occ   []occurrence
	// docs and pos are Seal's: the docs by key, and where each key's go.
	docs []uint32
	pos  []int32
	// text holds the keys' bytes in chunks of keyChunk (a longer key in
	// one of its own); used counts the chunks in use, the last with room.
	text [][]byte
	used int
	// keyBytes is the distinct keys' length in all.
	keyBytes int
}

// occurrence is a key's occurrence in a source: the source's position
// and the key.
type occurrence struct {
	src uint32
	key int32
}

const keyChunk = 64 << 10

// gather gathers srcs, each occurrence by its source's position, into g
// (emptied first, its memory kept).
func (g *gathering) gather(srcs []Source) {
	total := 0
	for _, s := range srcs {
		total += s.Len
	}
	if g.ids == nil {
		g.ids = make(map[string]int32, total/4)
	}
	clear(g.ids)
	g.keys, g.count = g.keys[:0], g.count[:0]
	g.occ = slices.Grow(g.occ[:0], total)
	g.used, g.keyBytes = 0, 0
	for n, s := range srcs {
		for i := range s.Len {
			g.add(s.Key(i), uint32(n))
		}
	}
}

func (g *gathering) add(key []byte, src uint32) {
	k, ok := g.ids[string(key)]
	if !ok {
		k = int32(len(g.keys))
		g.keyBytes += len(key)
		s := g.own(key)
		g.ids[s] = k
		g.keys = append(g.keys, s)
		g.count = append(g.count, 0)
	}
	g.count[k]++
	g.occ = append(g.occ, occurrence{src: src, key: k})
}

// own returns a copy of key in g's text, which stays where it is until
// the next gather.
func (g *gathering) own(key []byte) string {
	if len(key) == 0 {
		return ""
	}
	if len(key) > keyChunk/4 {
		return string(key)
	}
	if g.used == 0 || cap(g.text[g.used-1])-len(g.text[g.used-1]) < len(key) {
		if g.used == len(g.text) {
			g.text = append(g.text, make([]byte, 0, keyChunk))
		}
		g.text[g.used] = g.text[g.used][:0]
		g.used++
	}
	c := &g.text[g.used-1]
	at := len(*c)
	*c = append(*c, key...)
	return unsafe.String(&(*c)[at], len(key))
}

// sortedKeys returns the keys' indexes in increasing byte order.
func (g *gathering) sortedKeys() []int32 { return strsort.Order(g.keys) }
