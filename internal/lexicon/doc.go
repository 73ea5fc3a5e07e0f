// Package lexicon is the archive's term dictionary: for each canonical term,
// and each structural key (role, tool, ref, provider, action, outcome), the
// doc numbers of the sessions that hold it: the cold sessions whose digest
// holds it, and the hot sessions whose shard dictionary does. A query reads
// the postings of its own terms instead of probing every cold digest, takes
// the cold document frequencies from the postings' lengths, and opens only
// the digests and hot shards of sessions that can match.
//
// The lexicon is written as segments so that a refresh that re-reads k
// sessions writes O(k): each write batch adds one segment of its sessions
// (BuildSorted merges their digests' sorted tables), and a doc number is
// never reused, so the postings of a session that was rebuilt or removed
// are masked by the caller (a doc is live only while a record names it)
// until a merge drops them. Merge folds segments into one; the caller
// (package index) merges segments of one size class at a time.
//
// A segment is a sealed packed table (packed.go; blocksum): the keys in
// byte order, front-coded in runs of 16, each with a payload of its
// postings: a uvarint count, then the doc numbers in increasing order as
// uvarint deltas. A lookup binary-searches the runs' first keys and scans
// one run; every byte it reads is verified against its block checksum
// first. A reader that asks again and again keeps the runs' first keys
// in its heap (RunKeys, runkeys.go) and reads one run a lookup; the runs
// it picks are checked in place, and run keys that do not hold for the
// bytes are not used. Segments written before packed tables are termtab tables, still
// read and merged (into packed ones).
package lexicon
