package index

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
)

// Sum is a SHA-256 a record holds (its source hash, its lineage
// fingerprint): the 32 bytes themselves, hex only at the edges. As hex
// strings the two were 160 bytes a record, in its struct and in the
// arena's chunks; a server over 100k sessions held 13 MB of them. The
// zero Sum is none ("").
type Sum struct {
	b  [sha256.Size]byte
	ok bool
}

// SumOf is the Sum of a 64-digit lowercase hex string; ok is false for
// any other string but "" (which is the zero Sum).
func SumOf(s string) (Sum, bool) {
	if s == "" {
		return Sum{}, true
	}
	if len(s) != 2*sha256.Size || !lowerHex(s) {
		return Sum{}, false
	}
	var x Sum
	hex.Decode(x.b[:], bytesOf(s))
	x.ok = true
	return x, true
}

// MustSum is SumOf for a string known to be a SHA-256 in hex (one that
// the reader or the lineage computed); it panics on any other.
func MustSum(s string) Sum {
	x, ok := SumOf(s)
	if !ok {
		panic(fmt.Sprintf("index: %q is not a SHA-256 in hex", s))
	}
	return x
}

// sumFrom is the Sum of 32 raw bytes.
func sumFrom(b []byte) Sum {
	var x Sum
	x.ok = copy(x.b[:], b) == sha256.Size
	return x
}

// IsZero reports whether s is none.
func (s Sum) IsZero() bool { return !s.ok }

// String is s in lowercase hex, "" for none.
func (s Sum) String() string {
	if !s.ok {
		return ""
	}
	return hex.EncodeToString(s.b[:])
}

// Is reports whether s is the sum the hex string h spells ("" is none),
// without making s's string.
func (s Sum) Is(h string) bool {
	if !s.ok {
		return h == ""
	}
	if len(h) != 2*sha256.Size {
		return false
	}
	var buf [2 * sha256.Size]byte
	hex.Encode(buf[:], s.b[:])
	return string(buf[:]) == h
}

// MarshalText writes s as String does.
func (s Sum) MarshalText() ([]byte, error) {
	if !s.ok {
		return []byte{}, nil
	}
	return hex.AppendEncode(nil, s.b[:]), nil
}

// UnmarshalText reads what MarshalText wrote.
func (s *Sum) UnmarshalText(b []byte) error {
	x, ok := SumOf(string(b))
	if !ok {
		return fmt.Errorf("index: %q is not a SHA-256 in hex", b)
	}
	*s = x
	return nil
}

// Stamp is the time of a record's first or last entry (JavaScript
// milliseconds), or none: a value in the record rather than a pointer
// to one (a server held 1.4 MB of them, cut from slabs, at 100k
// sessions). The zero Stamp is none; a time t is held as the complement
// of its bits, which is never 0 (all ones is a NaN, never a time).
type Stamp uint64

// StampOf is the Stamp of *t, none for nil.
func StampOf(t *float64) Stamp {
	if t == nil {
		return 0
	}
	return stampAt(*t)
}

// stampAt is the Stamp of t.
func stampAt(t float64) Stamp { return Stamp(^math.Float64bits(t)) }

// Value is the stamp's time; ok is false for none.
func (s Stamp) Value() (t float64, ok bool) {
	if s == 0 {
		return 0, false
	}
	return math.Float64frombits(^uint64(s)), true
}

// Ptr is the stamp's time as a new pointer (nil for none), for the wire.
func (s Stamp) Ptr() *float64 {
	t, ok := s.Value()
	if !ok {
		return nil
	}
	return &t
}

// MarshalJSON writes the time, or null.
func (s Stamp) MarshalJSON() ([]byte, error) { return json.Marshal(s.Ptr()) }

// UnmarshalJSON reads what MarshalJSON wrote.
func (s *Stamp) UnmarshalJSON(b []byte) error {
	var t *float64
	if err := json.Unmarshal(b, &t); err != nil {
		return err
	}
	*s = StampOf(t)
	return nil
}
