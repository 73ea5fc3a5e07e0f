package engine

import (
	"math"
	"time"
)

// Every time of the API is a float64 of epoch milliseconds, as the wire
// and OMP's session files carry it (JavaScript's Date.getTime): a result's
// timestamp is a *float64 (nil: undated, null on the wire) and a recall's
// Since and Until are too (nil: no bound). A float keeps what OMP wrote,
// fractional milliseconds included, and a request decoded from JSON
// encodes again byte for byte; time.Time would round a fraction to the
// nanosecond and need a marshaler on every result. EpochMs and EpochTime
// convert.

// EpochMs is t in epoch milliseconds, for RecallRequest.Since and Until.
func EpochMs(t time.Time) *float64 {
	ms := float64(t.Unix())*1000 + float64(t.Nanosecond())/1e6
	return &ms
}

// EpochTime is the time of an epoch-milliseconds value; nil, NaN, an
// infinity or a value beyond time.Time's range is the zero time.
func EpochTime(ms *float64) time.Time {
	if ms == nil || math.IsNaN(*ms) || math.IsInf(*ms, 0) {
		return time.Time{}
	}
	sec := math.Floor(*ms / 1000)
	ns := math.Round((*ms - sec*1000) * 1e6)
	if sec >= math.MaxInt64/2 || sec <= math.MinInt64/2 {
		return time.Time{}
	}
	return time.Unix(int64(sec), int64(ns))
}

// checkTimeBounds refuses a bound JSON cannot carry (NaN, an infinity),
// which only a Go host can pass: it would match no entry and spoil the
// page's next token.
func checkTimeBounds(since, until *float64) *ErrorObject {
	for _, b := range []struct {
		name string
		v    *float64
	}{{"since", since}, {"until", until}} {
		if b.v != nil && (math.IsNaN(*b.v) || math.IsInf(*b.v, 0)) {
			return badRequest("%s must be a finite number of epoch milliseconds, not %v", b.name, *b.v)
		}
	}
	return nil
}
