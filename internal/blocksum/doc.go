// Package blocksum guards stored bytes against silent damage: a sealed
// value carries a CRC-32C of every 512-byte block of its data, and a read
// through [Bytes] verifies each block the first time it touches it.
//
// The index reads its tier data in place (a binary search touches a few
// blocks of a large table), so a checksum of the whole value would cost a
// read of the whole value per call; per-block sums cost only what a query
// already reads. A damaged block is never returned: the read fails, and
// [Bytes.Err] reports the damage for the value, so the caller can drop it
// and rebuild it from source rather than answer from it.
//
// Layout of a sealed value, little-endian:
//
//	length     uint32, len(data)
//	sums       ceil(length/512) × uint32, CRC-32C of each block of data
//	           seeded with its block number (a block moved within the
//	           value fails)
//	data       the payload
//
// The length and sums lead: a reader of a large value's head (a digest's
// first table) then touches only the pages it would touch anyway.
//
// The package is a leaf.
package blocksum
