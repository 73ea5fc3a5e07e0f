package search

// SetMaxBatchTerms sets maxBatchTerms until the returned restore is called.
func SetMaxBatchTerms(n int) (restore func()) {
	old := maxBatchTerms
	maxBatchTerms = n
	return func() { maxBatchTerms = old }
}

// MostTermsHeld is the most terms one pass of lexTerms read.
func (s *Searcher) MostTermsHeld() int { return s.mostTermsHeld }

// RaceDetector reports a build with the race detector, whose sync.Pool
// drops a quarter of what is put back, at random: a test of what a
// query allocates once its pools are warm cannot hold there.
const RaceDetector = raceDetector
