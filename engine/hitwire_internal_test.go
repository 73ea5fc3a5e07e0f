package engine

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A hit is encoded from where it is, not from a copy: a page encodes its
// hits twice a call (measured, then written), and a copy of each was a
// server's garbage. What is left is the small value that gives the JSON
// its "kind" first.
func TestHitEncodingCopiesNoHit(t *testing.T) {
	role, id := "user", "e1"
	hits := []Hit{
		{Entry: &EntryHit{SessionID: "s1", Tier: "hot", EntryID: &id, Role: &role, Snippet: "a <b> & c",
			Follow: FabricCall{Ref: "memory.expand", Args: json.RawMessage(`{"sessionId":"s1"}`)}}},
		{Session: &SessionHit{SessionID: "s2", Tier: "cold",
			Follow: FabricCall{Ref: "memory.recall", Args: json.RawMessage(`{"query":"x"}`)}}},
	}
	for _, h := range hits {
		want, err := json.Marshal(h)
		require.NoError(t, err)
		var e hitEncoder
		require.NoError(t, e.encode(h))
		assert.JSONEq(t, string(want), e.buf.String())
		assert.True(t, strings.HasPrefix(e.buf.String(), `{"kind":`), "kind first: %s", e.buf.String())
		if raceInternal {
			continue // its instrumentation allocates
		}
		allocs := testing.AllocsPerRun(50, func() {
			e.buf.Reset()
			if err := e.encode(h); err != nil {
				t.Fatal(err)
			}
		})
		assert.LessOrEqual(t, allocs, 1.0, "%s hit", h.Kind())
	}
}
