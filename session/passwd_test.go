package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPasswdHome(t *testing.T) {
	const file = `# a comment
root:x:0:0:root:/root:/bin/bash
+nis-entry
daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin
short:x:7
dev:x:1000:1000:Dev, Room 1:/home/dev:/bin/zsh
dup:x:1000:1000::/home/second:/bin/sh
colon:x:1001:1001::/home/with:colon:/bin/sh
nohome:x:1002:1002:::/bin/sh
`
	tests := []struct {
		uid  int
		want string
	}{
		{0, "/root"},
		{1, "/usr/sbin"},
		{1000, "/home/dev"}, // the first entry for a uid wins
		{1001, "/home/with"},
		{1002, ""},
		{7, ""}, // a short line is no entry
		{10, ""},
		{100, ""}, // no prefix match on 1000 or 1001
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, passwdHomeFrom(strings.NewReader(file), tc.uid), "uid %d", tc.uid)
	}

	path := filepath.Join(t.TempDir(), "passwd")
	assert.NoError(t, os.WriteFile(path, []byte(file), 0o644))
	assert.Equal(t, "/home/dev", passwdHome(path, 1000))
	assert.Equal(t, "", passwdHome(filepath.Join(t.TempDir(), "missing"), 0))
}

// TestDefaultEnvWithoutHome: an unset $HOME falls back to the password
// file, as OMP's os.homedir() does.
func TestDefaultEnvWithoutHome(t *testing.T) {
	want := passwdHome("/etc/passwd", os.Getuid())
	if want == "" {
		t.Skip("no /etc/passwd entry for this uid")
	}
	t.Setenv("HOME", "")
	assert.Equal(t, want, DefaultEnv().Home)
}
