//go:build race

package listing

// raceEnabled: the race detector's sync.Pool drops what is put, so
// allocation counts of pooled values are not counted under it.
const raceEnabled = true
