package sessiontext

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLinear(t *testing.T) {
	lines := strings.Split(strings.TrimSuffix(Linear("s1", "alpha", `quote " and \ slash`), "\n"), "\n")
	require.Len(t, lines, 3)
	var head, first, second map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &head))
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &first))
	require.NoError(t, json.Unmarshal([]byte(lines[2]), &second))
	assert.Equal(t, "session", head["type"])
	assert.Equal(t, "s1", head["id"])
	assert.Nil(t, first["parentId"])
	assert.Equal(t, "s1-0", second["parentId"])
	msg := second["message"].(map[string]any)
	assert.Equal(t, `quote " and \ slash`, msg["content"])
}
