package engine

// SetBeforeSearch makes f run between each recall's refresh and its
// search, until the returned func restores the previous hook.
func SetBeforeSearch(f func()) (restore func()) {
	old := beforeSearch
	beforeSearch = f
	return func() { beforeSearch = old }
}

// SetNoLexicon makes recall open every cold digest, as without an archive
// lexicon, until the returned func restores it.
func SetNoLexicon(off bool) (restore func()) {
	old := noLexicon
	noLexicon = off
	return func() { noLexicon = old }
}

// LexiconUses counts the recalls the archive lexicon answered for.
func LexiconUses() int64 { return lexiconUses.Load() }

// SetAfterSnapshot makes f run between each expansion's (and walk's) read
// of its session and its read of the entries, until the returned func restores
// the previous hook.
func SetAfterSnapshot(f func()) (restore func()) {
	old := afterSnapshot
	afterSnapshot = f
	return func() { afterSnapshot = old }
}
