//go:build !race

package listing

const raceEnabled = false
