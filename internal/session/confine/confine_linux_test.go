package confine_test

import (
	"testing"

	"github.com/memidx/memidx/internal/session/confine"
)

// Without openat2 (Linux before 5.6, or a seccomp filter refusing it)
// the open walks the path one component at a time with O_NOFOLLOW: the
// same answers.
func TestReadWithoutOpenat2(t *testing.T) {
	defer confine.SetNoOpenat2(true)()
	t.Run("swap", testReadAfterSwap)
	t.Run("race", testReadRacesSwap)
}
