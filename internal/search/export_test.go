package search

// SetMaxBatchTerms sets maxBatchTerms until the returned restore is called.
func SetMaxBatchTerms(n int) (restore func()) {
	old := maxBatchTerms
	maxBatchTerms = n
	return func() { maxBatchTerms = old }
}

// MostTermsHeld is the most terms one pass of lexTerms read.
func (s *Searcher) MostTermsHeld() int { return s.mostTermsHeld }
