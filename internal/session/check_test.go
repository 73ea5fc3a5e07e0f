package session

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIsSessionData(t *testing.T) {
	for _, tc := range []struct {
		data string
		want bool
	}{
		{"", true},
		{" \n\n\t", true},
		{`{"type":"session","version":3,"id":"x"}` + "\n", true},
		{"garbage line\n" + `{"type":"session","version":3,"id":"x"}` + "\n", true},
		{`{"type":"message","message":{"role":"user","content":"secret"}}` + "\n", false},
		{"root:x:0:0:root:/root:/bin/bash\n", false},
		{`{"type":"session"}` + "\n", false},
	} {
		assert.Equal(t, tc.want, IsSessionData([]byte(tc.data)), "%q", tc.data)
	}
}
