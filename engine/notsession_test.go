package engine_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/coverage"
)

// A *.jsonl in a bucket that holds no session header is not a session:
// listed by name with invalid_header, never its size, mtime or hash, and
// none of its text is found.
func TestHeaderlessFileIsOnlyNamed(t *testing.T) {
	w := newWorld(t)
	w.write("s1", msgLine("u1", "", ts, user("a real session")))
	stray := filepath.Join(w.bucket, "stray.jsonl")
	require.NoError(t, os.WriteFile(stray, []byte(msgLine("x", "", ts, user("zqstraytext"))+"\n"), 0o600))
	e := w.engine()

	p := recall(t, e, engine.RecallRequest{Query: "zqstraytext", Scope: "project"})
	assert.Zero(t, p.Total)
	assert.Contains(t, p.Coverage.Reasons, coverage.InvalidHeader)

	sr, err := e.Sessions(ctx, engine.SessionsRequest{Scope: "project"})
	require.NoError(t, err)
	found := false
	for _, row := range sr.Sessions {
		if row.File != stray {
			continue
		}
		found = true
		assert.Equal(t, []string{coverage.InvalidHeader}, row.Reasons)
		assert.Zero(t, row.Size)
		assert.Zero(t, row.Mtime)
		assert.Nil(t, row.SourceHash)
	}
	assert.True(t, found, "the stray file is named")
}
