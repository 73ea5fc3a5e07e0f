package index

import "runtime/debug"

// SteerHeap is for a batch program that builds much (memidx rebuild): it
// holds the process's Go heap near what the builds are charged against
// maxBuildBytes, and at least floor, with the runtime's soft memory limit
// (base is added to both: what the program holds besides). A long
// session's build holds its tier data for a while, and with GOGC alone its
// garbage doubles or triples the heap (a session of a million tiny
// records reached 970 MB of RSS under GOGC 200, some 250 MB with the
// limit). A build charged more than floor raises the limit with its
// charge, so a configuration that allows more gets it; and the runtime
// bounds the collector's cost when live memory is over the limit anyway.
// It sets BuildCharged; restore puts back the previous limit and hook.
// The limit is the process's: a host serving calls must not use it.
func (ix *Index) SteerHeap(base, floor int64) (restore func()) {
	prev := debug.SetMemoryLimit(base + floor)
	prevHook := ix.BuildCharged
	ix.BuildCharged = func(inUse int64) {
		debug.SetMemoryLimit(base + max(floor, inUse+floor/8))
	}
	return func() {
		ix.BuildCharged = prevHook
		debug.SetMemoryLimit(prev)
	}
}
