//go:build !race

package regexiso

const raceEnabled = false
