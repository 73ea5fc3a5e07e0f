package session

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A SpanReader returns the file's bytes for spans in and out of order and
// larger than its block, and says so when a read finds the file cut below
// a span (bytes it holds already are not read again).
func TestSpanReader(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), (3*spanAhead)/16+7)
	p := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(p, data, 0o600))
	f, err := os.Open(p)
	require.NoError(t, err)
	defer f.Close()
	r := NewSpanReader(f)
	n := int64(len(data))
	for _, sp := range [][2]int64{
		{0, 10}, {10, 20}, {spanAhead - 3, spanAhead + 3}, {5, 6}, // back before the block
		{100, 100 + 2*spanAhead}, {n - 16, n}, {0, n},
	} {
		b, ok := r.Read(sp[0], sp[1])
		require.True(t, ok, "%v", sp)
		assert.Equal(t, data[sp[0]:sp[1]], b, "%v", sp)
	}
	require.NoError(t, os.Truncate(p, n/2))
	_, ok := NewSpanReader(f).Read(n/2+10, n/2+20)
	assert.False(t, ok, "the file was cut below the span")
}
