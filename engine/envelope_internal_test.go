package engine

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestHitLenIsJSONLen: the short way of measuring a hit counts what the
// encoder writes, for text that JSON escapes (HTML characters, controls,
// quotes) and for text outside the BMP.
func TestHitLenIsJSONLen(t *testing.T) {
	role, tool := "assistant", "bash <&>"
	ts := 1.7e12
	for _, text := range []string{
		"", "plain", "<script>&amp;</script>", "tab\there \"quoted\" \\ back",
		"\x00\x1f control", "emoji 😀 and 中文", "line\u2028sep\u2029",
	} {
		hits := []Hit{
			{Entry: &EntryHit{Kind: "entry", SessionID: text, Snippet: text, Role: &role, Tool: &tool, Timestamp: &ts,
				Follow: FabricCall{Ref: "memory_expand", Args: json.RawMessage(`{"sessionId": "<x>",  "n": 1}`)}}},
			{Session: &SessionHit{Kind: "session", SessionID: "s", Cwd: text}},
		}
		for _, h := range hits {
			assert.Equal(t, jsonLen(h), hitLen(h), "%q", text)
		}
	}
	assert.Equal(t, 1<<30, hitLen(Hit{}), "an empty hit never fits")
}
