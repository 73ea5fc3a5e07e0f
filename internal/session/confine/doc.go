// Package confine opens session files without ever leaving the allowed
// session roots: the trust boundary every read of a caller's file passes.
//
// memidx reads a file only inside an allowed session root (the sessions
// root, the explicit session dir) after resolving symlinks. Symlinked
// files, buckets and artifacts directories are followed when they resolve
// inside the roots; one that leaves them is skipped by the listing with the
// reason symlink_outside_session_roots. The check and the read are one
// step: a path under a session root that this process listed or resolved
// in (AddRoot, AddDirs) is opened relative to a handle on that root
// (openat2 RESOLVE_BENEATH on Linux, O_NOFOLLOW per component where
// openat2 is missing and on darwin and FreeBSD), a symlink below the root
// is resolved once and its target opened with no symlink on the way
// (OpenCanonical), and elsewhere the file opened must be the one its
// canonical path inside the roots names. A directory swapped for a symlink
// after a listing therefore makes the read fail (ErrOutsideRoots), never
// read outside.
package confine
