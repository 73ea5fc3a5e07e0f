package cli

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/memidx/memidx/internal/normalize"
)

// now is the clock --since and --until count back from; tests fix it.
var now = time.Now

var relTime = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+)\s*([a-z]+?)(?:\s+ago)?$`) })

var units = map[string]time.Duration{
	"s": time.Second, "sec": time.Second, "secs": time.Second, "second": time.Second, "seconds": time.Second,
	"m": time.Minute, "min": time.Minute, "mins": time.Minute, "minute": time.Minute, "minutes": time.Minute,
	"h": time.Hour, "hr": time.Hour, "hrs": time.Hour, "hour": time.Hour, "hours": time.Hour,
	"d": 24 * time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour,
	"w": 7 * 24 * time.Hour, "wk": 7 * 24 * time.Hour, "week": 7 * 24 * time.Hour, "weeks": 7 * 24 * time.Hour,
	"mo": 30 * 24 * time.Hour, "month": 30 * 24 * time.Hour, "months": 30 * 24 * time.Hour,
	"y": 365 * 24 * time.Hour, "yr": 365 * 24 * time.Hour, "year": 365 * 24 * time.Hour, "years": 365 * 24 * time.Hour,
}

// parseTime reads a point in time as epoch milliseconds: epoch ms, an ISO
// date, "now", "today", "yesterday", or a time back from now ("7d", "3h",
// "3 weeks ago", "2 months"; a month is 30 days, a year 365).
func parseTime(s string, at time.Time) (float64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if f, err := strconv.ParseFloat(t, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
		return f, nil
	}
	if ms, ok := normalize.ParseDate(strings.TrimSpace(s)); ok {
		return ms, nil
	}
	midnight := func(d time.Time) float64 {
		y, m, day := d.Date()
		return float64(time.Date(y, m, day, 0, 0, 0, 0, d.Location()).UnixMilli())
	}
	switch t {
	case "now":
		return float64(at.UnixMilli()), nil
	case "today":
		return midnight(at), nil
	case "yesterday":
		return midnight(at.AddDate(0, 0, -1)), nil
	}
	if m := relTime().FindStringSubmatch(t); m != nil {
		n, err := strconv.ParseInt(m[1], 10, 64)
		unit, ok := units[m[2]]
		if err == nil && ok && n <= int64(math.MaxInt64/unit) {
			return float64(at.Add(-time.Duration(n) * unit).UnixMilli()), nil
		}
	}
	return 0, fmt.Errorf("%q is not a time: give epoch milliseconds, an ISO date (2026-09-01, 2026-09-01T10:00:00Z), 7d, 3h, \"3 weeks ago\", today or yesterday", s)
}
