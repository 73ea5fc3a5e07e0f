//go:build unix

package engine_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
)

// An existing index directory that other users can read is never chmod-ed
// (it is not memidx's), but the first answer says so in its notices, once.
func TestNoticeForReadableIndexDirectory(t *testing.T) {
	w := newWorld(t)
	w.write("s1", msgLine("u1", "", ts, user("a shared directory")))
	require.NoError(t, os.MkdirAll(w.cfg.IndexDir, 0o755))
	require.NoError(t, os.Chmod(w.cfg.IndexDir, os.ModeSticky|0o777))

	e := w.engine()
	p := recall(t, e, engine.RecallRequest{Query: "shared", Scope: "project"})
	require.Len(t, p.Notices, 1)
	assert.Equal(t, "indexDir", p.Notices[0].Key)
	assert.Contains(t, p.Notices[0].Message, "can be read by other users")
	assert.Equal(t, 1, p.Total)
	again := recall(t, e, engine.RecallRequest{Query: "shared", Scope: "project"})
	assert.Empty(t, again.Notices, "once per Engine")

	st, err := os.Stat(w.cfg.IndexDir)
	require.NoError(t, err)
	assert.Equal(t, os.ModeDir|os.ModeSticky|0o777, st.Mode(), "the directory keeps its mode and sticky bit")

	// A private directory gives no notice.
	require.NoError(t, os.Chmod(w.cfg.IndexDir, 0o700))
	sr, err := w.engine().Sessions(ctx, engine.SessionsRequest{Scope: "project"})
	require.NoError(t, err)
	assert.Empty(t, sr.Notices)
}
