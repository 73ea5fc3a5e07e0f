// Package coldvocab is the cold tier: one compact, size-capped digest per
// session that is not among the most recently modified.
//
// A digest is one msgpack map with the fields of the spec's Cache V6 cold
// record. Its first two values are binary:
//
//   - vocabulary: the unique canonical terms of the full, untruncated
//     normalized text (tool-call arguments whole, past their display
//     cut), with no postings, as a [frontcode] set (each term's length
//     and bytes, in the order first seen; a reader sorts them; a
//     vocabulary the cap cuts is the sorted prefix). The index stores a
//     digest without it ([Stored]: an empty value): the archive lexicon
//     holds the same terms under the session's doc, so a stored
//     digest's terms are asked of the lexicon, and [Vocabulary.InLexicon]
//     says so. A digest built in memory (answered without the index)
//     keeps its list. A digest written before the lists holds a
//     [termtab] table, still read in place.
//   - addresses: a [termtab] table of structural postings: for every
//     role, tool, ref, provider, action and outcome value (the same keys
//     as the hot dictionary) the entry numbers that carry it, each
//     entry's timestamp, and its entry id and operation address, so that
//     a structural filter is exact for the session while no lexical term
//     is tied to an entry.
//
// The stored form ([Stored]) keeps the addresses in a compact form
// (addrtab.go): the structural keys front-coded with their posting lists,
// scanned linearly, the entry ids and operation addresses as columns in
// entry order, and the timestamps as varint ms deltas when they round-trip
// exactly (else raw); a third of the termtab's bytes for a short session.
// [View] reads both forms.
//
// The stored form also leaves out what the session's record holds
// (sessionId, file, cwd, the two hashes, branches, policy; Decode returns
// them empty and [Digest.Identify] puts them back) and the other fields'
// names: a map of the vocabulary, the addresses and an array.
//
// The blob is stored sealed ([blocksum]): a lookup verifies the blocks it
// reads, [View.Err] reports damage, and [Decode] verifies the whole blob.
// The checksums count in cacheBytes and in the cap. cacheBytes and the
// cap count the whole digest, its vocabulary included, as if stored
// whole: what is cut, and the coverage reasons, do not depend on where
// the terms are kept. An index counts that size without encoding the
// whole digest ([Builder.Complete]: from its fields and the lengths of
// its vocabulary and address table), and makes the stored form from the
// same fields; [Finished.Blob] encodes the whole digest when one is
// wanted (an answer made in memory), to the length counted.
//
// Bounds, as the spec sets them: vocabulary construction stops at
// maxColdVocabularyBytes (estimated as the JSON array's UTF-8 size, terms in
// first-seen order; reason max_cold_vocabulary_bytes), and the encoded
// digest never exceeds maxColdCacheBytes: when it would, addresses are kept
// as an exact prefix in entry order and then the vocabulary as an exact
// prefix in sorted order (reason max_cold_cache_bytes). The digest records
// where each cut fell (VocabularyLastTerm, AddressCount) so that a query can
// still trust an absence that the cut cannot explain.
//
// Vocabulary order is byte order (code point order), which is what a binary
// search needs; the UTF-16 order of the reference (docs/REFERENCE.md)
// differs only for supplementary characters against U+E000–U+FFFF and is
// never persisted by memidx.
package coldvocab
