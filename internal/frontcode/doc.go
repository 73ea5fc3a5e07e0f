// Package frontcode stores a sorted list of unique byte strings in little
// space: front-coded (each string as the length of the prefix it shares
// with the one before it and the rest), then deflated. A list is decoded
// whole, so it suits lists that are kept for long and read rarely: a cold
// digest's vocabulary, which the archive lexicon answers for on the query
// path. On the generator's 2k archive it stores the digests' 10.7 M terms
// in 37 MB instead of the 131 MB of a termtab table.
//
// Layout:
//
//	"FC1\x00"  magic
//	n          uvarint, number of strings
//	raw        uvarint, length of the front-coded stream
//	deflate    the stream, compressed (compress/flate, raw DEFLATE)
//
// The stream holds, for each string, one byte: the shared prefix length
// (at most 15) in its high nibble and the suffix length in its low one,
// 15 meaning "15 or more, the rest follows as a uvarint"; then the
// suffix. The first string shares nothing.
//
// Decode checks everything it reads: the count, the stream's exact
// length, that each string sorts strictly after the one before; a
// damaged list is an error, never a panic or a wrong list. Integrity of
// the bytes themselves is the container's (package blocksum).
//
// The package is a leaf.
package frontcode
