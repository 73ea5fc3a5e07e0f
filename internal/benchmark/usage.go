package benchmark

// usage is what a finished child process cost: CPU seconds in user and
// system mode, and its peak resident set in KiB.
type usage struct {
	user, system float64
	maxRSSKiB    int64
}
