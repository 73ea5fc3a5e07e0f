package index

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/blocksum"
	"github.com/memidx/memidx/internal/indexfile"
	"github.com/memidx/memidx/internal/lineage"
)

// TestSumOf: only a 64-digit lowercase hex string (or "", none) is a Sum,
// and it spells itself back; Is matches exactly that string.
func TestSumOf(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
	}{
		{"", true},
		{hexA, true},
		{hexB, true},
		{strings.ToUpper(hexA), false},
		{hexA[1:], false},
		{hexA + "0", false},
		{hexA[1:] + "g", false},
		{"019d59f8-84c2-738a-a424-2e63ffc49c39", false},
	} {
		s, ok := SumOf(c.in)
		require.Equal(t, c.ok, ok, c.in)
		if !ok {
			assert.Panics(t, func() { MustSum(c.in) }, c.in)
			continue
		}
		assert.Equal(t, c.in, s.String())
		assert.Equal(t, c.in == "", s.IsZero())
		assert.True(t, s.Is(c.in), c.in)
		text, err := s.MarshalText()
		require.NoError(t, err)
		assert.Equal(t, c.in, string(text))
		var back Sum
		require.NoError(t, back.UnmarshalText(text))
		assert.Equal(t, s, back)
	}
	a := MustSum(hexA)
	for _, other := range []string{"", hexB, strings.ToUpper(hexA), hexA[:63] + "e", hexA[:63], "x"} {
		assert.False(t, a.Is(other), other)
	}
	assert.False(t, Sum{}.Is(hexA))
	var bad Sum
	assert.Error(t, bad.UnmarshalText([]byte("nope")))
}

// TestRecordJSONSpellsSumsInHex: a record's JSON (inspect, debugging)
// spells its sums as the hex strings they were.
func TestRecordJSONSpellsSumsInHex(t *testing.T) {
	b, err := json.Marshal(&Record{SourceHash: sumA})
	require.NoError(t, err)
	assert.Contains(t, string(b), `"sourceHash":"`+hexA+`"`)
	assert.Contains(t, string(b), `"lineageFingerprint":""`)
}

// TestStoredRecordWithAHashThatIsNoSum: a stored record whose source hash
// or lineage fingerprint is a string but no SHA-256 in hex (a damaged or
// foreign record that still seals) does not decode, so it is rebuilt; it
// is not taken for a record without one.
func TestStoredRecordWithAHashThatIsNoSum(t *testing.T) {
	rec := withFacts(&Record{CacheVersion: indexfile.CacheVersion, Path: "/s.jsonl", Branches: ActiveBranch, Tier: Hot,
		SourceHash: sumA, policy: policies.named("p")}, sessionFacts{lineageFingerprint: sumB})
	key := recordKey(lineage.Active, rec.Path)
	stored, err := encodeRecord(rec)
	require.NoError(t, err)
	_, err = decodeRecord(key, stored)
	require.NoError(t, err)
	plain, err := blocksum.Unseal(stored)
	require.NoError(t, err)
	for name, packed := range map[string][]byte{"source hash": append([]byte{packedHex}, sumA.b[:]...),
		"lineage": append([]byte{packedHex}, sumB.b[:]...)} {
		for _, as := range []string{"l", strings.ToUpper(hexA), hexA} {
			i := bytes.Index(plain, packed)
			require.Positive(t, i, name)
			// The form appendPacked gives a string it stores as it is.
			asIs := append(binary.AppendUvarint(nil, 2*uint64(len(as))+2), as...)
			b := append(append(bytes.Clone(plain[:i]), asIs...), plain[i+len(packed):]...)
			sealed, err := blocksum.Seal(b)
			require.NoError(t, err)
			_, err = decodeRecord(key, sealed)
			assert.ErrorIs(t, err, errRecordShape, "%s stored as %q", name, as)
		}
	}
}

// TestStamp: a stamp holds any time, 0 and negative ones too, and none;
// its JSON is the time or null, as the pointer it replaced wrote.
func TestStamp(t *testing.T) {
	var none Stamp
	_, ok := none.Value()
	assert.False(t, ok)
	assert.Nil(t, none.Ptr())
	assert.Equal(t, none, StampOf(nil))
	for _, v := range []float64{0, -0.5, 1.7e12, math.MaxFloat64, math.Inf(-1), math.SmallestNonzeroFloat64} {
		s := StampOf(&v)
		assert.NotZero(t, s, "%v is a time, not none", v)
		got, ok := s.Value()
		require.True(t, ok)
		assert.Equal(t, math.Float64bits(v), math.Float64bits(got))
		assert.Equal(t, v, *s.Ptr())
	}
	b, err := json.Marshal(struct{ A, B Stamp }{StampOf(ptrTo(1.5)), none})
	require.NoError(t, err)
	assert.JSONEq(t, `{"A":1.5,"B":null}`, string(b))
	var back struct{ A, B Stamp }
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, StampOf(ptrTo(1.5)), back.A)
	assert.Equal(t, none, back.B)
	assert.Error(t, json.Unmarshal([]byte(`{"A":"x"}`), &back))
}

// A tier's JSON is its name, and reads back.
func TestTierText(t *testing.T) {
	for _, tier := range []Tier{0, Hot, Cold} {
		b, err := json.Marshal(tier)
		require.NoError(t, err)
		var back Tier
		require.NoError(t, json.Unmarshal(b, &back))
		assert.Equal(t, tier, back)
	}
	assert.Equal(t, `"hot"`, string(must(json.Marshal(Hot))))
	var bad Tier
	assert.Error(t, json.Unmarshal([]byte(`"warm"`), &bad))
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func ptrTo[T any](v T) *T { return &v }

// A record keeps what few records have (reasons, a live signature) in a
// note, and what a partial record lacks (its session's facts) apart, and
// holds its sums, tier and stamps as values: a server keeps a record per
// session, and a one-shot call a partial record per session.
func TestRecordKeepsItsRarePartsApart(t *testing.T) {
	assert.LessOrEqual(t, unsafe.Sizeof(Record{}), uintptr(160))
	assert.Nil(t, (&Record{}).facts, "a partial record's facts")
	var r Record
	assert.True(t, r.Complete())
	assert.Nil(t, r.note)
	r.setNote(nil, "")
	assert.Nil(t, r.note, "nothing to note")
	r.setNote(nil, "live")
	before := r
	r.SetReasons([]string{"max_entry_chars"})
	assert.Equal(t, "live", r.LiveSignature(), "reasons keep the live signature")
	assert.Equal(t, []string{"max_entry_chars"}, r.Reasons())
	assert.False(t, r.Complete())
	assert.Empty(t, before.Reasons(), "a copy made before keeps its own note")
	b, err := json.Marshal(&Record{})
	require.NoError(t, err)
	assert.Contains(t, string(b), `"reasons":[]`)
}

// withFacts gives rec the session facts f, as a build gives a whole
// record its own, and returns it.
func withFacts(rec *Record, f sessionFacts) *Record {
	rec.facts = &f
	return rec
}

// A state keeps Rebuilt with its other rare parts (a one-shot call over
// 100k sessions holds a state each): 32 bytes, and a note shared while
// it says nothing else; setting a reason keeps it, and a copy made
// before keeps its own.
func TestStateKeepsRebuiltInItsNote(t *testing.T) {
	assert.LessOrEqual(t, unsafe.Sizeof(State{}), uintptr(32))
	var a, b State
	a.markRebuilt()
	b.markRebuilt()
	assert.True(t, a.Rebuilt())
	assert.Same(t, a.note, b.note, "rebuilt alone: one shared note")
	before := a
	a.setReason("max_sync_sessions")
	assert.True(t, a.Rebuilt(), "a reason keeps it")
	assert.Equal(t, "max_sync_sessions", a.Reason())
	assert.Empty(t, before.Reason(), "the copy made before")
	assert.True(t, rebuiltNote.rebuilt && rebuiltNote.reason == "", "the shared note is unchanged")
	var c State
	c.setReason("max_sync_sessions")
	c.markRebuilt()
	assert.True(t, c.Rebuilt())
	assert.Equal(t, "max_sync_sessions", c.Reason())
	assert.False(t, reasonNote("max_sync_sessions").rebuilt, "the shared reason note is unchanged")
}
