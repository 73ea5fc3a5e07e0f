package confine

// SetNoOpenat2 makes opens walk the path as without openat2 (off true)
// until the returned func restores the previous setting.
func SetNoOpenat2(off bool) (restore func()) {
	was := noOpenat2.Load()
	noOpenat2.Store(off)
	return func() { noOpenat2.Store(was) }
}
