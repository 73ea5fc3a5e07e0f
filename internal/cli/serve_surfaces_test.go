package cli

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serveResult sends one request to a fresh serve connection and decodes
// its result into v.
func serveResult(t *testing.T, w *serveWorld, method string, params any, v any) {
	t.Helper()
	ms := roundTripMessages(t, w.server(), req(1, method, params))
	m, ok := byID(ms)["1"]
	require.True(t, ok, "an answer to request 1")
	require.Nil(t, m.Error, m.raw)
	require.NoError(t, json.Unmarshal(m.Result, v), m.raw)
}

// Without a live session, serve's default scope names what it searched
// and how to widen it, as every surface does; an explicit project scope
// does not.
func TestServeDefaultScopeNotice(t *testing.T) {
	w := newServeWorld(t)
	path := w.write("s1", "the deploy timeout is thirty seconds", "raise it")
	for _, tc := range []struct {
		method string
		params map[string]any
		want   bool
	}{
		{"memory.recall", map[string]any{"query": "deploy"}, true},
		{"memory.sessions", map[string]any{}, true},
		{"memory.recall", map[string]any{"query": "deploy", "scope": "project"}, false},
	} {
		t.Run(fmt.Sprint(tc.method, tc.params), func(t *testing.T) {
			var res struct {
				Notices []struct{ Key, Message string } `json:"notices"`
			}
			serveResult(t, w, tc.method, tc.params, &res)
			var msg string
			for _, n := range res.Notices {
				if n.Key == "scope" {
					msg = n.Message
				}
			}
			if !tc.want {
				assert.Empty(t, msg)
				return
			}
			assert.Contains(t, msg, path)
			assert.Contains(t, msg, `scope "project"`)
		})
	}
}

// serve resolves session id prefixes as the engine does: a unique one
// names its session, a shared one is ambiguous_session with candidates.
func TestServeSessionPrefix(t *testing.T) {
	w := newServeWorld(t)
	a := w.write("0198f2a4-aaaa-7000-8000-000000000001", "the deploy timeout")
	b := w.write("0198f2a4-bbbb-7000-8000-000000000002", "the deploy timeout")
	for _, tc := range []struct {
		session, want, code string
	}{
		{"0198f2a4-aa", a, ""},
		{"0198f2a4-bb", b, ""},
		{"0198f2a4", "", "ambiguous_session"},
		{"0198f2a", "", "session_not_found"},
	} {
		t.Run(tc.session, func(t *testing.T) {
			var res struct {
				Session string
				Error   *struct {
					Code       string
					Candidates []string
				}
			}
			serveResult(t, w, "memory.expand", map[string]any{"session": tc.session, "indices": []int{0}}, &res)
			if tc.code == "" {
				require.Nil(t, res.Error)
				assert.Equal(t, tc.want, res.Session)
				return
			}
			require.NotNil(t, res.Error)
			assert.Equal(t, tc.code, res.Error.Code)
			if tc.code == "ambiguous_session" {
				assert.Equal(t, []string{b, a}, res.Error.Candidates)
			}
		})
	}
}
