//go:build !race

package engine

// raceInternal: see race_internal_on_test.go.
const raceInternal = false
