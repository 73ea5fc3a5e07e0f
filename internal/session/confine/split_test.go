package confine

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSplitRel refuses what would leave a root.
func TestSplitRel(t *testing.T) {
	for _, tc := range []struct {
		rel  string
		want []string
	}{
		{"a", []string{"a"}},
		{filepath.Join("a", "b", "c.jsonl"), []string{"a", "b", "c.jsonl"}},
		{"..", nil},
		{filepath.Join("..", "x"), nil},
		{filepath.Join("a", "..", "..", "x"), nil},
		{".", nil},
		{"", nil},
		{string(filepath.Separator) + "etc", nil},
	} {
		got, err := splitRel(tc.rel)
		if tc.want == nil {
			assert.Error(t, err, tc.rel)
			continue
		}
		require.NoError(t, err, tc.rel)
		assert.Equal(t, tc.want, got, tc.rel)
	}
}
