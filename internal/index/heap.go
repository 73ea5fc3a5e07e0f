package index

import (
	"runtime/debug"
	"sync"
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
	charged, _, restore = HeapSteeringHeld(base, floor, floor)
	return charged, restore
}

// HeapSteeringHeld is HeapSteering with a second hook, held (an index's
// RecordsHeld): what the records a call read hold, added to base. The
// limit is to bound garbage; one under what the call must hold anyway
// only makes the collector run back to back. Until a build is charged
// the floor is readFloor (at most floor): a call that only reads makes a
// search's garbage, not a build's; one that builds keeps floor from its
// first build on.
func HeapSteeringHeld(base, floor, readFloor int64) (charged, held func(n int64), restore func()) {
	readFloor = min(readFloor, floor)
	prev := debug.SetMemoryLimit(base + readFloor)
	var mu sync.Mutex
	var inUse, holds int64
	done, built := false, false
	set := func() {
		if done {
			return
		}
		f := readFloor
		if built {
			f = floor
		}
		debug.SetMemoryLimit(base + holds + max(f, inUse+floor/8))
	}
	charged = func(n int64) {
		mu.Lock()
		defer mu.Unlock()
		inUse = n
		built = built || n > 0
		set()
	}
	held = func(n int64) {
		mu.Lock()
		defer mu.Unlock()
		holds = n
		set()
	}
	return charged, held, func() {
		mu.Lock()
		defer mu.Unlock()
		done = true
		debug.SetMemoryLimit(prev)
	}
}
