// Package lineage selects which records of a session a read covers: the
// active branch exactly as the OMP host computes it, or every record.
//
// Active mode follows OMP 18's SessionEntryIndex: the leaf is the last parsed
// record of any type; an id lookup takes the last record with that id (ids
// compare by JSON type and value); the walk follows parentId from the leaf
// and stops at a root (no parentId, null, "" or its own id), at an id it has
// already visited, or at an id no record has. The selected records run root
// to leaf, which is transcript order; in a well-formed file it is also file
// order.
//
// Where the reference (docs/REFERENCE.md) is silent memidx says more:
//
//   - a cycle adds invalid_parent_graph (as the reference does);
//   - a parentId that names no record adds missing_parent, because earlier
//     turns may be missing from the path;
//   - a leaf without a usable id empties the branch, as in OMP, and adds
//     lineage_unresolved instead of pretending the session is empty;
//   - a record without a parentId key is a root (the reference drops it).
//
// The lineage fingerprint is the SHA-256 hex of
// {"branches":…,"leafId":…,"ids":[…]} serialized as JSON.stringify does,
// ids root to leaf; all mode always hashes
// {"branches":"all","leafId":null,"ids":[]}. v1 records, whose OMP ids are
// random, contribute "v1:<record index>". A live session (a host's current
// leaf and branch ids) replaces the persisted walk; only persisted ids are
// selected and hashed, so an unpersisted tail never produces a pointer to
// text that cannot be re-read.
//
// The package never reads files; it works on a parsed [session.File].
package lineage
