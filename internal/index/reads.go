package index

import "sync/atomic"

// sourceReads counts the passes over session files this process made:
// the probe and the whole read of a build, a slim read, and the passes
// readers outside this package count (CountSourceRead).
var sourceReads atomic.Int64

// SourceReads is how many passes over session files this process has made
// so far: tests and benchmarks count a call's reads with it.
func SourceReads() int64 { return sourceReads.Load() }

// CountSourceRead counts one pass over a session file made outside this
// package (an expansion's own read).
func CountSourceRead() { sourceReads.Add(1) }

// recordBytesDecoded counts the bytes of full records this process
// decoded: a one-shot recall decodes those of its candidates and hits
// only (manifest.go). Tests read it.
var recordBytesDecoded atomic.Int64
