package session

import "testing"

// Without openat2 (Linux before 5.6, or a seccomp filter refusing it)
// the open walks the path one component at a time with O_NOFOLLOW: the
// same answers.
func TestReadWithoutOpenat2(t *testing.T) {
	was := noOpenat2.Load()
	noOpenat2.Store(true)
	defer noOpenat2.Store(was)
	t.Run("swap", testReadAfterSwap)
	t.Run("race", testReadRacesSwap)
}
