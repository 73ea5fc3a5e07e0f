// Package listing lists OMP session files and watches the listings.
//
// Package locate finds the directories (agent dir, sessions root, explicit
// session dir) and the bucket names of a cwd; this package lists within
// them. ListSessions lists <sessionsRoot>/<bucket>/*.jsonl like OMP, the
// explicit flat session dir, and (by default) subagent and advisor
// sessions nested in artifacts directories; it skips temp, lock and backup
// files and anything that is not a regular file, and names what it left
// out on purpose (SkipError, ListReasons). A Ref's Path is canonical, so a
// file has one key however it was reached. Directories are opened
// confined to the roots (package confine). On Linux a directory's
// entries are read a 32 KiB getdents buffer at a time, and each file is
// stat-ed relative to its directory with its name passed from the stack
// (amd64, arm64): a listing of 100k files allocates about its refs and
// paths.
//
// # Watching
//
// A ListCache keeps the listings of directories that a watch (inotify, on
// Linux) says did not change, and lists the others again; a View is one
// resolution's use of it. Its sentinel directory (memidx-watch-* in the
// temp dir) holds a lock file its process keeps an exclusive flock on; a
// new sentinel's maker removes the sentinels of this user whose lock
// nobody holds (their process was killed) and that hold nothing but the
// lock and barrier files.
package listing
