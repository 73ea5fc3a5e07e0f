// Package session lists OMP session files, resolves scopes to them, and
// reads one exactly as the OMP host's text loader does.
//
// # Reading
//
// [ReadFile] and [Parse] follow OMP 18's lenient JSONL loader, checked
// against the host itself on every fixture in testdata/omp (see its
// README.md for how the host's answers were recorded):
//
//   - a UTF-8 BOM is stripped; CRLF and blank lines are fine;
//   - a valid 256-byte title slot on the first line is taken out and its
//     title folded into the header (an empty title means none); a
//     title-shaped line that fails the slot checks is an ordinary record;
//   - JSON values are parsed one after another and may span lines; the
//     first value starting on a line is kept and the rest of the line
//     ignored; a value with a syntax error drops the line it started on and
//     parsing resumes on the next line; a value still incomplete at the end
//     drops everything from its start (a torn tail);
//   - numbers, strings, arrays and {} are records like objects; a null line
//     makes OMP throw, so memidx drops it with the reason null_record;
//   - the first value is the header when it is an object with type
//     "session" and a string id; otherwise OMP refuses the file and memidx
//     reports invalid_header and keeps every value as a record;
//   - versions compare as JavaScript numbers (missing and null are 1): v1
//     records become one chain in file order with synthetic ids (OMP's are
//     random), v1 and v2 hookMessage roles read as custom;
//   - records that make OMP's loader throw (a message record without a
//     message, a usage object without cost) are kept and flagged
//     host_refuses_file.
//
// Every dropped line is a Malformed entry with a reason (malformed_line,
// torn_tail, null_record), because its text is not indexed. SourceHash is
// the SHA-256 of every byte. Files are opened read-only and never written.
// Strings in records alias the file's bytes (see package jsjson).
//
// # Discovery and scopes
//
// Package locate finds the directories (agent dir, sessions root,
// explicit session dir) and the bucket names of a cwd; this package lists
// and resolves within them. ListSessions lists <sessionsRoot>/<bucket>/*.jsonl like OMP, the explicit
// flat session dir, and (by default) subagent and advisor sessions nested
// in artifacts directories; it skips temp, lock and backup files and
// anything that is not a regular file. A Ref's Path is canonical, so a file
// has one key however it was reached. One Resolver serves every action:
// ParseScope refuses unknown scopes (including "all", which the reference,
// docs/REFERENCE.md, silently widened to global) with invalid_scope;
// session:<id-or-path> answers exactly one file, ambiguous_session with
// every candidate, or session_not_found, never an empty result; an id
// prefix of at least MinIDPrefix characters names the one session whose id
// starts with it (a full id or file name wins); a cwd without a bucket of
// its own is seen as its nearest ancestor that has one, below the home
// directory and the root (Resolution.ProjectDir, Subdir); a project
// without a bucket carries project_session_dir_missing.
//
// # Trust boundary
//
// memidx reads a file only inside an allowed session root (the sessions
// root, the explicit session dir) after resolving symlinks. Symlinked
// files, buckets and artifacts directories are followed when they resolve
// inside the roots; one that leaves them is skipped with the reason
// symlink_outside_session_roots. The check and the read are one step: a
// path under a session root that this process listed or resolved in is
// opened relative to a handle on that root (openat2 RESOLVE_BENEATH on
// Linux, O_NOFOLLOW per component where openat2 is missing and on darwin
// and FreeBSD), a symlink below the root is resolved once and its target
// opened with no symlink on the way, and elsewhere the file opened must be
// the one its canonical path inside the roots names. A directory swapped
// for a symlink after a listing therefore makes the read fail
// (ErrOutsideRoots), never read outside.
//
// # Watching
//
// A ListCache's sentinel directory (memidx-watch-* in the temp dir) holds
// a lock file its process keeps an exclusive flock on; a new sentinel's
// maker removes the sentinels of this user whose lock nobody holds (their
// process was killed) and that hold nothing but the lock and barrier
// files.
package session
