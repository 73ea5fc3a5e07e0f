package evalset

import "math"

// Report is a run's figures.
type Report struct {
	Questions  int    `json:"questions"`
	Answerable int    `json:"answerable"`
	Abstain    int    `json:"abstain"`
	Unlabelled int    `json:"unlabelled"`
	Mode       string `json:"mode"`
	Match      string `json:"match"`
	Branches   string `json:"branches"`
	Scope      string `json:"scope"`
	PageSize   int    `json:"pageSize"`
	// Entry ranks the evidence entries (episodes, for questions labelled
	// by episode); Session the evidence sessions.
	Entry         Metrics       `json:"entry"`
	Session       Metrics       `json:"session"`
	Answerability Answerability `json:"answerability"`
	Results       []Result      `json:"results,omitempty"`
}

// Answerability says how well a run tells answered from unanswerable.
type Answerability struct {
	// QueryCoverage is nil ("n/a") when no page reported one.
	QueryCoverage *CoverageFigures `json:"queryCoverage"`
	// AbstainWithHits counts the must-abstain questions that got any hit.
	AbstainWithHits int `json:"abstainWithHits"`
	// AnswerableWithoutHits counts the answerable questions that got none.
	AnswerableWithoutHits int `json:"answerableWithoutHits"`
}

// CoverageFigures spread the pages' queryCoverage by question kind.
type CoverageFigures struct {
	Answerable Spread `json:"answerable"`
	Abstain    Spread `json:"abstain"`
	// The answerable questions whose page is weak (wrongly "no
	// evidence") and the must-abstain ones (rightly so): under
	// Options.WeakBelow when set, else the pages' weakMatch (no hit at
	// all is weak too).
	WeakBelow       *float64 `json:"weakBelow,omitempty"`
	AnswerableBelow *int     `json:"answerableBelow,omitempty"`
	AbstainBelow    *int     `json:"abstainBelow,omitempty"`
}

// Spread is the count, mean, minimum and maximum of some values; a page
// with no coverage counts as 0.
type Spread struct {
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
}

// NewReport computes a run's figures from its results.
func NewReport(opt Options, results []Result) *Report {
	r := &Report{
		Questions: len(results), Mode: string(opt.Mode), Match: string(opt.Match),
		Branches: string(opt.Branches), Scope: string(opt.Scope), PageSize: opt.PageSize,
		Results: results,
	}
	var entry, session []int
	for _, res := range results {
		switch res.Kind {
		case "answerable":
			r.Answerable++
			entry = append(entry, res.Ranks.Entry)
			session = append(session, res.Ranks.Session)
			if res.Hits == 0 {
				r.Answerability.AnswerableWithoutHits++
			}
		case "abstain":
			r.Abstain++
			if res.Hits > 0 {
				r.Answerability.AbstainWithHits++
			}
		default:
			r.Unlabelled++
		}
	}
	r.Entry, r.Session = Summarize(entry), Summarize(session)
	r.Answerability.QueryCoverage = coverageFigures(results, opt.WeakBelow)
	return r
}

// coverageFigures is nil when no result has a queryCoverage.
func coverageFigures(results []Result, weakBelow *float64) *CoverageFigures {
	seen := false
	for _, res := range results {
		seen = seen || res.QueryCoverage != nil
	}
	if !seen {
		return nil
	}
	var ans, abs []float64
	weakAns, weakAbs := 0, 0
	for _, res := range results {
		c := 0.0 // a page with no hit matched none of the query
		if res.QueryCoverage != nil {
			c = *res.QueryCoverage
		}
		weak := res.WeakMatch || res.Hits == 0
		switch res.Kind {
		case "answerable":
			ans = append(ans, c)
			weakAns += b2i(weak)
		case "abstain":
			abs = append(abs, c)
			weakAbs += b2i(weak)
		}
	}
	f := &CoverageFigures{Answerable: spread(ans), Abstain: spread(abs)}
	if weakBelow != nil {
		a, b := countBelow(ans, *weakBelow), countBelow(abs, *weakBelow)
		f.WeakBelow, f.AnswerableBelow, f.AbstainBelow = weakBelow, &a, &b
	} else {
		f.AnswerableBelow, f.AbstainBelow = &weakAns, &weakAbs
	}
	return f
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func spread(v []float64) Spread {
	s := Spread{N: len(v)}
	if s.N == 0 {
		return s
	}
	s.Min, s.Max = math.Inf(1), math.Inf(-1)
	var sum float64
	for _, x := range v {
		sum += x
		s.Min, s.Max = math.Min(s.Min, x), math.Max(s.Max, x)
	}
	s.Mean = sum / float64(s.N)
	return s
}

func countBelow(v []float64, t float64) int {
	n := 0
	for _, x := range v {
		if x < t {
			n++
		}
	}
	return n
}

// Misses are the answerable results whose evidence is not the first hit.
func (r *Report) Misses() []Result {
	var out []Result
	for _, res := range r.Results {
		if res.Kind == "answerable" && res.Ranks.Entry != 1 {
			out = append(out, res)
		}
	}
	return out
}
