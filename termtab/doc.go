// Package termtab is an immutable sorted table of byte strings, each with an
// optional opaque payload, laid out so that a lookup reads the table in place:
// from a bbolt value in the memory map, with no decoding and no allocation.
//
// The hot tier stores its term dictionary and postings as one table per
// session, the cold tier its vocabulary; a query touches only the terms it
// asks for (a binary search over the offsets) instead of decoding a blob.
//
// Layout, little-endian:
//
//	"TT1\x00"  magic
//	n          uint32  number of terms
//	flags      uint32  bit 0: payloads present
//	offsets    (n+1) × uint32, into the term bytes
//	terms      the terms, concatenated, in strictly increasing byte order
//	[payload offsets (n+1) × uint32, payload bytes]  when bit 0 is set
//
// Open checks the header and overall bounds in constant time, so opening a
// table per query costs nothing. A table is read through [blocksum.Bytes]:
// when it is stored sealed, every byte a lookup uses is verified against its
// block checksum first, so damage is reported (Err), never answered from;
// every offset is also checked as it is read, so even an unsealed damaged
// table never panics or reads out of range. Verify checks a whole table
// when that matters.
package termtab
