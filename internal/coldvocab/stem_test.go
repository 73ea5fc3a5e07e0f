package coldvocab

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/analyzer"
	"github.com/memidx/memidx/internal/analyzer/natural"
	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/normalize"
)

func TestHasStem(t *testing.T) {
	user := "user"
	texts := []string{
		"We deployed the deployments; publishing timed out.",
		"flaky abilities dying hoping skies x86_64 café v2 the",
	}
	var ents []normalize.Entry
	for i, tx := range texts {
		ents = append(ents, normalize.Entry{Index: i, Type: "message", Role: &user, Text: tx})
	}
	blob, _, err := Build(Digest{SessionID: "s"}, ents, coverage.Set{}, roomy)
	require.NoError(t, err)
	v, err := Open(blob)
	require.NoError(t, err)
	have := map[string]bool{}
	for _, tx := range texts {
		for _, tok := range analyzer.Tokens(tx) {
			if st, ok := natural.Term(tok); ok {
				have[st] = true
			}
		}
	}
	for _, st := range []string{"deploy", "publish", "time", "flaki", "abil", "die", "hope", "sky", "x86_64", "café", "v2",
		"the", "deployed", "timed", "run", "publ", "hop", "flak", "deploy_x"} {
		assert.Equal(t, have[st], v.HasTerm(natural.Key(st)), "stem %q", st)
	}
	assert.True(t, have["deploy"] && have["abil"] && !have["the"], "the model itself")
	assert.True(t, v.HasTerm("deployed"), "canonical terms are unchanged")
	assert.False(t, v.HasTerm("deploy"))
}
