package termtab

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An Appender writes byte for byte the table Build writes.
func TestAppenderEqualsBuild(t *testing.T) {
	for _, n := range []int{0, 1, 2, 100} {
		var terms []string
		var pays [][]byte
		var a Appender
		for i := range n {
			term, pay := fmt.Sprintf("t%04d", i), []byte(fmt.Sprintf("p%d", i*i))
			if i%7 == 3 {
				pay = nil
			}
			terms, pays = append(terms, term), append(pays, pay)
			require.NoError(t, a.Append([]byte(term), pay))
		}
		if pays == nil {
			pays = [][]byte{}
		}
		want, err := Build(terms, pays)
		require.NoError(t, err)
		assert.Equal(t, want, a.Bytes(), "n=%d", n)
		assert.Equal(t, n, a.Len())
	}
	var a Appender
	require.NoError(t, a.Append([]byte("b"), nil))
	assert.Error(t, a.Append([]byte("b"), nil), "a repeated term")
	assert.Error(t, a.Append([]byte("a"), nil), "a smaller term")
}
