// Package indexfile owns the index file: one bbolt database at
// <indexDir>/index.db, and the discipline that lets many processes share it.
//
// bbolt holds an flock for the whole life of an open handle, shared for a
// read-only handle and exclusive for a writable one. A long-lived handle in
// one process would therefore stall every other OMP window, CLI and batch
// job. So a [Store] never holds the lock between transactions: [Store.Update]
// opens the file, runs one transaction and closes it again, always with a
// lock timeout; [Store.View] does the same, except that where the platform
// allows it keeps its read-only handle and map between reads with the lock
// dropped, and takes the lock again for the next read, which reuses the
// handle (one read at a time, after a probe transaction) only while the
// file is unchanged (held.go); a read that walked a whole bucket drops the
// pages it faulted in from that map ([DropPages]), a lookup in a large
// value those it mapped of it ([DropRange]: the page cache maps whole
// folios, up to 2 MiB, on a fault), and a long-lived reader bounds what
// the kept map holds ([Store.SetMapBudget], mapbudget.go). [Store.Close]
// lets go of that handle. Within a process a read-write mutex orders the
// opens, since flock does not distinguish handles of one process from
// another's. A caller that cannot get the lock in time gets [ErrLocked]
// and answers with what it has, marking coverage incomplete; it never
// waits without bound.
//
// The file carries its cache and layout versions in the "meta" bucket, and
// a marker that says it is memidx's (see own.go); a file bbolt cannot open
// counts as memidx's only by bbolt's structure around that marker, never
// by its text alone (layout.go). A file of another
// version, or one of memidx's that bbolt cannot open or that a transaction
// finds damaged (bbolt panics on some, and a file another process cuts
// short faults under the map: guard turns that into a panic too), is
// reported as [ErrCorrupt]; a writer that met such damage lets go of its
// flock at once, even when bbolt's own lock stays taken, so that no other
// process finds the index busy for good; the
// caller may [Store.Reset] it, which deletes and recreates the file: the
// index is derived data, rebuilt from the session files, never migrated
// (see migrations-none.md). A panic of memidx's own code inside a
// transaction (not bbolt's, not a memory fault) is a bug, not damage:
// [ErrInternal], naming the function, and the file is left as it is, since
// a reset would rebuild the archive on every call that meets the bug
// (guard.go). Any other file (a SQLite database, random
// bytes, another program's bbolt file) is [ErrForeign]: never written,
// never deleted.
//
// Only the holder of the exclusive lock on the file the path names changes
// the path: [Store.Reset] removes the file under that lock, and
// [Store.Compact] renames a copy written bucket by bucket (each bucket's
// pages together, the meta bucket first) over it; a writer that waited for
// the lock while the file was replaced opens the new one. The copy is
// created 0600 in the index directory; what a killed compaction left
// there is removed by the next writer of any process, which holds that
// lock, so no compaction is in flight (only files provably a
// compaction's; the directory is listed, never globbed).
//
// A new index file is made whole before it has its name: created 0600
// under a name of its own in the index directory, bbolt's first pages and
// the meta bucket with its marker written and synced, then linked to the
// path only if nothing is there (a hard link, or a rename that does not
// replace; where the platform has neither, a rename after a check, which a
// file made in between can lose to). A full disk or a killed process thus
// never leaves a half-made file at the path that later runs could not tell
// from another program's; what it leaves under the other name is removed
// as a compaction's leftovers are (create.go).
//
// The file is opened without following a symbolic link (a link, dangling
// or not, is [ErrForeign] and nothing is created through it), and only
// when it is a regular file of this process's effective user (open.go);
// compaction therefore never puts a file where a link was.
//
// bbolt leaves the bytes of a deleted value in the file's free pages;
// [Store.UpdateScrub] zeroes them after a transaction that deletes what
// must not outlive its source.
//
// A missing directory is created 0700 and a new file 0600 (the umask may
// only narrow that). memidx changes only what it created: an existing
// directory or file keeps its mode, a shared 1777 directory its sticky bit;
// [DirWarning] tells the user about an index directory others can read.
//
// This package knows nothing of what is stored: it is a leaf.
package indexfile
