package search

import (
	"errors"
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/index"
)

// Cold sessions through the archive lexicon: instead of opening every cold
// digest to ask whether it holds a term, a query reads its terms' (and
// structural filter keys') postings once. A cold session whose membership
// the postings settle becomes a source without a digest; only the sessions
// that can match and whose entries a filter must count are opened.

// lexiconCold turns the cold records of a query into sources, and returns
// the records whose digests must still be opened; entries is the sum of
// the records' EntryCount. ok is false when the lexicon cannot answer for
// them (none, damaged, merged since the records were read, a regex query,
// a record without a doc): then every digest is opened, as without a
// lexicon. It costs what the query's postings cost: a record that no
// posting names is ruled out without being looked at, unless the plan
// matches a session without any of its terms (browsing).
func (s *Searcher) lexiconCold(rd *index.Reader, epoch index.LexiconEpoch, colds []*index.Record, entries float64) (open []*index.Record, ok bool) {
	if len(colds) == 0 || s.plan.Kind == PlanRegex || s.NoLexicon {
		return colds, false
	}
	lex := s.lexicon(rd, epoch)
	if lex == nil {
		return colds, false
	}
	at, ok := s.docs.of(colds)
	if !ok {
		return colds, false
	}
	if s.bitsApply(rd) {
		return nil, s.bitsCold(lex, at, colds, entries)
	}
	terms := s.plan.Terms
	if s.plan.Kind == PlanBrowse {
		terms = nil
	}
	named, held, ok := s.nameColds(lex, at, len(colds), terms)
	if !ok {
		return colds, false
	}
	look := named.order(len(colds), len(s.filt.Keys) == 0 && s.termsMayMatch(make([]bool, named.nt)))
	filtered := s.filt.any()
	// Every cold record counts in the statistics through unopened but
	// the ones opened, which count as sources.
	s.unopened = unopened{entries: entries, df: held}
	bulk := &settled{colds: colds, named: named, idx: named.idx[:0], masks: named.idxMasks[:0]}
	for _, i := range look {
		m, keys := named.maskOf(i) // of at most 64 terms
		switch {
		case keys != len(s.filt.Keys) || !s.namedMayMatch(named, i, m):
			// Ruled out.
		case filtered || !rd.Current(colds[i]):
			bits := named.has(i, m)
			// Only its digest can count the entries that pass a filter;
			// and a candidate another process rewrote since the refresh
			// is opened too, so that its stamp sends it to be read from
			// source.
			open = append(open, colds[i])
			s.unopened.remove(colds[i], bits)
			// Which terms it holds is known: its vocabulary need not be
			// decoded (the digest is opened for its addresses).
			if s.openHas == nil {
				s.openHas = map[*index.Record][]bool{}
			}
			s.openHas[colds[i]] = bits
		case named.nt > 64:
			// Too many terms for a settled group's mask (see settled).
			bits := named.has(i, m)
			s.unopened.remove(colds[i], bits)
			s.Cold = append(s.Cold, ColdSource{Rec: colds[i], Has: bits})
		default:
			bulk.idx = append(bulk.idx, int32(i))
			bulk.masks = append(bulk.masks, m)
		}
	}
	named.idx, named.idxMasks = bulk.idx, bulk.masks // for the pool
	s.settled = bulk
	s.LexiconAnswered = true
	return open, true
}

// nameColds reads the postings of terms and of the filter keys, and
// returns the cold records (of n, indexed by at) they name, with what each
// holds, and how many hold each term. ok is false when the lexicon turned
// out damaged.
func (s *Searcher) nameColds(lex *index.Lexicon, at docIndex, n int, terms []string) (named *namedColds, held []float64, ok bool) {
	// holders calls fn with the index of every cold record that holds
	// key, or the plan's term t when key is "" (those lists are kept for
	// the search; a key's is read into a buffer of its own).
	var keyDocs []uint32
	holders := func(key string, t int, fn func(i int)) bool {
		var docs []uint32
		var err error
		if key == "" {
			docs, err = s.termDocs(lex, t)
		} else {
			keyDocs, err = lex.Docs(keyDocs[:0], key)
			docs = keyDocs
		}
		if err != nil {
			s.lexiconFailed(err)
			return false
		}
		for _, d := range docs {
			if i := at.of(d); i >= 0 {
				fn(i)
			}
		}
		return true
	}
	// The terms' postings bound how many records they name, often
	// closely: size the tables once.
	most := 0
	for t := range terms {
		docs, err := s.termDocs(lex, t)
		if err != nil {
			s.lexiconFailed(err)
			return nil, nil, false
		}
		most = max(most, len(docs))
	}
	// A term that names a good part of the records is set in place, by
	// record (namedColds.masks); a rare one takes a place in named.
	dense := len(terms) <= 64 && len(s.filt.Keys) == 0 && most >= n/denseShare
	named = newNamedColds(n, len(terms), dense)
	held = make([]float64, len(terms))
	if named.masks != nil {
		for t := range terms {
			bit := uint64(1) << t
			if !holders("", t, func(i int) {
				if m := &named.masks[i]; *m&bit == 0 {
					*m |= bit
					held[t]++
				}
			}) {
				return nil, nil, false
			}
		}
		return named, held, true
	}
	named.grow(min(most, n))
	for t := range terms {
		if !holders("", t, func(i int) {
			if k := named.touch(i)*named.nt + t; !named.bits[k] {
				named.bits[k] = true
				held[t]++
			}
		}) {
			return nil, nil, false
		}
	}
	for _, k := range s.filt.Keys {
		if !holders(k, -1, func(i int) { named.keys[named.touch(i)]++ }) {
			return nil, nil, false
		}
	}
	return named, held, true
}

// lexicon opens the archive lexicon once per search; nil when it cannot
// answer for records of epoch (none, damaged, merged since).
func (s *Searcher) lexicon(rd *index.Reader, epoch index.LexiconEpoch) *index.Lexicon {
	lex := s.anyLexicon(rd)
	if lex == nil || lex.Epoch != epoch {
		return nil
	}
	return lex
}

// anyLexicon opens the archive lexicon once per search, whatever its
// epoch; nil when there is none or it is damaged.
func (s *Searcher) anyLexicon(rd *index.Reader) *index.Lexicon {
	if !s.lex.opened {
		s.lex.opened = true
		lex, err := rd.Lexicon()
		if err != nil || lex == nil {
			s.lexiconFailed(err)
			return nil
		}
		s.lex.lex = lex
		s.lex.id = lex.Identity()
		s.lex.docs = make([][]uint32, len(s.plan.Terms))
	}
	return s.lex.lex
}

// lexLookup is what a search read of the archive lexicon: each query
// term's postings are decoded once, for the hot and the cold pass.
type lexLookup struct {
	opened bool
	lex    *index.Lexicon
	id     string     // lex.Identity(): what the memo keeps is of it
	docs   [][]uint32 // per plan term, nil until read
}

// docsPool keeps the buffers of terms' postings between queries.
var docsPool sync.Pool

// release gives the postings buffers back; nothing reads them after the
// sources are made.
func (l *lexLookup) release() {
	l.lex.Release()
	l.lex = nil
	for i, d := range l.docs {
		if d != nil {
			d = d[:0]
			docsPool.Put(&d)
			l.docs[i] = nil
		}
	}
}

// termDocs returns the docs of the plan's term t.
func (s *Searcher) termDocs(lex *index.Lexicon, t int) ([]uint32, error) {
	if s.lex.docs[t] != nil {
		return s.lex.docs[t], nil
	}
	buf, _ := docsPool.Get().(*[]uint32)
	if buf == nil {
		buf = new([]uint32)
	}
	docs, err := lex.Docs((*buf)[:0], s.plan.Terms[t])
	if lex.StemScanCut {
		s.Reasons.Add(coverage.MaxStemScan)
	}
	if err == nil {
		if docs == nil {
			docs = []uint32{} // read, and empty
		}
		s.lex.docs[t] = docs
	}
	return docs, err
}

// hotTerms returns, for a hot record, which of the query's terms its
// shard holds (bit t), by the lexicon; known is false when only its shard
// can tell. A record whose shard holds none of them can be left unopened:
// no entry of it can match, and it counts only in the statistics, from
// its record. It returns nil when every hot shard must be opened and
// looked up: a query with a filter (the lexicon keeps no hot filter keys),
// without terms (browsing, a regex) or with more than 64, or no usable
// lexicon. A record without a doc (written before hot shards joined the
// lexicon) is never known.
func (s *Searcher) hotTerms(rd *index.Reader, epoch index.LexiconEpoch, hots []*index.Record) func(*index.Record) (held uint64, known bool) {
	nt := len(s.plan.Terms)
	if s.NoLexicon || s.filt.any() || (s.plan.Kind != PlanTerms && s.plan.Kind != PlanPhrase) || nt == 0 || nt > 64 {
		return nil
	}
	held := s.spare.held
	if held == nil {
		held = make(map[uint32]uint64, len(hots))
		s.spare.held = held
	}
	clear(held)
	lo, hi := uint32(math.MaxUint32), uint32(0)
	for _, rec := range hots {
		if rec.Doc != 0 {
			held[rec.Doc] = 0
			lo, hi = min(lo, rec.Doc), max(hi, rec.Doc)
		}
	}
	if len(held) == 0 {
		return nil
	}
	lex := s.lexicon(rd, epoch)
	if lex == nil {
		return nil
	}
	for t, term := range s.plan.Terms {
		if byDoc := s.docs.docBits(s.lex.id, term); byDoc != nil {
			// A common term: look up the few hot docs in its bitmap
			// rather than walk its postings.
			for d, m := range held {
				if hasBit(byDoc, int(d)) {
					held[d] = m | 1<<t
				}
			}
			continue
		}
		docs, err := s.termDocs(lex, t)
		if err != nil {
			s.lexiconFailed(err)
			return nil
		}
		for _, d := range docs {
			if d < lo || d > hi {
				continue // hot docs are the newest: most fall here
			}
			if m, ok := held[d]; ok {
				held[d] = m | 1<<t
			}
		}
	}
	return func(rec *index.Record) (uint64, bool) {
		m, ok := held[rec.Doc]
		return m, ok
	}
}

// unopenedHot sums the hot sessions openHot left unopened (hotTerms
// proved they hold none of the query's terms), for the corpus statistics:
// their entries and token counts, as their shards would.
type unopenedHot struct {
	entries, sumLen float64
}

func (u *unopenedHot) add(rec *index.Record) {
	u.entries += float64(rec.EntryCount)
	u.sumLen += float64(rec.SumLen)
}

// unopened sums what the corpus statistics need of the cold sessions
// whose digests this query does not open (the lexicon ruled them out, or
// settled them as candidates): their entries, and per query term how many
// hold it. Their scores and statistics are then the same as if each
// digest had been opened.
type unopened struct {
	entries float64
	df      []float64
}

// remove takes rec, which holds the terms marked in has, out of the sums:
// it becomes a source of its own.
func (u *unopened) remove(rec *index.Record, has []bool) {
	u.entries -= float64(rec.EntryCount)
	for t, h := range has {
		if h {
			u.df[t]--
		}
	}
}

// settled are the cold sessions the lexicon settled as candidates without
// their digests (no filter to count), in scope order: idx into colds. A
// common term makes nearly every session one, so they become items only
// as far as a page can need them (top).
type settled struct {
	colds []*index.Record
	named *namedColds
	idx   []int32
	masks []uint64 // the terms each holds (bit t), by idx
	// bits, when set, stand for named, idx and masks: the candidates as
	// the terms' bitmaps (termbits.go).
	bits *coldBits
}

// release gives the slots back (see namedColds.release).
func (b *settled) release() {
	switch {
	case b == nil:
	case b.bits != nil:
		b.bits.release()
	default:
		b.named.release()
	}
}

// top appends the best need of the settled candidates to items (their
// sources to s.Cold) and returns how many candidates there are. The
// candidates holding the same terms score the same, and within such a
// group scope order (newest first, then path) is the items' order (less),
// so the first need of each group hold the best need of all.
func (b *settled) top(s *Searcher, need int, items []Item) ([]Item, int) {
	if b == nil {
		return items, 0
	}
	groups, count := b.groups(need)
	// Sized once: a ColdSource is some 250 bytes, and appending from
	// empty allocated twice what a page of two terms' groups needs.
	n := 0
	for _, g := range groups {
		n += len(g.first)
	}
	s.Cold = slices.Grow(s.Cold, n)
	items = slices.Grow(items, n)
	for _, g := range groups {
		for _, i := range g.first {
			rec := b.colds[i]
			bits := b.has(int(i), g.mask)
			it := coldItem(rec, len(s.Cold))
			s.Cold = append(s.Cold, ColdSource{Rec: rec, Has: bits})
			s.scoreHeld(&it, bits) // browsing looks up no terms: bits is empty
			items = append(items, it)
		}
	}
	return items, count
}

// groups returns the first need candidates of each group of candidates
// holding the same terms, in scope order, and how many there are.
func (b *settled) groups(need int) ([]bitGroup, int) {
	if b.bits != nil {
		return b.bits.top(need)
	}
	gs := bitGroups{need: need}
	for j, i := range b.idx {
		gs.add(b.masks[j], int(i))
	}
	return gs.g, len(b.idx)
}

// has is the terms of candidate i, whose mask is m, as a source keeps them.
func (b *settled) has(i int, m uint64) []bool {
	if b.bits != nil {
		return bitsOf(m, len(b.bits.terms))
	}
	return b.named.has(i, m)
}

// bitsOf is the n terms of mask m as bools (maskOf's inverse).
func bitsOf(m uint64, n int) []bool {
	bits := make([]bool, n)
	for t := range bits {
		bits[t] = m&(1<<t) != 0
	}
	return bits
}

func maskOf(bits []bool) uint64 {
	var m uint64
	for t, h := range bits {
		if h {
			m |= 1 << t
		}
	}
	return m
}

// namedColds are the cold records the postings of a query named, with
// the terms (bits) and filter keys (keys) each holds.
type namedColds struct {
	slot    []int32 // a record's place in named + 1, 0 when not named
	named   []int
	bits    []bool // named k holds term t: bits[k*nt+t]
	keys    []int
	nt      int
	nothing []bool // the bits of a record no posting named
	// masks, when not nil, stand for all of the above: the terms each
	// record holds (bit t), by record, for a query of at most 64 terms
	// and no filter key. A common term names most records: a bit set in
	// place costs far less than a place in named and its own bits.
	// maskBuf keeps their array for the next query, cleared.
	masks, maskBuf []uint64
	// idx and idxMasks are the settled candidates' buffers, kept for the
	// next query (see settled).
	idx      []int32
	idxMasks []uint64
}

// namedPool keeps namedColds between queries: for a common term they are
// a query's largest allocations (a slot per cold record, and a place per
// record named), and most of its garbage.
var namedPool sync.Pool

func newNamedColds(n, nt int, dense bool) *namedColds {
	c, _ := namedPool.Get().(*namedColds)
	if c == nil {
		c = &namedColds{}
	}
	c.named, c.bits, c.keys, c.nt, c.nothing, c.masks = c.named[:0], c.bits[:0], c.keys[:0], nt, nil, nil
	if dense {
		if cap(c.maskBuf) < n {
			c.maskBuf = make([]uint64, n)
		}
		c.masks = c.maskBuf[:n] // zero: release cleared it
		return c
	}
	if cap(c.slot) >= n {
		c.slot = c.slot[:n] // zero: release cleared what it set
	} else {
		c.slot = make([]int32, n)
	}
	return c
}

// release zeroes the slots this query set and returns n to the pool; the
// search calls it when it is done with the settled candidates and the cold
// sources (top reads their bits through the slots, and the sources it
// makes share them). A failed lexicon pass just drops n.
func (n *namedColds) release() {
	if n.masks != nil {
		clear(n.masks)
		n.masks = nil
	} else {
		for _, i := range n.named {
			n.slot[i] = 0
		}
	}
	namedPool.Put(n)
}

// denseShare: the query's most common term names at least 1/denseShare of
// the records for them to be named by record (namedColds.masks).
const denseShare = 16

func (n *namedColds) grow(k int) {
	n.named = slices.Grow(n.named, k)
	n.bits = slices.Grow(n.bits, k*n.nt)
	n.keys = slices.Grow(n.keys, k)
}

func (n *namedColds) touch(i int) int {
	if n.slot[i] == 0 {
		n.named = append(n.named, i)
		n.slot[i] = int32(len(n.named))
		n.bits = append(n.bits, make([]bool, n.nt)...)
		n.keys = append(n.keys, 0)
	}
	return int(n.slot[i]) - 1
}

// maskOf is of as a mask (bit t): record i's terms, and its filter keys.
func (n *namedColds) maskOf(i int) (mask uint64, keys int) {
	if n.masks != nil {
		return n.masks[i], 0
	}
	bits, keys := n.of(i)
	return maskOf(bits), keys
}

// has is the terms of record i, whose mask is m, as a source keeps them:
// of's, or a copy of their own.
func (n *namedColds) has(i int, m uint64) []bool {
	if n.masks == nil {
		bits, _ := n.of(i)
		return bits
	}
	return bitsOf(m, n.nt)
}

func (n *namedColds) of(i int) (bits []bool, keys int) {
	k := int(n.slot[i]) - 1
	if k < 0 {
		if n.nothing == nil {
			n.nothing = make([]bool, n.nt)
		}
		return n.nothing, 0
	}
	return n.bits[k*n.nt : (k+1)*n.nt : (k+1)*n.nt], n.keys[k]
}

// order returns the records to look at, in record (scope) order: every
// one when a record no posting named may match, else the named ones.
func (n *namedColds) order(all int, unnamedMatch bool) []int {
	switch {
	case n.masks != nil && !unnamedMatch:
		look := n.named[:0]
		for i, m := range n.masks {
			if m != 0 {
				look = append(look, i)
			}
		}
		n.named = look
		return look
	case unnamedMatch:
		look := make([]int, all)
		for i := range look {
			look[i] = i
		}
		return look
	case len(n.named) < all/16:
		slices.Sort(n.named)
		return n.named
	}
	// A common term names most records: a pass over the slots is cheaper
	// than sorting them.
	look := n.named[:0]
	for i, at := range n.slot {
		if at != 0 {
			look = append(look, i)
		}
	}
	return look
}

// docIndex finds a cold record's position by its lexicon doc number: a
// dense table when the numbers are (they are never reused, so they spread
// out with rebuilds), a map otherwise.
type docIndex struct {
	dense  []int32
	sparse map[uint32]int
}

func (x docIndex) of(doc uint32) int {
	if x.sparse != nil {
		if i, ok := x.sparse[doc]; ok {
			return i
		}
		return -1
	}
	if int64(doc) < int64(len(x.dense)) {
		return int(x.dense[doc])
	}
	return -1
}

// DocMemo keeps the doc index of the last cold records it indexed: a quiet
// archive's cold records are the same slice call after call (index.Split),
// which nobody changes.
type DocMemo struct {
	mu    sync.Mutex
	colds []*index.Record
	at    docIndex
	ok    bool
	// gen counts the changes of the memo's cold-record slice; terms are
	// common terms' bitmaps read from the lexicon lexID (termbits.go).
	gen   uint64
	lexID string
	terms map[string]*termBits
}

func (m *DocMemo) of(colds []*index.Record) (docIndex, bool) {
	if m == nil {
		return indexByDoc(colds)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !sameRecords(m.colds, colds) {
		m.at, m.ok = indexByDoc(colds)
		m.colds = colds
		m.gen++ // the terms' cold bitmaps are of the records before
	}
	return m.at, m.ok
}

// docsDense reports whether a table over doc numbers up to top is worth
// having for n sessions: doc numbers only grow, and an old index's
// highest can be many times its sessions.
func docsDense(top uint32, n int) bool { return int64(top) <= 4*int64(n)+4096 }

// indexByDoc indexes colds by doc; ok is false when one has none.
func indexByDoc(colds []*index.Record) (docIndex, bool) {
	var top uint32
	for _, rec := range colds {
		if rec.Doc == 0 {
			return docIndex{}, false
		}
		top = max(top, rec.Doc)
	}
	if !docsDense(top, len(colds)) {
		m := make(map[uint32]int, len(colds))
		for i, rec := range colds {
			m[rec.Doc] = i
		}
		return docIndex{sparse: m}, true
	}
	dense := make([]int32, int(top)+1)
	for i := range dense {
		dense[i] = -1
	}
	for i, rec := range colds {
		dense[rec.Doc] = int32(i)
	}
	return docIndex{dense: dense}, true
}

// termsMayMatch reports whether a session holding the terms marked in has
// can be a candidate of the plan.
// namedMayMatch is termsMayMatch of named record i, whose mask is m.
func (s *Searcher) namedMayMatch(named *namedColds, i int, m uint64) bool {
	if named.nt > 64 {
		return s.termsMayMatch(named.has(i, m))
	}
	return s.termsMayMatchMask(m, named.nt)
}

// termsMayMatchMask is termsMayMatch of the nt terms marked in mask.
func (s *Searcher) termsMayMatchMask(mask uint64, nt int) bool {
	if s.plan.Kind == PlanBrowse {
		return true
	}
	n := bits.OnesCount64(mask)
	if s.plan.All || s.plan.Kind == PlanPhrase {
		return n == nt
	}
	return n > 0
}

func (s *Searcher) termsMayMatch(has []bool) bool {
	if s.plan.Kind == PlanBrowse {
		return true
	}
	n := 0
	for _, h := range has {
		if h {
			n++
		}
	}
	if s.plan.All || s.plan.Kind == PlanPhrase {
		return n == len(has)
	}
	return n > 0
}

// lexiconFailed notes a damaged lexicon: this answer comes from the
// digests, and the lexicon is dropped after the search so that the next
// refresh rebuilds it (the page says index_reset).
func (s *Searcher) lexiconFailed(err error) {
	if errors.Is(err, index.ErrLexiconDamaged) {
		s.LexDamaged = true
		s.Reasons.Add(index.IndexReset)
	}
}
