// Package coverage names why an answer is not authoritative.
//
// Every bound, dropped line, unresolved lineage or budget that can hide
// evidence is reported as a named reason; an empty result is authoritative
// only when its coverage is complete. Reasons are plain strings so that they
// cross the wire unchanged (the reference's spellings are kept exactly:
// docs/REFERENCE.md); the constants here are the one list of them.
package coverage
