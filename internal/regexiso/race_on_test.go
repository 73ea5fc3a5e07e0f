//go:build race

package regexiso

// The race detector makes matching about ten times slower, and a matcher
// step with it.
const raceEnabled = true
