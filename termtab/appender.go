package termtab

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// Appender builds a table with payloads from terms appended in strictly
// increasing byte order, holding only the table's own bytes: for tables
// built by merging sorted inputs (no slice of strings, no map).
type Appender struct {
	terms, pays  []byte
	toffs, poffs []uint32
}

// Append adds term and its payload; term must sort after the last one.
// Both are copied.
func (a *Appender) Append(term, payload []byte) error {
	if n := len(a.toffs); n > 0 && bytes.Compare(a.terms[a.toffs[n-1]:], term) >= 0 {
		return fmt.Errorf("termtab: terms not strictly increasing at %d (%q)", n, term)
	}
	if uint64(len(a.terms))+uint64(len(term)) > 1<<32-1 || uint64(len(a.pays))+uint64(len(payload)) > 1<<32-1 {
		return errors.New("termtab: table over 4 GiB")
	}
	a.toffs = append(a.toffs, uint32(len(a.terms)))
	a.terms = append(a.terms, term...)
	a.poffs = append(a.poffs, uint32(len(a.pays)))
	a.pays = append(a.pays, payload...)
	return nil
}

// Len is the number of terms appended.
func (a *Appender) Len() int { return len(a.toffs) }

// Bytes encodes the table, in the layout Build writes with payloads.
func (a *Appender) Bytes() []byte {
	n := len(a.toffs)
	b := make([]byte, 0, 12+8*(n+1)+len(a.terms)+len(a.pays))
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(n))
	b = binary.LittleEndian.AppendUint32(b, flagPayloads)
	for _, o := range a.toffs {
		b = binary.LittleEndian.AppendUint32(b, o)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(a.terms)))
	b = append(b, a.terms...)
	for _, o := range a.poffs {
		b = binary.LittleEndian.AppendUint32(b, o)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(a.pays)))
	return append(b, a.pays...)
}
