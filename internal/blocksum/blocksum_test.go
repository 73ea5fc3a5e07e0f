package blocksum

import (
	"bytes"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func randomData(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, BlockSize - 1, BlockSize, BlockSize + 1, 5*BlockSize + 17} {
		data := randomData(n, uint64(n))
		sealed, err := Seal(append([]byte(nil), data...))
		require.NoError(t, err)
		assert.Len(t, sealed, n+Overhead(n))
		got, err := Unseal(sealed)
		require.NoError(t, err, "n=%d", n)
		assert.Equal(t, data, got, "n=%d", n)

		b, err := Open(sealed)
		require.NoError(t, err)
		assert.Equal(t, n, b.Len())
		for lo := 0; lo < n; lo += 97 {
			hi := min(n, lo+300)
			s, ok := b.Slice(lo, hi)
			require.True(t, ok)
			assert.Equal(t, data[lo:hi], s)
		}
		assert.NoError(t, b.Err())
	}
}

// Every single flipped bit of a sealed value is caught: by Open (the
// length), or by the first read of the block it lies in (data or sum).
func TestEveryFlippedBitIsCaught(t *testing.T) {
	n := 3*BlockSize + 100
	good, err := Seal(randomData(n, 7))
	require.NoError(t, err)
	for i := range good {
		for bit := 0; bit < 8; bit++ {
			bad := append([]byte(nil), good...)
			bad[i] ^= 1 << bit
			b, err := Open(bad)
			if err != nil {
				continue
			}
			require.Error(t, b.Verify(), "byte %d bit %d went unnoticed", i, bit)
			require.ErrorIs(t, b.Err(), ErrCorrupt)
			if d := i - Overhead(n); d >= 0 {
				_, ok := b.Slice(d, d+1)
				assert.False(t, ok, "the damaged byte %d is never returned", i)
			}
		}
	}
}

// A read only verifies the blocks it touches: damage elsewhere does not
// fail it, and is found when it is read.
func TestReadsVerifyOnlyTheirBlocks(t *testing.T) {
	data := randomData(4*BlockSize, 3)
	sealed, err := Seal(append([]byte(nil), data...))
	require.NoError(t, err)
	sealed[Overhead(len(data))+2*BlockSize+5] ^= 0xff
	b, err := Open(sealed)
	require.NoError(t, err)
	s, ok := b.Slice(0, 2*BlockSize)
	require.True(t, ok)
	assert.Equal(t, data[:2*BlockSize], s)
	v, ok := b.Uint32(3 * BlockSize)
	require.True(t, ok)
	assert.NotZero(t, v)
	assert.NoError(t, b.Err())
	_, ok = b.Slice(2*BlockSize-2, 2*BlockSize+2)
	assert.False(t, ok, "a read that straddles into the damaged block fails")
	assert.ErrorIs(t, b.Err(), ErrCorrupt)
}

// Blocks swapped within a value fail: each sum is seeded with its block
// number.
func TestSwappedBlocksFail(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 2*BlockSize/16)
	sealed, err := Seal(append([]byte(nil), data...))
	require.NoError(t, err)
	// Identical blocks: swapping their sums is the same as swapping them.
	copy(sealed[4:], append(append([]byte(nil), sealed[8:12]...), sealed[4:8]...))
	b, err := Open(sealed)
	require.NoError(t, err)
	assert.Error(t, b.Verify())
}

func TestSubViewsShareTheGuard(t *testing.T) {
	data := randomData(3*BlockSize, 5)
	sealed, err := Seal(append([]byte(nil), data...))
	require.NoError(t, err)
	sealed[Overhead(len(data))+BlockSize+1] ^= 1
	b, err := Open(sealed)
	require.NoError(t, err)
	sub, ok := b.Sub(BlockSize, 2*BlockSize)
	require.True(t, ok)
	assert.Equal(t, BlockSize, sub.Len())
	_, ok = sub.Slice(0, 4)
	assert.False(t, ok)
	assert.Error(t, b.Err(), "damage met through a view is the value's")
	_, ok = b.Sub(10, 3*BlockSize+1)
	assert.False(t, ok, "out of bounds")
	for _, r := range [][2]int{{-1, 2}, {3, 2}, {0, 3*BlockSize + 1}} {
		_, ok := b.Slice(r[0], r[1])
		assert.False(t, ok, "%v", r)
	}
}

func TestOpenRejectsBadShapes(t *testing.T) {
	good, err := Seal(randomData(1000, 9))
	require.NoError(t, err)
	for _, bad := range [][]byte{nil, {1, 2, 3}, good[:len(good)-1], append(append([]byte(nil), good...), 0), good[1:]} {
		_, err := Open(bad)
		assert.ErrorIs(t, err, ErrCorrupt)
	}
}

func TestStampFollowsContent(t *testing.T) {
	data := randomData(3*BlockSize+7, 21)
	a, _ := Seal(append([]byte(nil), data...))
	sa, ok := Stamp(a)
	require.True(t, ok)
	b, _ := Seal(append([]byte(nil), data...))
	sb, _ := Stamp(b)
	assert.Equal(t, sa, sb, "same content, same stamp")
	for _, at := range []int{0, BlockSize + 3, len(data) - 1} {
		c := append([]byte(nil), data...)
		c[at] ^= 1
		sc, _ := Seal(c)
		st, _ := Stamp(sc)
		assert.NotEqual(t, sa, st, "a change at %d changes the stamp", at)
	}
	longer, _ := Seal(append(append([]byte(nil), data...), 0))
	sl, _ := Stamp(longer)
	assert.NotEqual(t, sa, sl)
	_, ok = Stamp([]byte{1})
	assert.False(t, ok)
	two, _ := Stamp(a, longer)
	swapped, _ := Stamp(longer, a)
	assert.NotEqual(t, two, swapped, "several values are stamped in order")
	_, ok = Stamp(a, []byte{1})
	assert.False(t, ok)
}

func TestTrustedIsNeverChecked(t *testing.T) {
	b := Trusted([]byte("plain bytes"))
	s, ok := b.Slice(0, 5)
	require.True(t, ok)
	assert.Equal(t, "plain", string(s))
	assert.NoError(t, b.Verify())
	assert.NoError(t, b.Err())
}

// Readers in several goroutines share the verified-blocks state.
func TestConcurrentReads(t *testing.T) {
	data := randomData(64*BlockSize, 11)
	sealed, err := Seal(append([]byte(nil), data...))
	require.NoError(t, err)
	b, err := Open(sealed)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i+8 <= len(data); i += 61 {
				v, ok := b.Uint64(i)
				if !ok || v == 0 && !bytes.Equal(data[i:i+8], make([]byte, 8)) {
					t.Errorf("read at %d", i)
					return
				}
			}
		}()
	}
	wg.Wait()
	assert.NoError(t, b.Err())
}

func FuzzOpen(f *testing.F) {
	good, _ := Seal(randomData(700, 1))
	f.Add(good, 3, 40)
	f.Add([]byte{0, 0, 0, 0}, 0, 0)
	f.Fuzz(func(t *testing.T, sealed []byte, lo, hi int) {
		b, err := Open(sealed)
		if err != nil {
			return
		}
		if s, ok := b.Slice(lo, hi); ok && len(s) != hi-lo {
			t.Fatalf("slice [%d,%d) has %d bytes", lo, hi, len(s))
		}
		if err := b.Verify(); err == nil {
			// A value that verifies re-seals to the same bytes.
			again, _ := Seal(append([]byte(nil), b.b...))
			if !bytes.Equal(again, sealed) {
				t.Fatalf("verified value does not re-seal to itself")
			}
		}
	})
}

func BenchmarkCheckedRead(b *testing.B) {
	data := randomData(1<<20, 2)
	sealed, _ := Seal(append([]byte(nil), data...))
	for _, tc := range []struct {
		name string
		open func() Bytes
	}{
		{"trusted", func() Bytes { return Trusted(data) }},
		{"sealed", func() Bytes { v, _ := Open(sealed); return v }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			v := tc.open()
			var s uint32
			for i := 0; i < b.N; i++ {
				x, _ := v.Uint32((i * 16) & (1<<20 - 1))
				s += x
			}
			_ = s
		})
	}
}

// A Seen carries verification from one open of a value to the next: a
// block verified once is trusted at the next open with the same Seen
// (the caller vouches that the bytes are the same), while unverified
// blocks, a fresh Seen and a value of another shape are checked.
func TestSeenCarriesVerificationAcrossOpens(t *testing.T) {
	data := randomData(4*BlockSize, 11)
	sealed, err := Seal(append([]byte(nil), data...))
	require.NoError(t, err)
	var seen Seen
	b, err := OpenSeen(sealed, &seen)
	require.NoError(t, err)
	_, ok := b.Slice(0, BlockSize) // block 0 verified
	require.True(t, ok)

	damaged := append([]byte(nil), sealed...)
	damaged[Overhead(len(data))+3] ^= 1             // in block 0
	damaged[Overhead(len(data))+2*BlockSize+3] ^= 1 // in block 2
	again, err := OpenSeen(damaged, &seen)
	require.NoError(t, err)
	_, ok = again.Slice(0, BlockSize)
	assert.True(t, ok, "block 0 was verified at the last open")
	_, ok = again.Slice(2*BlockSize, 2*BlockSize+4)
	assert.False(t, ok, "block 2 was never verified")

	fresh, err := OpenSeen(damaged, new(Seen))
	require.NoError(t, err)
	_, ok = fresh.Slice(0, BlockSize)
	assert.False(t, ok, "a fresh Seen trusts nothing")

	other := randomData(200*BlockSize, 12) // another shape: four words of bits
	otherSealed, err := Seal(append([]byte(nil), other...))
	require.NoError(t, err)
	otherSealed[Overhead(len(other))+1] ^= 1
	o, err := OpenSeen(otherSealed, &seen)
	require.NoError(t, err)
	_, ok = o.Slice(0, 4)
	assert.False(t, ok, "a value of another shape starts afresh")
}
