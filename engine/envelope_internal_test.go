package engine

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
			{Entry: &EntryHit{SessionID: text, Snippet: text, Role: &role, Tool: &tool, Timestamp: &ts,
				Follow: FabricCall{Ref: "memory_expand", Args: json.RawMessage(`{"sessionId": "<x>",  "n": 1}`)}}},
			{Session: &SessionHit{SessionID: "s", Cwd: text}},
		}
		var e hitEncoder
		var want []byte
		for _, h := range hits {
			assert.Equal(t, jsonLen(h), hitLen(h), "%q", text)
			b, err := h.MarshalJSON()
			require.NoError(t, err)
			want = append(want, b...)
			require.NoError(t, e.encode(h))
		}
		assert.Equal(t, string(want), e.buf.String(), "one encoder, hit after hit: %q", text)
	}
	assert.Equal(t, 1<<30, hitLen(Hit{}), "an empty hit never fits")
}

// TestRecallPageJSONIsTheEncoders: the page's own MarshalJSON writes the
// bytes encoding/json writes for its fields, with HTML escaped or not as
// the encoder is told, for pages with and without hits, next, error and
// notices.
func TestRecallPageJSONIsTheEncoders(t *testing.T) {
	type fields RecallPage // the same fields, without the method
	role := "user <b>"
	next := &FabricCall{Ref: "memory.recall", Args: json.RawMessage(`{"query":"a&b"}`)}
	pages := []RecallPage{
		{},
		{Hits: []Hit{}, Coverage: failureCoverage("invalid_request"), Error: &ErrorObject{Code: "invalid_request", Message: "bad <query> & more"}},
		{Total: 3, Next: next, Hits: []Hit{
			{Entry: &EntryHit{SessionID: "s1", Role: &role, Snippet: "<script>&\u2028😀",
				Follow: FabricCall{Ref: "memory.expand", Args: json.RawMessage(`{"sessionId":"s1"}`)}}},
			{Session: &SessionHit{SessionID: "s2", Cwd: "/a<b>"}},
		}},
		{Total: 1, Hits: []Hit{{Session: &SessionHit{}}},
			Notices: []Notice{{File: "/x.yml", Key: "k", Message: "m <&>"}}},
	}
	for i, p := range pages {
		for _, escape := range []bool{true, false} {
			encode := func(v any) string {
				var buf bytes.Buffer
				enc := json.NewEncoder(&buf)
				enc.SetEscapeHTML(escape)
				require.NoError(t, enc.Encode(v))
				return buf.String()
			}
			assert.Equal(t, encode(fields(p)), encode(p), "page %d, escape %v", i, escape)
			assert.Equal(t, encode(&CallResult{Recall: &p}), encode(fields(p)), "page %d, escape %v, as a call result", i, escape)
		}
		// Appended after a head, in whatever room the head's array has.
		want, err := p.MarshalJSON()
		require.NoError(t, err)
		for _, head := range [][]byte{nil, []byte(`{"id":1,"result":`), append(make([]byte, 0, 1<<16), "head"...)} {
			got, err := p.AppendJSON(head)
			require.NoError(t, err)
			assert.Equal(t, string(head)+string(want), string(got), "page %d appended", i)
			got, err = (&CallResult{Recall: &p}).AppendJSON(head)
			require.NoError(t, err)
			assert.Equal(t, string(head)+string(want), string(got), "page %d appended as a call result", i)
		}
	}
	// Whatever the last pages were: tiny hits, none, one huge.
	small := pages[2] // a small hit under a long tail
	small.Hits = []Hit{{Session: &SessionHit{}}}
	small.Notices = []Notice{{Key: "k", Message: strings.Repeat("m", 4096)}}
	huge := pages[2]
	huge.Hits = []Hit{{Entry: &EntryHit{SessionID: "s", Snippet: strings.Repeat("x", 1<<20)}}}
	for _, before := range []RecallPage{small, pages[0], huge, small} {
		_, err := before.MarshalJSON()
		require.NoError(t, err)
		for i, p := range pages {
			want, err := json.Marshal(fields(p))
			require.NoError(t, err)
			got, err := p.MarshalJSON()
			require.NoError(t, err)
			require.JSONEq(t, string(want), string(got), "page %d after another", i)
		}
	}
	other := &CallResult{Sessions: &SessionsResult{}}
	want, err := other.MarshalJSON()
	require.NoError(t, err)
	got, err := other.AppendJSON([]byte("x"))
	require.NoError(t, err)
	assert.Equal(t, "x"+string(want), string(got), "another answer appended")
}
