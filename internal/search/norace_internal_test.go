//go:build !race

package search

// raceDetector: see race_internal_test.go.
const raceDetector = false
