package coldvocab

import (
	"fmt"
	"math"
	"math/rand"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/blocksum"
	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/normalize"
)

var evenHex = regexp.MustCompile(`^([0-9a-f]{2})+$`)

// probeKeys are the structural keys addrReads asks for.
var probeKeys = []string{
	normalize.KeyOutcome + "failed", normalize.KeyRole + "user", normalize.KeyRole + "assistant",
	normalize.KeyRole + "toolResult", normalize.KeyTool + "bash", normalize.KeyTool + "read",
	normalize.KeyRef + "omp.bash", normalize.KeyProvider + "omp", normalize.KeyAction + "bash",
	normalize.KeyTool + "", "\x00", "", "zzz", // Entries takes structural keys only
}

// addrReads is everything a query can read of a View's addresses, as text.
func addrReads(v View) string {
	var b strings.Builder
	st := v.Structural()
	for _, k := range probeKeys {
		fmt.Fprintf(&b, "%q=%v ", k, st.Entries(k))
	}
	fmt.Fprintf(&b, "n=%d ", st.Count())
	for i := -1; i <= st.Count(); i++ {
		ts, ok := st.Timestamp(i)
		fmt.Fprintf(&b, "%v/%v ", math.Float64bits(ts)*boolBit(ok), ok)
	}
	for _, id := range []string{"", "e0", "e1", "e3", "e39", "op/1", "nope", "ee5e1fd0", "ee5e1fd1", "EE5E1FD1", "ee5e1fd", "0ee5e1fd1"} {
		fmt.Fprintf(&b, "id %q=%v ", id, v.HasEntryID(id))
	}
	fmt.Fprintf(&b, "keys=%q", v.Addresses.StructuralKeys())
	return b.String()
}

// packedReads lists what EachPacked spells out.
func packedReads(v View) string {
	var b strings.Builder
	v.Addresses.EachPacked(func(s string) { b.WriteString(s + " ") })
	return b.String()
}

func boolBit(ok bool) uint64 {
	if ok {
		return 1
	}
	return 0
}

// randomEntries makes n entries whose ids, operations, keys and
// timestamps vary as the seed picks: repeated and missing ids, timestamps
// absent, fractional, negative, huge or going back in time.
func randomEntries(r *rand.Rand, n int) []normalize.Entry {
	roles := []string{"user", "assistant", "toolResult"}
	tools := []string{"bash", "read", "edit", "grep"}
	tsKind := r.Intn(4)
	out := make([]normalize.Entry, n)
	for i := range out {
		e := normalize.Entry{Index: i, Type: "message", Role: sp(roles[r.Intn(3)]), Text: "w"}
		switch r.Intn(5) {
		case 0:
		case 1:
			e.EntryID = sp(fmt.Sprintf("%08x", uint32(r.Intn(n+1))+0xee5e1fd0))
		case 2:
			e.EntryID = sp(fmt.Sprintf("%08X", uint32(r.Intn(n+1))+0xee5e1fd0))
		default:
			e.EntryID = sp(fmt.Sprintf("e%d", r.Intn(n+1)))
		}
		if r.Intn(3) == 0 {
			e.OperationAddress = sp(fmt.Sprintf("op/%d", i))
		}
		if r.Intn(2) == 0 {
			tl := tools[r.Intn(4)]
			e.Tool, e.Ref, e.Provider, e.Action = sp(tl), sp("omp."+tl), sp("omp"), sp(tl)
			if r.Intn(2) == 0 {
				e.Outcome = sp("failed")
			}
		}
		if r.Intn(6) > 0 {
			ts := 1.7e12 + float64(r.Intn(1e6)-5e5)
			switch tsKind {
			case 1:
				ts += 0.5
			case 2:
				ts = -ts
			case 3:
				ts = float64(r.Int63())
			}
			e.Timestamp = &ts
		}
		out[i] = e
	}
	return out
}

// The stored (compact) addresses answer every read as the whole digest's
// termtab does, on random sessions, and are smaller.
func TestCompactAddressesReadAsTermtab(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	compacted := 0
	for iter := 0; iter < 300; iter++ {
		ents := randomEntries(r, r.Intn(60))
		full, _, err := Build(Digest{SessionID: "s"}, ents, coverage.Set{}, roomy)
		require.NoError(t, err)
		stored, err := Stored(full)
		require.NoError(t, err)
		fv, err := Open(full)
		require.NoError(t, err)
		sv, err := Open(stored)
		require.NoError(t, err)
		require.Equal(t, addrReads(fv), addrReads(sv), "iteration %d", iter)
		require.NoError(t, sv.Err())
		var want strings.Builder
		for _, e := range ents {
			if id := normalize.Get(e.EntryID); evenHex.MatchString(id) {
				want.WriteString(id + " ")
			}
		}
		require.Equal(t, want.String(), packedReads(sv), "iteration %d", iter)
		if sv.Addresses.compact {
			compacted++
			d, err := Decode(full)
			require.NoError(t, err)
			assert.Less(t, sv.Addresses.b.Len(), len(d.Addresses), "iteration %d", iter)
		}
	}
	// Only a session whose one entry has two ids keeps the termtab form:
	// the random ids never give one (an entry has one id).
	assert.Equal(t, 300, compacted)
}

func TestCompactTimestamps(t *testing.T) {
	for _, c := range []struct {
		name  string
		ts    []float64
		delta bool
	}{
		{"ms", []float64{1.7e12, 1.7e12 + 5, math.NaN(), 1.7e12 - 3}, true},
		{"none", []float64{math.NaN(), math.NaN()}, true},
		{"empty", nil, true},
		{"negative", []float64{-5, 3, -1e15}, true},
		{"2^53", []float64{1 << 53, -(1 << 53)}, true},
		{"past 2^53", []float64{1<<53 + 2}, false},
		{"fraction", []float64{1.7e12, 1.7e12 + 0.25}, false},
		{"minus zero", []float64{math.Copysign(0, -1)}, false},
		{"inf", []float64{math.Inf(1)}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var raw []byte
			for _, f := range c.ts {
				raw = append(raw, make([]byte, 8)...)
				putF := math.Float64bits(f)
				for k := 0; k < 8; k++ {
					raw[len(raw)-8+k] = byte(putF >> (8 * k))
				}
			}
			b := appendTimes(nil, raw)
			assert.Equal(t, c.delta, b[0] == tsDelta)
			a := Addresses{b: blocksum.Trusted(b), compact: true, entries: len(c.ts), times: 0}
			_, _, n := a.timestamps()
			require.Equal(t, len(c.ts), n)
			st := View{Addresses: a}.Structural() // raw read in place, deltas decoded lazily
			require.Equal(t, n, st.Count())
			for i, f := range c.ts {
				got, ok := st.Timestamp(i)
				if math.IsNaN(f) {
					assert.False(t, ok)
					continue
				}
				assert.True(t, ok)
				assert.Equal(t, math.Float64bits(f), math.Float64bits(got), "entry %d", i)
			}
		})
	}
}

// Every single damaged byte of a stored digest is caught: Open fails, or
// every address read answers as before, or Err reports the damage.
func TestCompactDamageIsNeverSilent(t *testing.T) {
	full, _, err := Build(Digest{SessionID: "s"}, entriesN(40), coverage.Set{}, roomy)
	require.NoError(t, err)
	stored, err := Stored(full)
	require.NoError(t, err)
	good, err := Open(stored)
	require.NoError(t, err)
	require.True(t, good.Addresses.compact)
	want := addrReads(good)
	for i := range stored {
		bad := append([]byte(nil), stored...)
		bad[i] ^= 0x04
		v, err := Open(bad)
		if err != nil {
			continue
		}
		if got := addrReads(v); got != want && v.Err() == nil {
			t.Fatalf("byte %d: reads changed with no error:\n%s\nwant\n%s", i, got, want)
		}
	}
}

// FuzzCompactAddresses opens arbitrary bytes as a compact table (trusted,
// so that the fuzzer explores the parser): nothing panics.
func FuzzCompactAddresses(f *testing.F) {
	full, _, _ := Build(Digest{}, entriesN(5), coverage.Set{}, roomy)
	d, _ := Decode(full)
	if c, ok := compactAddresses(d.Addresses); ok {
		f.Add(c)
	}
	f.Add(append([]byte(nil), compactMagic...))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := openAddresses(blocksum.Trusted(b))
		if err != nil {
			return
		}
		v := View{Addresses: a}
		_ = addrReads(v)
		_ = packedReads(v)
	})
}
