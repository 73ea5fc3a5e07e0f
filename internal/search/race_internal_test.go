//go:build race

package search

// raceDetector reports a build with the race detector, which makes the
// differential tests' scoring ten times slower: they draw fewer rounds
// there (the scorer is single-threaded; the full draw runs without it).
const raceDetector = true
