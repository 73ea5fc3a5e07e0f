package regexiso

import "time"

// Limits bounds one regex query. A field that is zero or negative takes its
// value from DefaultLimits; range checks belong to the configuration.
type Limits struct {
	// MaxPatternBytes is the largest pattern, in UTF-8 bytes
	// (regexMaxPatternBytes).
	MaxPatternBytes int
	// MaxHaystackItems is the most items one run searches
	// (regexMaxHaystackTerms).
	MaxHaystackItems int
	// MaxHaystackBytes is the most UTF-8 bytes one run searches, summed over
	// its items (regexMaxHaystackBytes).
	MaxHaystackBytes int
	// Timeout is the wall-clock budget (regexTimeoutMs).
	Timeout time.Duration
}

// DefaultLimits returns the reference's defaults: 1,024 pattern bytes,
// 20,000 items, 2 MiB of haystack and 250 ms.
func DefaultLimits() Limits {
	return Limits{
		MaxPatternBytes:  1024,
		MaxHaystackItems: 20000,
		MaxHaystackBytes: 2 << 20,
		Timeout:          250 * time.Millisecond,
	}
}

// orDefault returns lim with every unset field taken from DefaultLimits.
func (lim Limits) orDefault() Limits {
	d := DefaultLimits()
	if lim.MaxPatternBytes <= 0 {
		lim.MaxPatternBytes = d.MaxPatternBytes
	}
	if lim.MaxHaystackItems <= 0 {
		lim.MaxHaystackItems = d.MaxHaystackItems
	}
	if lim.MaxHaystackBytes <= 0 {
		lim.MaxHaystackBytes = d.MaxHaystackBytes
	}
	if lim.Timeout <= 0 {
		lim.Timeout = d.Timeout
	}
	return lim
}
