// Package frontcode stores a sorted list of unique byte strings in little
// space: front-coded (each string as the length of the prefix it shares
// with the one before it and the rest). A list is decoded whole, so it
// suits lists that are kept for long and read rarely: a cold digest's
// vocabulary, which the archive lexicon answers for on the query path.
//
// Layout:
//
//	"FC2\x00"  magic
//	n          uvarint, number of strings
//	stream     the front-coded stream, to the end
//
// The stream holds, for each string, one byte: the shared prefix length
// (at most 15) in its high nibble and the suffix length in its low one,
// 15 meaning "15 or more, the rest follows as a uvarint"; then the
// suffix. The first string shares nothing.
//
// A set (EncodeSet) is stored in any order instead: "FC3\x00", n, then
// each string as its length (a uvarint) and its bytes. Decode sorts it
// (and refuses a repeated string). A cold digest keeps its vocabulary so,
// in the order its terms were first seen: the index stores no digest's
// list, so a rebuild encoded one for every session only to measure it.
//
// Lists written before the index stopped storing vocabularies were
// deflated, and Decode still reads them (magic "FC1\x00", then n, the
// stream's length as a uvarint and the stream as raw DEFLATE): an index
// file keeps such a list for a session without terms. Deflating paid off
// while every digest's list was stored (the 2k archive's 10.7 M terms in
// 37 MB); once none was, it only cost a rebuild a tenth of its CPU.
//
// Decode checks everything it reads: the count, the stream's exact
// length, that each string sorts strictly after the one before; a
// damaged list is an error, never a panic or a wrong list. Integrity of
// the bytes themselves is the container's (package blocksum).
//
// The package is a leaf.
package frontcode
