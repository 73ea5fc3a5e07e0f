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
//	flags      uint32  bit 0: payloads present; bit 1: a head
//	offsets    (n+1) × uint32, into the term bytes
//	terms      the terms, concatenated, in strictly increasing byte order
//	[payload offsets (n+1) × uint32, payload bytes]  when bit 0 is set
//	[head: ceil(n/32) × uint64 big-endian, the first 8 bytes of every
//	 32nd term, zero-padded]                          when bit 1 is set
//
// A lookup reads the head first (a few blocks in one place) to narrow its
// binary search to about 32 terms; tables written before heads are
// searched whole.
//
// Open checks the header and overall bounds in constant time, so opening a
// table per query costs nothing. A table is read through [blocksum.Bytes]:
// when it is stored sealed, every byte a lookup uses is verified against its
// block checksum first, so damage is reported (Err), never answered from;
// every offset is also checked as it is read, so even an unsealed damaged
// table never panics or reads out of range. Verify checks a whole table
// when that matters.
package termtab
