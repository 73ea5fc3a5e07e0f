package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
)

// A hit's kind is a method at every level, and the wire's "kind" leads
// each hit's JSON as before.
func TestHitKindsAgree(t *testing.T) {
	role := "user"
	follow := engine.FabricCall{Ref: "memory.expand", Args: json.RawMessage(`{}`)}
	for _, tc := range []struct {
		hit    engine.Hit
		inner  interface{ Kind() engine.HitKind }
		kind   engine.HitKind
		prefix string
	}{
		{engine.Hit{Entry: &engine.EntryHit{SessionID: "s1", Role: &role, Snippet: "<b>", Follow: follow}}, engine.EntryHit{}, engine.HitEntry,
			`{"kind":"entry","sessionId":"s1","tier":"","index":0,"entryId":null,`},
		{engine.Hit{Session: &engine.SessionHit{SessionID: "s2", Cwd: "/p", Follow: follow}}, engine.SessionHit{}, engine.HitSession,
			`{"kind":"session","sessionId":"s2","tier":"","cwd":"/p","lastTimestamp":null,`},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			assert.Equal(t, tc.kind, tc.hit.Kind())
			assert.Equal(t, tc.kind, tc.inner.Kind())
			b, err := json.Marshal(tc.hit)
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(string(b), tc.prefix), string(b))
			var back engine.Hit
			require.NoError(t, json.Unmarshal(b, &back))
			assert.Equal(t, tc.hit, back)
		})
	}
}

// Times are epoch milliseconds in requests as in results: a fractional
// bound goes through a request unchanged, and the conversions agree.
func TestTimesAreEpochMs(t *testing.T) {
	r, eo := engine.DecodeRecall([]byte(`{"since":1788256860000.25,"until":1788257109000}`))
	require.Nil(t, eo)
	b, err := json.Marshal(r)
	require.NoError(t, err)
	assert.Equal(t, `{"since":1788256860000.25,"until":1788257109000}`, string(b))

	at := time.UnixMilli(1788256860000).Add(250 * time.Microsecond)
	assert.Equal(t, 1788256860000.25, *engine.EpochMs(at))
	assert.True(t, engine.EpochTime(engine.EpochMs(at)).Equal(at))
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1e300} {
		assert.True(t, engine.EpochTime(&bad).IsZero(), "%v", bad)
	}
	assert.True(t, engine.EpochTime(nil).IsZero())
}

// A Go host's time bound JSON cannot carry is refused, as the wire
// refuses one it cannot decode.
func TestNonFiniteTimeBoundsRefused(t *testing.T) {
	w := newWorld(t)
	w.write("s-nan", msgLine("u1", "", ts, user("zqnan")))
	e := w.engine()
	defer e.Close()
	nan, inf := math.NaN(), math.Inf(-1)
	for _, req := range []engine.RecallRequest{
		{Query: "zqnan", Scope: engine.ScopeGlobal, Since: &nan},
		{Query: "zqnan", Scope: engine.ScopeGlobal, Until: &inf},
	} {
		p, err := e.Recall(context.Background(), req)
		require.NoError(t, err)
		require.NotNil(t, p.Error)
		assert.Equal(t, "invalid_request", p.Error.Code)
		assert.Equal(t, 0, p.Total)
	}
	finite := 0.0
	assert.Equal(t, 1, recall(t, e, engine.RecallRequest{Query: "zqnan", Scope: engine.ScopeGlobal, Since: &finite}).Total)
}

// A hit says its kind; its JSON begins with it.
func ExampleHit_Kind() {
	hits := []engine.Hit{{Entry: &engine.EntryHit{SessionID: "s1", Index: 4}}, {Session: &engine.SessionHit{SessionID: "s2"}}}
	for _, h := range hits {
		b, _ := json.Marshal(h)
		fmt.Println(h.Kind(), string(b[:25]))
	}
	// Output:
	// entry {"kind":"entry","sessionI
	// session {"kind":"session","sessio
}

// Times are epoch milliseconds; EpochMs bounds a recall by a time.Time.
func ExampleEpochMs() {
	req := engine.RecallRequest{Query: "flaky", Since: engine.EpochMs(time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC))}
	b, _ := json.Marshal(req)
	fmt.Println(string(b))
	fmt.Println(engine.EpochTime(req.Since).UTC().Format(time.RFC3339))
	// Output:
	// {"query":"flaky","since":1788220800000}
	// 2026-09-01T00:00:00Z
}

// A host adds its own provider to the catalog an engine serves.
func ExampleCatalog_Register() {
	c := engine.DefaultCatalog()
	err := c.Register(engine.CatalogProvider{Name: "host", Description: "the host's own actions",
		Actions: []engine.CatalogAction{{Name: "ping", Description: "answer pong", Risk: "read"}}})
	fmt.Println(err)
	for _, p := range c.Providers() {
		fmt.Println(p.Name, len(p.Actions), p.Actions[0].Ref)
	}
	// Output:
	// <nil>
	// host 1 host.ping
	// memory 3 memory.expand
}

// A rebuild reports what it read and which sessions it could not index.
func ExampleEngine_Rebuild() {
	e, done := exampleEngine()
	defer done()
	rep, _ := e.Rebuild(context.Background(), engine.RebuildRequest{Scope: engine.ScopeGlobal})
	fmt.Println(rep.Seen, rep.Indexed, rep.Rebuilt, len(rep.Unindexed), rep.Coverage.Complete)
	s, _ := e.InspectSession(context.Background(), "0198f2a4", "active")
	fmt.Println(s.Record.Tier, s.Record.EntryCount, s.Shard != nil, s.Digest == nil)
	// Output:
	// 1 1 1 0 true
	// hot 15 true true
}
