package coldvocab

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"unsafe"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/memidx/memidx/internal/blocksum"
	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/frontcode"
	"github.com/memidx/memidx/internal/indexfile"
	"github.com/memidx/memidx/internal/normalize"
	"github.com/memidx/memidx/internal/strsort"
	"github.com/memidx/memidx/internal/termtab"
)

// Address-table keys beyond the structural ones shared with the hot tier.
const (
	keyTimestamps = "\x01ts"
	keyEntryID    = "\x02"
	keyOperation  = "\x03"
)

// MaxFilesTouched bounds the digest's filesTouched list (metadata only:
// reaching it does not make lexical coverage incomplete).
const MaxFilesTouched = 50

// IndexCoverage is the digest's own coverage.
type IndexCoverage struct {
	Complete        bool     `msgpack:"complete" json:"complete"`
	VocabularyBytes int      `msgpack:"vocabularyBytes" json:"vocabularyBytes"`
	Reasons         []string `msgpack:"reasons" json:"reasons"`
	// VocabularyCut is true when construction stopped at
	// maxColdVocabularyBytes: any term may be missing.
	VocabularyCut bool `msgpack:"vocabularyCut,omitempty" json:"vocabularyCut,omitempty"`
	// VocabularyLastTerm is set when the cache cap kept a sorted prefix:
	// a term that sorts at or before it is present if and only if it is
	// in the session.
	VocabularyLastTerm *string `msgpack:"vocabularyLastTerm,omitempty" json:"vocabularyLastTerm,omitempty"`
	// AddressCount is how many entries (from the first) the addresses
	// cover; less than entryCount when the cache cap cut them.
	AddressCount int `msgpack:"addressCount" json:"addressCount"`
	// FilesTouchedComplete is false when filesTouched was capped.
	FilesTouchedComplete bool `msgpack:"filesTouchedComplete" json:"filesTouchedComplete"`
}

// Digest is a cold session record. Vocabulary and Addresses must stay the
// first two fields: lookups find them by position.
type Digest struct {
	Vocabulary         []byte         `msgpack:"vocabulary" json:"-"`
	Addresses          []byte         `msgpack:"addresses" json:"-"`
	CacheVersion       int            `msgpack:"cacheVersion" json:"cacheVersion"`
	Kind               string         `msgpack:"kind" json:"kind"`
	SessionID          string         `msgpack:"sessionId" json:"sessionId"`
	File               string         `msgpack:"file" json:"file"`
	Cwd                string         `msgpack:"cwd" json:"cwd"`
	MtimeMs            float64        `msgpack:"mtime" json:"mtime"`
	Size               int64          `msgpack:"size" json:"size"`
	SourceHash         string         `msgpack:"sourceHash" json:"sourceHash"`
	Branches           string         `msgpack:"branches" json:"branches"`
	LineageFingerprint string         `msgpack:"lineageFingerprint" json:"lineageFingerprint"`
	Policy             string         `msgpack:"policy" json:"policy"`
	FirstTs            *float64       `msgpack:"firstTs" json:"firstTs"`
	LastTs             *float64       `msgpack:"lastTs" json:"lastTs"`
	EntryCount         int            `msgpack:"entryCount" json:"entryCount"`
	FilesTouched       []string       `msgpack:"filesTouched" json:"filesTouched"`
	ToolHistogram      map[string]int `msgpack:"toolHistogram" json:"toolHistogram"`
	ErrorCount         int            `msgpack:"errorCount" json:"errorCount"`
	IndexCoverage      IndexCoverage  `msgpack:"indexCoverage" json:"indexCoverage"`
	CacheBytes         int            `msgpack:"cacheBytes" json:"cacheBytes"`
	CacheSourceRatio   float64        `msgpack:"cacheSourceRatio" json:"cacheSourceRatio"`
}

// Limits bound a digest.
type Limits struct {
	MaxVocabularyBytes int
	MaxCacheBytes      int
}

// Build folds the full, untruncated entries of a session into a digest;
// the vocabulary takes the terms of each entry's IndexText, so the rest of
// a tool call's arguments that the display cuts is found too.
// The identity fields (SessionID, File, …, Policy) are taken from id;
// normalization problems are merged into the coverage. The result's encoded
// size never exceeds lim.MaxCacheBytes; ok is false when even an empty
// digest does not fit (the caller then keeps no record).
func Build(id Digest, entries []normalize.Entry, problems coverage.Set, lim Limits) (blob []byte, d *Digest, err error) {
	b := NewBuilder(id, lim)
	for i := range entries {
		b.Add(&entries[i])
	}
	return b.Finish(problems)
}

// Builder folds entries into a digest one at a time, keeping what the
// digest can hold, not the entries: the vocabulary (bounded by
// MaxVocabularyBytes), the counts, and the structural addresses of the
// entries that can fit the cache cap, so that a long session's digest is
// built without holding its normalized entries. Build is Add
// over a slice: both give the same bytes.
type Builder struct {
	d        *Digest
	lim      Limits
	terms    *termSet
	estimate int
	cut      bool
	files    []string
	// addrs are the addresses of the first entries, as many as can fit
	// the cache cap; n counts every entry.
	addrs   []addrEntry
	maxAddr int
	intern  map[string]string
	n       int
	// packedLen is the length of the encoding of the first packedN
	// terms (-1: none counted).
	packedLen, packedN int
	// kept is the vocabulary Complete counted (Terms).
	kept *frontcode.List
	// keyBuf holds the addresses' keys, each entry's a run of it;
	// keyScratch is where a key is spelled to be looked up in intern.
	keyBuf     []string
	keyScratch []byte
}

// addrEntry is what the address table needs of an entry.
type addrEntry struct {
	keys []string
	id   string
	op   string
	ts   float64
}

// NewBuilder starts a digest with the identity fields of id.
func NewBuilder(id Digest, lim Limits) *Builder {
	d := &id
	d.CacheVersion = indexfile.CacheVersion
	d.Kind = "digest"
	d.ToolHistogram = map[string]int{}
	d.IndexCoverage.FilesTouchedComplete = true
	return &Builder{
		d: d, lim: lim, terms: getTerms(),
		estimate: 2, files: make([]string, 0, 8), intern: map[string]string{}, packedLen: -1,
		// Every address carries an 8-byte timestamp: more than
		// MaxCacheBytes/8 of them can never fit.
		maxAddr: max(lim.MaxCacheBytes, 0)/8 + 1,
	}
}

// Add folds in the next entry. The builder keeps no reference to e.
func (b *Builder) Add(e *normalize.Entry) {
	b.n++
	b.addVocabulary(e)
	d := b.d
	if e.Timestamp != nil {
		ts := *e.Timestamp
		if d.FirstTs == nil || ts < *d.FirstTs {
			d.FirstTs = &ts
		}
		if d.LastTs == nil || ts > *d.LastTs {
			v := ts
			d.LastTs = &v
		}
	}
	if e.IsError {
		d.ErrorCount++
	}
	if e.Tool != nil {
		// e's strings may alias memory its reader reuses, and a map
		// assignment stores the key it is given, even over an equal one:
		// the histogram is always given the builder's own copy.
		d.ToolHistogram[b.own(*e.Tool)]++
	}
	for _, f := range e.FilesTouched {
		f = strings.TrimSpace(f)
		if f == "" || contains(b.files, f) {
			continue
		}
		if len(b.files) >= MaxFilesTouched {
			d.IndexCoverage.FilesTouchedComplete = false
			continue
		}
		b.files = append(b.files, strings.Clone(f))
	}
	if len(b.addrs) < b.maxAddr {
		b.addrs = append(b.addrs, b.addressOf(e))
	}
}

// addVocabulary adds e's terms in first-seen order, bounded by the JSON
// size estimate.
func (b *Builder) addVocabulary(e *normalize.Entry) {
	if b.cut {
		return
	}
	b.terms.tok.Each(e.IndexText(), func(tok string) {
		if b.cut {
			return
		}
		slot, tag, found := b.terms.find(tok)
		if found {
			return
		}
		// Tokens hold only letters, numbers and '_': JSON quotes
		// them without escapes.
		add := len(tok) + 2
		if len(b.terms.list) > 0 {
			add++
		}
		if b.estimate+add > b.lim.MaxVocabularyBytes {
			b.cut = true
			return
		}
		b.estimate += add
		b.terms.addAt(slot, tag, tok)
	})
}

// addressOf copies what the address table needs of e; the structural
// keys, which repeat from entry to entry, are shared.
func (b *Builder) addressOf(e *normalize.Entry) addrEntry {
	a := addrEntry{id: strings.Clone(normalize.Get(e.EntryID)), op: strings.Clone(normalize.Get(e.OperationAddress)), ts: math.NaN()}
	if e.Timestamp != nil {
		a.ts = *e.Timestamp
	}
	// The keys of all entries share one array, and each key is made
	// once a builder: they repeat from entry to entry.
	start := len(b.keyBuf)
	e.EachStructuralKeyPart(func(prefix, v string) {
		// Spelled in the scratch buffer and looked up as a view of it:
		// own copies it only the first time.
		b.keyScratch = append(append(b.keyScratch[:0], prefix...), v...)
		b.keyBuf = append(b.keyBuf, b.own(unsafe.String(unsafe.SliceData(b.keyScratch), len(b.keyScratch))))
	})
	a.keys = b.keyBuf[start:len(b.keyBuf):len(b.keyBuf)]
	return a
}

// own returns the builder's copy of s, made once: structural keys and tool
// names repeat from entry to entry.
func (b *Builder) own(s string) string {
	c, ok := b.intern[s]
	if !ok {
		c = strings.Clone(s)
		b.intern[c] = c
	}
	return c
}

// Finish encodes the digest with the normalization problems merged into
// its coverage. The builder must not be used after.
func (b *Builder) Finish(problems coverage.Set) (blob []byte, d *Digest, err error) {
	f, err := b.Complete(problems)
	if err != nil {
		return nil, nil, err
	}
	return f.Blob()
}

// Finished is a digest whose fields are final and whose size is counted
// (CacheBytes), but whose whole blob is not encoded until Blob asks for
// it: an index stores the Stored form, and only an answer made from
// memory reads the whole one. Encoding every digest of a rebuild only to
// count its bytes was a twelfth of its allocation.
type Finished struct {
	d     *Digest // Vocabulary and Addresses nil: they are terms and addrs
	terms *frontcode.List
	addrs addrPlan
	size  int // the sealed blob's length
}

// Complete is Finish without the encoding: the digest as Finish would
// encode it, the same bytes when Blob does. The builder must not be used
// after.
func (b *Builder) Complete(problems coverage.Set) (*Finished, error) {
	d := b.d
	d.EntryCount = b.n
	reasons := problems
	if b.cut {
		reasons.Add(coverage.MaxColdVocabularyBytes)
		d.IndexCoverage.VocabularyCut = true
	}
	// The terms go back for the next builder once encoded: nothing
	// returned holds one (sized copies the last).
	defer putTerms(b.terms)
	// In first-seen order: the blob keeps the terms as a set, which a
	// reader sorts. Only a vocabulary cut by the cap, an exact prefix in
	// byte order, sorts them here.
	vocab := b.terms.list
	d.FilesTouched = b.files
	// Fit the cap as the reference does: keep the whole vocabulary and the
	// longest address prefix that fits; only when no address fits, the
	// longest vocabulary prefix.
	// fits keeps what its last fitting probe sized: the search's answer
	// is always that probe.
	var fit struct {
		na, nv int
		f      Finished
	}
	fits := func(na, nv int) bool {
		if na > len(b.addrs) {
			return false // more addresses than the cap can hold
		}
		t := planAddresses(b.addrs[:na])
		c, size, err := d.sized(b.packed(vocab, nv), t.size, na, vocab[:nv], reasons, na < b.n, nv < len(vocab))
		if err != nil || size > b.lim.MaxCacheBytes {
			return false
		}
		fit.na, fit.nv, fit.f = na, nv, Finished{d: c, addrs: t, size: size}
		return true
	}
	na, nv := b.n, len(vocab)
	if !fits(na, nv) {
		na = sort.Search(b.n+1, func(k int) bool { return !fits(k, nv) }) - 1
		if na < 0 {
			na = 0
			strsort.Strings(vocab)
			b.packedLen = -1 // of the terms in their first order
			nv = sort.Search(len(vocab)+1, func(k int) bool { return !fits(0, k) }) - 1
			if nv < 0 {
				return nil, fmt.Errorf("coldvocab: an empty digest is over %d bytes", b.lim.MaxCacheBytes)
			}
		}
	}
	if fit.f.d == nil || fit.na != na || fit.nv != nv {
		return nil, fmt.Errorf("coldvocab: no encoding kept for %d addresses and %d terms", na, nv)
	}
	b.kept = frontcode.ListOf(vocab[:nv])
	fit.f.terms = b.kept
	return &fit.f, nil
}

// Terms is the vocabulary of the digest Complete (or Finish) returned, as
// its blob holds it (a cut vocabulary's prefix), nil before: what a
// reader of the blob would decode (an index's lexicon takes every term of
// a new digest), for a copy instead of a decode. The terms are in no
// particular order (the blob's; a reader's are sorted).
func (b *Builder) Terms() *frontcode.List { return b.kept }

// packed returns the length of the encoding of vocab[:nv]; the cap's
// search over address prefixes asks for the same nv again and again, so
// the last is kept.
func (b *Builder) packed(vocab []string, nv int) int {
	if b.packedLen < 0 || b.packedN != nv {
		b.packedLen, b.packedN = frontcode.SetLen(vocab[:nv]), nv
	}
	return b.packedLen
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Terms is the finished digest's vocabulary (Builder.Terms).
func (f *Finished) Terms() *frontcode.List { return f.terms }

// Digest is the finished digest, its Vocabulary and Addresses nil
// (Blob's digest has them). The caller must not change it.
func (f *Finished) Digest() *Digest { return f.d }

// Size is the length of the sealed blob, as CacheBytes counts it.
func (f *Finished) Size() int { return f.size }

// Blob encodes the whole digest, sealed, and returns it with the digest
// it encodes (Addresses set).
func (f *Finished) Blob() ([]byte, *Digest, error) {
	a, err := f.addrs.termtab()
	if err != nil {
		return nil, nil, err
	}
	c := *f.d
	c.Vocabulary, c.Addresses = f.terms.EncodeSet(), a
	var buf bytes.Buffer
	buf.Grow(f.size)
	// NewEncoder's settings are Marshal's: the bytes are Marshal's.
	if err := msgpack.NewEncoder(&buf).Encode(&c); err != nil {
		return nil, nil, err
	}
	blob, err := blocksum.Seal(buf.Bytes())
	if err != nil {
		return nil, nil, err
	}
	if len(blob) != f.size {
		return nil, nil, fmt.Errorf("coldvocab: a digest sized %d bytes encoded to %d", f.size, len(blob))
	}
	return blob, &c, nil
}

// Stored is the form of the digest an index stores (see Stored), made
// from its fields without encoding the whole digest.
func (f *Finished) Stored() ([]byte, error) {
	addrs, ok := f.addrs.compact()
	if !ok {
		var err error
		if addrs, err = f.addrs.termtab(); err != nil {
			return nil, err
		}
	}
	// A vocabulary of no terms stays (see storedWith).
	vocab := []byte{}
	if f.terms.Len() == 0 {
		vocab = frontcode.EncodeSet(nil)
	}
	return storedWith(f.d, vocab, addrs)
}

// StructuralKeys are the digest's structural keys in order, as the
// lexicon lists them (Addresses.StructuralKeys of the blob's).
func (f *Finished) StructuralKeys() [][]byte { return f.addrs.structuralKeys() }

// sized sets the fields of a copy of d for na addresses (whose termtab
// form is addrLen bytes) and the vocabulary prefix vocab (whose encoding
// is vocabLen bytes), iterating cacheBytes to a fixpoint as the reference
// does, and returns it with the length of its sealed encoding. The copy's
// Vocabulary and Addresses are nil.
func (d *Digest) sized(vocabLen, addrLen, na int, vocab []string, reasons coverage.Set, addrCut, vocabCut bool) (*Digest, int, error) {
	if uint64(addrLen) > 1<<32-1 {
		return nil, 0, errors.New("coldvocab: address table over 4 GiB")
	}
	c := *d
	c.Vocabulary, c.Addresses = nil, nil
	c.IndexCoverage.AddressCount = na
	c.IndexCoverage.VocabularyBytes = vocabJSONBytes(vocab)
	c.IndexCoverage.VocabularyLastTerm = nil
	if addrCut || vocabCut {
		reasons.Add(coverage.MaxColdCacheBytes)
	}
	if vocabCut {
		last := ""
		if len(vocab) > 0 {
			last = strings.Clone(vocab[len(vocab)-1])
		}
		c.IndexCoverage.VocabularyLastTerm = &last
	}
	c.IndexCoverage.Reasons = reasons.Reasons()
	c.IndexCoverage.Complete = reasons.Complete()
	// Start the fixpoint from a size of the final one's encoded width:
	// the first round then finds the size and the second confirms it,
	// where starting from 0 took a third round. The fields are encoded
	// once: a round changes only cacheBytes, whose width it counts, and
	// cacheSourceRatio, a float64 of fixed width.
	c.setCacheBytes(vocabLen + addrLen + 512)
	n0, err := c.encodedLen(vocabLen, addrLen)
	if err != nil {
		return nil, 0, err
	}
	n0 -= uintLen(uint64(c.CacheBytes))
	for i := 0; ; i++ {
		n := n0 + uintLen(uint64(c.CacheBytes))
		// Stored sealed: the checksums count in the size.
		size := n + blocksum.Overhead(n)
		// Five rounds at most; c then describes the blob as written.
		if c.CacheBytes == size || i == 4 {
			return &c, size, nil
		}
		c.setCacheBytes(size)
	}
}

// encodedLen is the length of c's msgpack encoding with a Vocabulary of
// vocabLen bytes and Addresses of addrLen, counted from an encoding of c
// with both byte strings empty: msgpack writes each field on its own,
// and a byte string as a header of its length and its bytes.
func (c *Digest) encodedLen(vocabLen, addrLen int) (int, error) {
	v, a := c.Vocabulary, c.Addresses
	c.Vocabulary, c.Addresses = []byte{}, []byte{}
	var buf bytes.Buffer
	err := msgpack.NewEncoder(&buf).Encode(c)
	c.Vocabulary, c.Addresses = v, a
	return buf.Len() - 2*binLen(0) + binLen(vocabLen) + binLen(addrLen), err
}

// uintLen is the length of a non-negative int field as msgpack encodes it:
// the shortest of a positive fixint and uint 8, 16, 32 and 64.
func uintLen(v uint64) int {
	switch {
	case v <= math.MaxInt8:
		return 1
	case v <= math.MaxUint8:
		return 2
	case v <= math.MaxUint16:
		return 3
	case v <= math.MaxUint32:
		return 5
	default:
		return 9
	}
}

// binLen is the length of a msgpack byte string of n bytes: bin 8, 16 or
// 32, as msgpack's EncodeBytesLen picks.
func binLen(n int) int {
	switch {
	case n < 1<<8:
		return 2 + n
	case n <= math.MaxUint16:
		return 3 + n
	default:
		return 5 + n
	}
}

// setCacheBytes sets the digest's size and its ratio to the source's.
func (c *Digest) setCacheBytes(size int) {
	c.CacheBytes = size
	c.CacheSourceRatio = 0
	if c.Size > 0 {
		c.CacheSourceRatio = math.Round(float64(c.CacheBytes)/float64(c.Size)*1e6) / 1e6
	}
}

func vocabJSONBytes(vocab []string) int {
	n := 2
	for i, t := range vocab {
		if i > 0 {
			n++
		}
		n += len(t) + 2 // tokens need no escapes
	}
	return n
}

// addressTable is a digest's address table before it is encoded: its
// keys in byte order, each with its payload (the timestamps' among them).
// The termtab form, its length and the compact form are each made from
// it, none read back from another.
type addressTable struct {
	keys     []string
	payloads [][]byte
}

// collectAddresses gathers the structural postings of entries.
func collectAddresses(entries []addrEntry) addressTable {
	post := map[string][]uint32{}
	ts := make([]byte, 0, 8*len(entries))
	add := func(key string, i int) {
		pl := post[key]
		if n := len(pl); n > 0 && pl[n-1] == uint32(i) {
			return
		}
		post[key] = append(pl, uint32(i))
	}
	for i := range entries {
		e := &entries[i]
		for _, k := range e.keys {
			add(k, i)
		}
		if e.id != "" {
			add(keyEntryID+e.id, i)
		}
		if e.op != "" {
			add(keyOperation+e.op, i)
		}
		ts = binary.LittleEndian.AppendUint64(ts, math.Float64bits(e.ts))
	}
	keys := make([]string, 0, len(post)+1)
	for k := range post {
		keys = append(keys, k)
	}
	keys = append(keys, keyTimestamps)
	strsort.Strings(keys)
	payloads := make([][]byte, len(keys))
	for i, k := range keys {
		if k == keyTimestamps {
			payloads[i] = ts
			continue
		}
		payloads[i] = appendPosting(nil, post[k])
	}
	return addressTable{keys: keys, payloads: payloads}
}

// termtab encodes the table in the termtab form, the whole digest's.
func (a addressTable) termtab() ([]byte, error) { return termtab.Build(a.keys, a.payloads) }

// termtabSize is the length of the termtab form.
func (a addressTable) termtabSize() int { return termtab.Size(a.keys, a.payloads) }

// structuralKeys returns the structural keys (those that start with a NUL
// byte, which sort first), in order, in one buffer.
func (a addressTable) structuralKeys() [][]byte {
	n := 0
	for n < len(a.keys) && len(a.keys[n]) > 0 && a.keys[n][0] == 0 {
		n++
	}
	return viewsOf(a.keys[:n])
}

// viewsOf returns keys as byte slices of one buffer (nil for none).
func viewsOf(keys []string) [][]byte {
	if len(keys) == 0 {
		return nil
	}
	size := 0
	for _, k := range keys {
		size += len(k)
	}
	buf, out := make([]byte, 0, size), make([][]byte, len(keys))
	for i, k := range keys {
		buf = append(buf, k...)
		out[i] = buf[len(buf)-len(k) : len(buf) : len(buf)]
	}
	return out
}

// ErrCorrupt reports a digest that does not decode.
var ErrCorrupt = errors.New("coldvocab: corrupt digest")
