//go:build race

package engine

// raceInternal: the race detector is on (its instrumentation allocates).
const raceInternal = true
