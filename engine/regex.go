package engine

import (
	"time"

	"github.com/memidx/memidx/internal/regexiso"
)

// regexLimits are the configured bounds of a regex query.
func (e *Engine) regexLimits() regexiso.Limits {
	return regexiso.Limits{
		MaxPatternBytes:  e.cfg.RegexMaxPatternBytes,
		MaxHaystackItems: e.cfg.RegexMaxHaystackTerms,
		MaxHaystackBytes: e.cfg.RegexMaxHaystackBytes,
		Timeout:          time.Duration(e.cfg.RegexTimeoutMs) * time.Millisecond,
	}
}
