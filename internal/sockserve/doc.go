// Package sockserve is the local transport between a running memidx
// server and a one-shot memidx command of the same user: a Unix socket in
// the index directory, guarded by a lock file beside it.
//
// The socket is <index dir>/memidx.sock (SocketName), mode 0600 in the
// index directory (which memidx creates 0700); a server holds an
// exclusive flock on <index dir>/memidx.sock.lock (LockName) for as long
// as it listens, so a second server can tell a live one (the lock is
// held: ErrBusy) from a socket file left by a killed one (the lock is
// free and a connect is refused). Such a stale file is replaced only when
// it is a socket owned by this user; anything else at that name is left
// alone (ForeignFileError): memidx never removes what it did not create.
//
// Both ends check the peer's user id (SO_PEERCRED on Linux, LOCAL_PEERCRED
// on macOS and FreeBSD); a peer of another user is refused. Other
// platforms (Windows, the other BSDs, Plan 9, js) have no socket:
// Listen and Dial answer ErrUnsupported and the command answers itself.
//
// The socket is driven with system calls (golang.org/x/sys/unix) on
// pollable *os.File descriptors, not package net, whose import would link
// cgo into every memidx process.
//
// Messages are frames: a kind byte, a 4-byte big-endian length and the
// payload (WriteFrame, ReadFrame); a reader refuses a frame longer than
// the bound it is given.
package sockserve
