package coldvocab

import (
	"fmt"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/memidx/memidx/internal/blocksum"
	"github.com/memidx/memidx/internal/frontcode"
)

// Stored returns the form of a sealed digest that the index stores. The
// archive lexicon holds every term of a stored digest under its doc, and
// the session's record its identity (sessionId, file, cwd, the hashes,
// branches, policy), so the stored form keeps neither: a map of three
// values, the vocabulary (empty, unless it holds no terms), the addresses
// (in their compact form), and the other fields as an array without
// their names (storedRest).
// CacheBytes and the coverage still describe the whole digest, as the
// reference would write it: the cap and the reasons do not change.
// Decode reads both forms; Identify puts the identity back.
func Stored(full []byte) ([]byte, error) {
	d, err := Decode(full)
	if err != nil {
		return nil, err
	}
	return StoredOf(d)
}

// StoredOf is Stored of the blob that d was encoded to, from d itself: the
// digest a Builder's Finish returns beside its blob (an index stores
// Finished.Stored, made before any blob is).
func StoredOf(d *Digest) ([]byte, error) {
	addrs := d.Addresses
	// The addresses in the compact form (see addrtab.go): a third of
	// their termtab form's bytes, read by one short scan.
	if c, ok := compactAddresses(d.Addresses); ok {
		addrs = c
	}
	vocab := []byte{}
	if n, ok := frontcode.Count(d.Vocabulary); ok && n == 0 {
		vocab = d.Vocabulary
	}
	return storedWith(d, vocab, addrs)
}

// storedWith is the stored form of d with the vocabulary vocab and the
// addresses addrs. A vocabulary of no terms stays: it is a few bytes, and
// it lets a reader tell an empty vocabulary (a session without words)
// from one the lexicon holds without asking the lexicon; any other is
// given empty.
func storedWith(d *Digest, vocab, addrs []byte) ([]byte, error) {
	s := storedDigest{Vocabulary: vocab, Addresses: addrs, Rest: restOf(d)}
	data, err := msgpack.Marshal(&s)
	if err != nil {
		return nil, err
	}
	return blocksum.Seal(data)
}

// storedDigest is the stored form; its first two fields are where Open
// finds them in a whole digest.
type storedDigest struct {
	Vocabulary []byte     `msgpack:"vocabulary"`
	Addresses  []byte     `msgpack:"addresses"`
	Rest       storedRest `msgpack:"rest"`
}

// storedRest is what a stored digest keeps of the other fields.
type storedRest struct {
	_msgpack         struct{} `msgpack:",as_array"`
	CacheVersion     int
	Kind             string
	MtimeMs          float64
	Size             int64
	FirstTs          *float64
	LastTs           *float64
	EntryCount       int
	FilesTouched     []string
	ToolHistogram    map[string]int
	ErrorCount       int
	Coverage         storedCoverage
	CacheBytes       int
	CacheSourceRatio float64
}

type storedCoverage struct {
	_msgpack             struct{} `msgpack:",as_array"`
	Complete             bool
	VocabularyBytes      int
	Reasons              []string
	VocabularyCut        bool
	VocabularyLastTerm   *string
	AddressCount         int
	FilesTouchedComplete bool
}

func restOf(d *Digest) storedRest {
	c := d.IndexCoverage
	return storedRest{CacheVersion: d.CacheVersion, Kind: d.Kind, MtimeMs: d.MtimeMs, Size: d.Size,
		FirstTs: d.FirstTs, LastTs: d.LastTs, EntryCount: d.EntryCount, FilesTouched: d.FilesTouched,
		ToolHistogram: d.ToolHistogram, ErrorCount: d.ErrorCount, CacheBytes: d.CacheBytes, CacheSourceRatio: d.CacheSourceRatio,
		Coverage: storedCoverage{Complete: c.Complete, VocabularyBytes: c.VocabularyBytes, Reasons: c.Reasons,
			VocabularyCut: c.VocabularyCut, VocabularyLastTerm: c.VocabularyLastTerm, AddressCount: c.AddressCount,
			FilesTouchedComplete: c.FilesTouchedComplete}}
}

// digest is the whole digest s was stored from, less its identity and
// (unless empty) its vocabulary.
func (s *storedDigest) digest() *Digest {
	r, c := &s.Rest, s.Rest.Coverage
	return &Digest{Vocabulary: s.Vocabulary, Addresses: s.Addresses, CacheVersion: r.CacheVersion, Kind: r.Kind,
		MtimeMs: r.MtimeMs, Size: r.Size, FirstTs: r.FirstTs, LastTs: r.LastTs, EntryCount: r.EntryCount,
		FilesTouched: r.FilesTouched, ToolHistogram: r.ToolHistogram, ErrorCount: r.ErrorCount,
		CacheBytes: r.CacheBytes, CacheSourceRatio: r.CacheSourceRatio,
		IndexCoverage: IndexCoverage{Complete: c.Complete, VocabularyBytes: c.VocabularyBytes, Reasons: c.Reasons,
			VocabularyCut: c.VocabularyCut, VocabularyLastTerm: c.VocabularyLastTerm, AddressCount: c.AddressCount,
			FilesTouchedComplete: c.FilesTouchedComplete}}
}

// Identify sets the identity fields that a stored digest leaves to its
// session's record (SessionID, File, Cwd, SourceHash, Branches,
// LineageFingerprint, Policy) from id.
func (d *Digest) Identify(id Digest) {
	d.SessionID, d.File, d.Cwd, d.SourceHash = id.SessionID, id.File, id.Cwd, id.SourceHash
	d.Branches, d.LineageFingerprint, d.Policy = id.Branches, id.LineageFingerprint, id.Policy
}

// decodeStored decodes the stored form (a map of three values).
func decodeStored(data []byte) (*Digest, error) {
	var s storedDigest
	if err := msgpack.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return s.digest(), nil
}
