package session

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strconv"
)

// passwdHome is the home directory of uid in the password file at path,
// or "" when the file has no entry for it. It is OMP's fallback for an
// unset $HOME (os.homedir() asks the password database). It reads the
// file itself rather than importing os/user: with cgo enabled, os/user
// links the C library and starts cgo's threads in every process, about
// 0.9 ms of each one-shot command on this machine, for a lookup that
// runs only when $HOME is unset. (A host whose accounts live only in
// NSS, such as LDAP, and that unsets $HOME, gets no home here.)
func passwdHome(path string, uid int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	return passwdHomeFrom(f, uid)
}

// passwdHomeFrom scans passwd(5) lines, name:password:UID:GID:GECOS:dir:shell;
// the first entry for uid wins, as getpwuid's file backend has it.
func passwdHomeFrom(r io.Reader, uid int) string {
	want := []byte(strconv.Itoa(uid))
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] == '#' || line[0] == '+' || line[0] == '-' {
			continue
		}
		f := bytes.SplitN(line, []byte(":"), 7)
		if len(f) < 6 || !bytes.Equal(f[2], want) {
			continue
		}
		return string(f[5])
	}
	return ""
}
