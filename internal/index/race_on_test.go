//go:build race

package index

// raceEnabled: the race detector drops sync.Pool items at random, so
// allocation counts are not the program's.
const raceEnabled = true
