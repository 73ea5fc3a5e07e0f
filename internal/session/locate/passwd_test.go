package locate

import (
	"os"
	"path/filepath"
	"runtime"
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
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		t.Skip("the system is asked there (TestDefaultEnvWithoutHomeAsksTheSystem)")
	}
	want := passwdHome("/etc/passwd", os.Getuid())
	if want == "" {
		t.Skip("no /etc/passwd entry for this uid")
	}
	t.Setenv("HOME", "")
	assert.Equal(t, want, DefaultEnv().Home)
}

// TestPasswdHomeAsTheCLibraryReads: the lines glibc's files backend (and
// Go's own os/user parser) reads differently from a plain split. A line
// longer than the scanner's buffer is one entry that is not the user's, not
// the end of the file; leading blanks before a comment or a NIS line are
// skipped; a line whose GID is not a number is no entry, so the next one
// for the same UID is the user's; a UID is a number (strtoul's), not a
// string.
func TestPasswdHomeAsTheCLibraryReads(t *testing.T) {
	long := "big:x:5:5:" + strings.Repeat("g", 2<<20) + ":/home/big:/bin/sh\n"
	tests := []struct {
		name, file string
		uid        int
		want       string
	}{
		{"after a long line", long + "dev:x:1000:1000::/home/dev:/bin/sh\n", 1000, "/home/dev"},
		{"a long line's own entry", "dev:x:1000:1000:" + strings.Repeat("g", 2<<20) + ":/home/dev:/bin/sh\n", 1000, "/home/dev"},
		{"an indented comment", "  #x:x:1000:1000::/nowhere:/bin/sh\ndev:x:1000:1000::/home/dev:/bin/sh\n", 1000, "/home/dev"},
		{"an indented NIS line", "\t+x:x:1000:1000::/nis:/bin/sh\ndev:x:1000:1000::/home/dev:/bin/sh\n", 1000, "/home/dev"},
		{"an indented entry", "  dev:x:1000:1000::/home/dev:/bin/sh\n", 1000, "/home/dev"},
		{"a GID that is no number", "bad:x:1000:staff::/wrong:/bin/sh\ndev:x:1000:1000::/home/dev:/bin/sh\n", 1000, "/home/dev"},
		{"CRLF, no shell", "dev:x:1000:1000::/home/dev\r\n", 1000, "/home/dev"},
		{"a UID with leading zeros", "dev:x:01000:1000::/home/dev:/bin/sh\n", 1000, "/home/dev"},
		{"a UID past 64 bits", "dev:x:18446744073709552616:1000::/home/dev:/bin/sh\n", 1000, ""},
		{"no final newline", "dev:x:1000:1000::/home/dev:/bin/sh", 1000, "/home/dev"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, passwdHomeFrom(strings.NewReader(tc.file), tc.uid), tc.name)
	}
}
