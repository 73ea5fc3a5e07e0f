package engine_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/session/locate"
)

// A derived Engine answers with its own working directory, live session
// and notices, over the index and watches of the Engine it came from.
func TestDeriveAnswersWithItsOwnSettings(t *testing.T) {
	w := newWorld(t)
	fileA := basicSession(w)
	projB := filepath.Join(w.root, "projB")
	bucketB := filepath.Join(w.agent, "sessions", locate.BucketNames(projB, w.env)[0])
	require.NoError(t, os.MkdirAll(bucketB, 0o755))
	body := fmt.Sprintf(`{"type":"session","version":3,"id":"s-b","timestamp":%q,"cwd":%q}`, ts, projB) + "\n" +
		msgLine("u1", "", ts, user("the deploy of project B failed on a quota")) + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(bucketB, "2026-09-01T10-00-09-000Z_s-b.jsonl"), []byte(body), 0o600))
	// An index directory others can read: every first answer says so.
	require.NoError(t, os.MkdirAll(w.cfg.IndexDir, 0o755))

	base := w.engine(func(o *engine.Options) { o.Watch = true })
	defer base.Close()
	first := recall(t, base, engine.RecallRequest{Query: "deploy", Scope: "project"})
	require.NotEmpty(t, first.Notices, "the base's first answer carries the index directory notice")

	optsFor := func(cwd string, live engine.LiveSession) engine.Options {
		cfg := w.cfg
		return engine.Options{AgentDir: w.agent, Cwd: cwd, Env: envOf(w), Memory: &cfg, Live: live}
	}
	tests := []struct {
		name  string
		opt   engine.Options
		scope engine.Scope
		want  []string
	}{
		{"another project", optsFor(projB, nil), "project", []string{"the deploy of project B failed on a quota"}},
		{"the base's project", optsFor(w.project, nil), "project", texts(first)},
		// The live leaf u1 leaves only the first entry on the branch.
		{"a live session", optsFor(w.project, engine.StaticLive{File: fileA, Leaf: "u1", Branch: []string{"u1"}}), "session", []string{"Why does the deploy timeout at 30 seconds?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := base.Derive(tt.opt)
			require.NoError(t, err)
			defer d.Close()
			got := recall(t, d, engine.RecallRequest{Query: "deploy", Scope: tt.scope})
			assert.Equal(t, tt.want, texts(got))
			assert.Equal(t, first.Notices, got.Notices, "each derived Engine's first answer carries its notices")
			again := recall(t, d, engine.RecallRequest{Query: "deploy", Scope: tt.scope})
			assert.Empty(t, again.Notices, "only the first")
		})
	}
	// Closing a derived Engine leaves the base serving.
	assert.NotEmpty(t, texts(recall(t, base, engine.RecallRequest{Query: "deploy", Scope: "project"})))
}

// Derive refuses options that resolve to other directories or another
// configuration, and a closed base ends its derived Engines.
func TestDeriveRefusesOtherSettings(t *testing.T) {
	w := newWorld(t)
	basicSession(w)
	base := w.engine()
	other := t.TempDir()
	for name, change := range map[string]func(o *engine.Options){
		"index dir": func(o *engine.Options) { o.IndexDir = other },
		"agent dir": func(o *engine.Options) {
			o.AgentDir = w.root + "/home/.omp/other"
			os.MkdirAll(o.AgentDir+"/sessions", 0o755)
		},
		"config": func(o *engine.Options) { o.Memory.HotSessions = 1 },
	} {
		t.Run(name, func(t *testing.T) {
			cfg := w.cfg
			o := engine.Options{AgentDir: w.agent, Cwd: w.project, Env: envOf(w), Memory: &cfg}
			change(&o)
			_, err := base.Derive(o)
			var nd *engine.NotDerivableError
			require.True(t, errors.As(err, &nd), "got %v", err)
		})
	}
	cfg := w.cfg
	d, err := base.Derive(engine.Options{AgentDir: w.agent, Cwd: w.project, Env: envOf(w), Memory: &cfg})
	require.NoError(t, err)
	require.NoError(t, base.Close())
	_, err = d.Recall(ctx, engine.RecallRequest{Query: "deploy"})
	assert.ErrorIs(t, err, engine.ErrClosed)
	_, err = base.Derive(engine.Options{AgentDir: w.agent, Cwd: w.project, Env: envOf(w), Memory: &cfg})
	assert.ErrorIs(t, err, engine.ErrClosed)
}

// envOf is the world's environment as engine's own type.
func envOf(w *world) *engine.Env {
	env := engine.Env(w.env)
	return &env
}
