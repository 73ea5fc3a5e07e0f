package engine

import (
	"time"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/regexiso"
)

// regexMatcher is a compiled, bounded pattern.
type regexMatcher = *regexiso.Regexp

func (e *Engine) regexLimits() regexiso.Limits {
	return regexiso.Limits{
		MaxPatternBytes:  e.cfg.RegexMaxPatternBytes,
		MaxHaystackItems: e.cfg.RegexMaxHaystackTerms,
		MaxHaystackBytes: e.cfg.RegexMaxHaystackBytes,
		Timeout:          time.Duration(e.cfg.RegexTimeoutMs) * time.Millisecond,
	}
}

func (e *Engine) compileRegex(pattern string) (regexMatcher, *coverage.Error) {
	return regexiso.Compile(pattern, e.regexLimits())
}
