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

// SetBitsOff makes the cold pass take the record-by-record path (off) or
// bitmaps where they apply, and uses at most dense terms word by word,
// until restore is called.
func SetBitsOff(off bool, dense int) (restore func()) {
	oldOff, oldDense := bitsOff, maxDense
	bitsOff, maxDense = off, dense
	return func() { bitsOff, maxDense = oldOff, oldDense }
}

// BitsRuns counts the searches whose cold pass took bitmaps.
func BitsRuns() int64 { return bitsRuns.Load() }
