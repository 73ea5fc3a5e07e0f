package locate

import (
	"bufio"
	"bytes"
	"io"
	"os"
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

// passwdHomeFrom scans passwd(5) lines, name:password:UID:GID:GECOS:dir:shell,
// as glibc's files backend reads them: leading blanks skipped, empty,
// comment and NIS (+/-) lines ignored, a line whose UID or GID is not a
// number is no entry; the first entry for uid wins. A line of any length
// is read (getpwuid_r's callers grow their buffer until it fits), keeping
// only its first six fields.
func passwdHomeFrom(r io.Reader, uid int) string {
	if uid < 0 {
		return ""
	}
	br := bufio.NewReader(r)
	var line []byte
	colons := 0
	for {
		chunk, err := br.ReadSlice('\n')
		// The home is the sixth field: past its colon nothing is kept.
		if colons < 6 {
			line = append(line, chunk...)
			colons += bytes.Count(chunk, []byte{':'})
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if home, ok := passwdEntryHome(line, uint64(uid)); ok {
			return home
		}
		if err != nil {
			return ""
		}
		line, colons = line[:0], 0
	}
}

// passwdEntryHome is the home of line when it is an entry for uid.
func passwdEntryHome(line []byte, uid uint64) (string, bool) {
	line = bytes.TrimSuffix(line, []byte{'\n'})
	line = bytes.TrimSuffix(line, []byte{'\r'})
	line = bytes.TrimLeft(line, " \t\n\v\f\r")
	if len(line) == 0 || line[0] == '#' || line[0] == '+' || line[0] == '-' {
		return "", false
	}
	f := bytes.SplitN(line, []byte(":"), 7)
	if len(f) < 6 {
		return "", false
	}
	id, ok := passwdNumber(f[2])
	if !ok || id != uid {
		return "", false
	}
	if _, ok := passwdNumber(f[3]); !ok {
		return "", false
	}
	return string(f[5]), true
}

// passwdNumber reads a UID or GID field as strtoul does for glibc's
// parser: leading blanks, an optional '+', then decimal digits to the end.
func passwdNumber(b []byte) (uint64, bool) {
	b = bytes.TrimLeft(b, " \t\n\v\f\r")
	b = bytes.TrimPrefix(b, []byte{'+'})
	if len(b) == 0 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' || n > (1<<64-1-9)/10 {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}
