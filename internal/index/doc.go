// Package index keeps the derived index up to date: which sessions are hot
// and which cold, which records are fresh, what to rebuild within the work
// budgets, and what to remove.
//
// Storage (one bbolt file, see package indexfile); <sum> is the first 16
// bytes of the SHA-256 of the session's path (recordKey):
//
//	records  <branches>\x00<sum> -> the record's own part (binary, see recordcodec.go):
//	         session id, cwd, lineageFingerprint, cache bytes, timestamps
//	manifest <branches>\x00<sum> -> the record's stat-gate part (manifest.go): path, source
//	         identity, sourceHash, policy, tier, counts, reasons
//	         (a whole record is the two joined: decodeFull)
//	hot      <branches>\x00<sum> -> bucket {d: dict, c: cols, e: entries}
//	cold     <branches>\x00<sum> -> digest (msgpack, stored form: coldvocab.Stored), when not packed
//	coldpacks <branches>\x00<seq> -> a write batch's small digests (pack.go)
//	lexicon  <branches>\x00s<seq> -> bucket {v: segment}; <branches>\x00epoch
//
// The archive lexicon (package lexicon, lexicon.go) maps every term and
// structural key of the cold digests to the docs of the records that hold
// it: each write batch adds a segment, merges are log-structured, a record
// names its doc, and a doc no record names is dead until a merge drops it.
// A reader trusts the lexicon only at the epoch its records were read at
// to rule sessions out; a stored digest keeps no vocabulary of its own,
// nor the identity its record holds (coldvocab.Stored; describe.go puts
// it back), so what terms a current record's session holds is
// always asked of the lexicon of the same read (Reader.Holds,
// Lexicon.Vocabularies): a merge keeps every doc a record names. A
// damaged lexicon is dropped with every cold record, whose sessions are
// rebuilt from source.
//
// Active and all never share a record. A record whose key does not match
// the key it was written under, of another cache version, that does not
// decode, or whose manifest entry names another build of the session, is
// removed and rebuilt from source.
//
// Freshness: a stat gate on (size, mtime ns, ctime ns, inode, device)
// decides what to re-read; a re-read always recomputes sourceHash (SHA-256
// of the whole file). ctime changes with every write and with utimes, so a
// same-size rewrite that restores mtime is caught. A change in the same
// clock tick as the read can leave every stat field unchanged, so a record
// whose source changed within the racy window of its indexing is "racy"
// (as in git's index): the next refresh re-hashes the file and only
// rebuilds when the hash differs. The window is 100 ms where the change
// time has a sub-second part (the file system stamps nanoseconds), else
// two seconds. A record re-verified at least the window after its read is
// trusted whatever its timestamps say, so a source dated in the future
// settles too. A source that changes while it is read is not indexed
// (source_changed_during_index). A build reads a source under 13 MB in one
// pass (bytes, hash and line count at once); a larger one is probed for
// its lines first, to charge the build bound before allocating it.
// SourceReads counts the passes over session files. A forced refresh
// (RefreshOptions.Force, memidx rebuild --force) trusts neither the stat
// gate nor the hash and rebuilds every target.
//
// Manifest: the first Preload of an Index (a one-shot recall) reads the
// manifest, not the records: partial records holding what the stat gate
// and a search over the scope need. A Reader completes a partial record
// from its full one when it reads the session's tier data, so only the
// candidates and hits are decoded whole (in place, copying only the
// fields a partial record lacks); a single session's record is
// completed before anything else. Partial records are never kept for
// another call (record cache, quiet refresh). A long-lived Index (a
// server's, LongLived) decodes the full records from its first Preload on.
// Reader.Current at the refresh's own commit answers without touching a
// record: a common term asks it of nearly every cold session. The walks of
// the manifest and of the records drop the pages they faulted in from the
// kept map (indexfile.DropPages): a server's resident size counts only the
// pages its calls read again, within its map budget (LongLived: 64 MiB
// past what it held after its last trim). A one-shot call's lexicon gives
// back each segment's pages after a lookup (Lexicon.giveBack): the page
// cache maps whole folios, and a rare term's lookups in 16 segments
// left 24 MB of a 100k archive's lexicon mapped. What a one-shot call holds
// per session it does not touch: the stat gate points the partial
// records at the listing's path strings (the manifest's copies are
// garbage, and RecordsHeld stops counting them), keeps no copy of the
// listing's stats, and the manifest's pages of the file's map are given
// back every 4 MiB as they are read (Linux, mapped.go). A call over the
// whole archive (PreloadArchive) copies no path at all: its partial
// records are found by the SHA-256 prefix of the path that keys them
// (gateTable), and only the few no target found read their paths after.
// RecordsHeld is told what the partial records take as they are read, so
// that a batch program's soft heap limit, meant to bound garbage, does
// not sit under them (HeapSteeringHeld).
//
// Tiers: the hotSessions most recently modified sessions (by the freshest
// mtime known: the scope's files are stat'ed, others keep their recorded
// mtime) have hot shards, the rest cold digests. A tier move builds the
// replacement and drops the old tier data in one transaction.
//
// Cold packs (pack.go): a write batch's digests up to 16 KiB are stored
// many to a value of up to 64 KiB, since bbolt's leaves of two digests of
// a few KB were a fifth slack; a record names its pack. The write that
// replaces or removes a packed digest rewrites its pack without it, so a
// pack holds no dead digest.
//
// Budgets: maxSyncSessions and maxSyncSourceBytes bound the rebuilds of one
// synchronous refresh (newest first; unchanged sessions are not charged);
// maxCacheCleanupFiles bounds the orphan scan. Reaching one stops further
// work, names the reason, and leaves the skipped sessions counted as stale:
// a stale record is never served, because its text may contradict the
// source.
//
// Many processes: reads and writes each open the file for one transaction;
// sessions are read and built outside any lock, in parallel, and written in
// batches: 64 sessions for a refresh; for a rebuild, 64 at first, each
// batch up to twice the one before, to 1024 small sessions or 4 MiB of
// source (refresh_run.go). A batch's lexicon segment is built by
// gathering its keys in a map up to 512Ki keys, else by a heap merge. A
// write that reads much of the file (a merge's live docs and inputs, a
// batch's lookups among cold digests) lets go of the pages it read as it
// goes, so that they do not add up in the process's RSS
// (indexfile.DropPages). A process that cannot get the lock in time reports index_busy
// and answers from what it has: what it built is kept in the report's
// states (State.Built) when the index cannot take it (busy, unwritable,
// unreadable); a rebuild keeps no builds, so a session whose write failed
// (a full disk) has no record, and its state says why. Each record stores a stamp of its tier data, so a reader
// whose session another process rewrote since the record was read gets
// ErrNoData, never the other version's data.
//
// Usage (usage.go) says where the bytes of the file go, by bucket: keys,
// values, checksums and pages (memidx inspect index --storage).
//
// Integrity: records and tier data are sealed with block checksums
// (package blocksum); damage is reported, never answered from.
//
// Acquire (acquire.go, view.go) is the one way a call reaches tier data
// (recall, the inspection of a session; the session listing takes only
// the records). Like bbolt's View it runs a function with a read-only
// View: the refreshed states and where their data is (the index at the
// refresh's commit, what the refresh built in memory, a single session
// read from source, or every session read into memory when the index
// cannot be read at all, within the sync budget). Every recovery happens
// inside it, in a bounded number of tries: tier data the function found
// damaged (View.Damaged) is dropped and rebuilt, a damaged index file
// reset, a damaged lexicon dropped, and a session another process
// rewrote between the refresh and the read is read again from source
// (View.Reread). A View's states change only through its own methods, on
// a copy of its own: a refresh answered from a kept quiet refresh shares
// its states with other calls.
//
// Configuration (config.go) is the memory section of fabric.json with the
// reference's keys, defaults and allowed ranges, plus keys of memidx's own
// (docs/REFERENCE.md).
package index
