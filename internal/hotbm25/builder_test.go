package hotbm25

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/memidx/memidx/internal/normalize"
)

// The builder appends each entry's msgpack as msgpack.Marshal writes it,
// so a shard built one entry at a time is the shard Build made before.
func TestAppendMsgpackIsMarshal(t *testing.T) {
	id, ts, role := "e1", 1.5, "user"
	for _, e := range []normalize.Entry{
		{},
		{EntryID: &id, Timestamp: &ts, Role: &role, Text: "hello wörld", Tools: []string{"a", "b"}},
	} {
		want, err := msgpack.Marshal(StoredFrom(&e))
		require.NoError(t, err)
		got, err := appendMsgpack([]byte("x"), StoredFrom(&e))
		require.NoError(t, err)
		assert.Equal(t, append([]byte("x"), want...), got)
	}
}
