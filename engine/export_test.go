package engine

// SetBeforeSearch makes f run between each recall's refresh and its
// search, until the returned func restores the previous hook.
func SetBeforeSearch(f func()) (restore func()) {
	old := beforeSearch
	beforeSearch = f
	return func() { beforeSearch = old }
}
