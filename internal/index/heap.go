package index

import (
	"runtime/debug"
	"sync/atomic"
)

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
	prevHook := ix.BuildCharged
	charged, undo := HeapSteering(base, floor)
	ix.BuildCharged = charged
	return func() {
		ix.BuildCharged = prevHook
		undo()
	}
}

// HeapSteering is SteerHeap for a program that hands the hook to an index
// it does not hold (engine.Options.BuildCharged): it sets the soft limit to
// base+floor and returns the BuildCharged hook that steers it, and restore,
// which puts back the previous limit and makes the hook do nothing.
func HeapSteering(base, floor int64) (charged func(inUse int64), restore func()) {
	prev := debug.SetMemoryLimit(base + floor)
	var done atomic.Bool
	charged = func(inUse int64) {
		if !done.Load() {
			debug.SetMemoryLimit(base + max(floor, inUse+floor/8))
		}
	}
	return charged, func() {
		done.Store(true)
		debug.SetMemoryLimit(prev)
	}
}
