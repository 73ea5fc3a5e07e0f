// Package hotbm25 is the hot tier: for each of the most recently modified
// sessions, a shard that ranks entries with BM25 without re-reading the
// source.
//
// A shard is three bbolt values:
//
//   - dict, a [termtab] table of every canonical term of the entries' hot
//     text (the IndexText: the entry text with the rest of any tool-call
//     arguments its display cuts) plus one structural key per role, tool,
//     ref, provider, action and outcome value, each with its postings (entry
//     numbers and term frequencies, varint-delta coded). A query binary-searches only the
//     terms it asks for, in place.
//   - cols, fixed-width columns per entry: token count (BM25 length),
//     provenance weight, timestamp. Filters and length normalization read
//     them by offset.
//   - ents, the bounded normalized entries (msgpack, one per entry behind an
//     offset table), read only for the hits a page shows and for phrase and
//     regex verification.
//
// Each value is stored sealed ([blocksum]): the columns are verified whole
// when the shard opens (scoring reads them per posting), the dictionary and
// entries block by block as they are read; a read that meets damage yields
// nothing and is reported by [Shard.Err], so a flipped bit never changes a
// score or a hit in silence.
//
// Structural keys start with a NUL byte, which no canonical token contains,
// so they can share the dictionary without colliding with words.
//
// BM25 uses k1 1.2, b 0.75 and Lucene's idf ln(1+(N−df+0.5)/(df+0.5)), with
// N, df and the mean length taken over every hot entry of the query's scope
// before filters, so that a filter or a page never changes a score; each
// score is multiplied by the reference's provenance weight
// (docs/REFERENCE.md).
package hotbm25
