package coldvocab

import (
	"encoding/binary"
	"math"
	"slices"
	"strings"

	"github.com/memidx/memidx/internal/frontcode"
	"github.com/memidx/memidx/internal/strsort"
	"github.com/memidx/memidx/internal/termtab"
)

// addrPlan is what a builder needs of an address table before the whole
// digest is encoded: the termtab form's length, which cacheBytes and the
// cap count, the compact form, which the index stores, and the structural
// keys, which the lexicon lists. It is made from the entries without the
// termtab form's table: only the structural keys go through a map and a
// sort, and the entry ids and operation addresses (a key each, mostly
// unique, in the termtab form) stay columns, as the compact form keeps
// them. Gathering every key in a map and sorting them all
// (collectAddresses) was 4% of a 100k rebuild's CPU. Blob builds the
// termtab form from the plan's columns. The plan holds no entry: a
// finished digest waits for its batch's write, and a builder's entries
// (up to the cap's 131,073) are no part of what it stores.
type addrPlan struct {
	// whole is the whole table, for entries whose keys the plan does
	// not know (a structural key that does not start with a NUL byte):
	// then every other field but size is unset.
	whole *addressTable
	// keys are the structural keys in byte order, payloads their
	// posting lists.
	keys     []string
	payloads [][]byte
	ids, ops []string // by entry ("": none)
	ts       []byte   // 8 bytes an entry
	size     int      // the termtab form's length
}

// planAddresses plans the address table of entries.
func planAddresses(entries []addrEntry) addrPlan {
	var p addrPlan
	post := map[string][]uint32{}
	p.ts = make([]byte, 0, 8*len(entries))
	p.ids, p.ops = make([]string, len(entries)), make([]string, len(entries))
	for i := range entries {
		e := &entries[i]
		for _, k := range e.keys {
			if len(k) == 0 || k[0] != 0 {
				t := collectAddresses(entries)
				return addrPlan{whole: &t, size: t.termtabSize()}
			}
			pl := post[k]
			if n := len(pl); n > 0 && pl[n-1] == uint32(i) {
				continue
			}
			post[k] = append(pl, uint32(i))
		}
		p.ids[i], p.ops[i] = e.id, e.op
		p.ts = binary.LittleEndian.AppendUint64(p.ts, math.Float64bits(e.ts))
	}
	p.keys = make([]string, 0, len(post))
	for k := range post {
		p.keys = append(p.keys, k)
	}
	strsort.Strings(p.keys)
	p.payloads = make([][]byte, len(p.keys))
	n, termBytes, payloadBytes := len(p.keys)+1, len(keyTimestamps), len(p.ts)
	for i, k := range p.keys {
		p.payloads[i] = appendPosting(nil, post[k])
		termBytes += len(k)
		payloadBytes += len(p.payloads[i])
	}
	for _, col := range []struct {
		prefix string
		v      []string
	}{{keyEntryID, p.ids}, {keyOperation, p.ops}} {
		keys, kb, pb := columnKeys(col.v, len(col.prefix))
		n, termBytes, payloadBytes = n+keys, termBytes+kb, payloadBytes+pb
	}
	p.size = termtab.SizeOf(n, termBytes, payloadBytes)
	return p
}

// appendPosting appends the posting list of entries: a uvarint count,
// then the entries as uvarint deltas.
func appendPosting(b []byte, entries []uint32) []byte {
	b = binary.AppendUvarint(b, uint64(len(entries)))
	prev := uint32(0)
	for _, e := range entries {
		b = binary.AppendUvarint(b, uint64(e-prev))
		prev = e
	}
	return b
}

// columnKeys counts the termtab keys a column makes, one a distinct value
// (prefixLen bytes and the value), with their bytes and their posting
// lists' bytes.
func columnKeys(col []string, prefixLen int) (keys, keyBytes, payloadBytes int) {
	idx := make([]int32, 0, len(col))
	for i, v := range col {
		if v != "" {
			idx = append(idx, int32(i))
		}
	}
	// Stable: the entries of one value stay in order, as a posting list
	// has them.
	slices.SortStableFunc(idx, func(a, b int32) int { return strings.Compare(col[a], col[b]) })
	for lo := 0; lo < len(idx); {
		hi := lo + 1
		for hi < len(idx) && col[idx[hi]] == col[idx[lo]] {
			hi++
		}
		keys++
		keyBytes += prefixLen + len(col[idx[lo]])
		payloadBytes += frontcode.UvarintLen(uint64(hi - lo))
		prev := int32(0)
		for _, e := range idx[lo:hi] {
			payloadBytes += frontcode.UvarintLen(uint64(e - prev))
			prev = e
		}
		lo = hi
	}
	return keys, keyBytes, payloadBytes
}

// termtab encodes the table in the termtab form, the whole digest's.
func (p addrPlan) termtab() ([]byte, error) { return p.table().termtab() }

// table is the whole table the plan stands for, as collectAddresses
// makes it: the structural keys, each distinct entry id and operation
// address (with the entries that have it) and the timestamps, in byte
// order.
func (p addrPlan) table() addressTable {
	if p.whole != nil {
		return *p.whole
	}
	post := map[string][]uint32{}
	for _, col := range []struct {
		prefix string
		v      []string
	}{{keyEntryID, p.ids}, {keyOperation, p.ops}} {
		for i, v := range col.v {
			if v != "" {
				k := col.prefix + v
				post[k] = append(post[k], uint32(i))
			}
		}
	}
	keys := make([]string, 0, len(p.keys)+len(post)+1)
	keys = append(append(keys, p.keys...), keyTimestamps)
	for k := range post {
		keys = append(keys, k)
	}
	strsort.Strings(keys)
	payloads := make([][]byte, len(keys))
	for i, k := range keys {
		switch pl, ok := post[k]; {
		case ok:
			payloads[i] = appendPosting(nil, pl)
		case k == keyTimestamps:
			payloads[i] = p.ts
		default:
			j, _ := slices.BinarySearch(p.keys, k)
			payloads[i] = p.payloads[j]
		}
	}
	return addressTable{keys: keys, payloads: payloads}
}

// compact writes the table in the compact form, or ok false (as
// compactAddresses).
func (p addrPlan) compact() ([]byte, bool) {
	if p.whole != nil {
		return p.whole.compact()
	}
	return appendCompact(p.keys, p.payloads, p.ids, p.ops, p.ts), true
}

// structuralKeys returns the structural keys in order, in one buffer.
func (p addrPlan) structuralKeys() [][]byte {
	if p.whole != nil {
		return p.whole.structuralKeys()
	}
	return viewsOf(p.keys)
}
