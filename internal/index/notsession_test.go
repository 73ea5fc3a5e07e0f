package index

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/lineage"
)

// A *.jsonl file without a session header (a stray file, or one swapped in
// for a session) is never hashed, recorded or indexed: it has no record,
// says invalid_header, and nothing of it reaches index.db. A blank file is
// a fresh session and passes.
func TestRefreshRefusesFilesThatAreNotSessions(t *testing.T) {
	f := newFixture(t, 2)
	stray := filepath.Join(f.dir, "stray.jsonl")
	body := `{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"zqstrayword"}}` + "\n"
	require.NoError(t, os.WriteFile(stray, []byte(body), 0o600))
	blank := filepath.Join(f.dir, "blank.jsonl")
	require.NoError(t, os.WriteFile(blank, []byte("\n \n"), 0o600))
	f.paths = append(f.paths, stray, blank)

	ix := f.index()
	rep := f.refresh(ix, lineage.Active)
	require.Len(t, rep.States, 4)
	assert.Nil(t, rep.States[2].Record)
	assert.Equal(t, coverage.InvalidHeader, rep.States[2].Reason())
	assert.Contains(t, rep.Coverage.Reasons, coverage.InvalidHeader)
	assert.False(t, rep.Coverage.Complete)
	require.NotNil(t, rep.States[3].Record, "a blank file is a fresh session")
	assert.Zero(t, rep.States[3].Record.EntryCount)

	db, err := Plaintext(f.cfg.IndexDir)
	require.NoError(t, err)
	sum := sha256.Sum256([]byte(body))
	for _, leak := range []string{"zqstrayword", hex.EncodeToString(sum[:]), stray} {
		assert.False(t, bytes.Contains(db, []byte(leak)), "%q is in index.db", leak)
	}

	_, err = ReadSource(stray)
	assert.True(t, errors.Is(err, ErrNotSession), "%v", err)
}
