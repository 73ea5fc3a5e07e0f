package coldvocab

import (
	"fmt"

	"github.com/memidx/memidx/internal/blocksum"
	"github.com/memidx/memidx/internal/frontcode"
)

// Stored returns the form of a sealed digest that the index stores: the
// same digest with an empty vocabulary value (unless it holds no terms). The archive lexicon holds
// every term of every stored digest under its doc, so the vocabulary
// (two thirds of a digest) would be a second copy of it. The digest's
// CacheBytes and coverage still describe the whole digest, as the
// reference would write it: the cap and the reasons do not change.
func Stored(full []byte) ([]byte, error) {
	data, err := blocksum.Unseal(full)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	h := head{b: blocksum.Trusted(data), ok: true}
	if n := h.mapLen(); !h.ok || n < 2 {
		return nil, ErrCorrupt
	}
	if key := h.str(); !h.ok || string(key) != "vocabulary" {
		return nil, fmt.Errorf("%w: field 0 is not vocabulary", ErrCorrupt)
	}
	at := h.pos
	voc := h.bin()
	if !h.ok {
		return nil, ErrCorrupt
	}
	end := h.pos
	if voc.Len() == 0 {
		return full, nil // stored already
	}
	// A vocabulary of no terms stays: it is a few bytes, and it lets a
	// reader tell an empty vocabulary (a session without words) from one
	// the lexicon holds without asking the lexicon.
	if head, ok := voc.Slice(0, min(14, voc.Len())); ok {
		if n, ok := frontcode.Count(head); ok && n == 0 {
			return full, nil
		}
	}
	return blocksum.Seal(data[:at], emptyBin, data[end:])
}

// emptyBin is a msgpack bin of no bytes: the vocabulary of a stored
// digest. A digest's own vocabulary, even of no terms, is never empty
// (a frontcode list has a header).
var emptyBin = []byte{0xc4, 0x00}
