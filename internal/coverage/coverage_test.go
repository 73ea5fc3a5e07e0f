package coverage

import (
	"slices"
	"testing"
)

// A copied Set must not change when the copy grows: coldvocab adds a
// reason to a copy while the original is reused for other encodings.
func TestSetCopiesAreIndependent(t *testing.T) {
	for _, base := range [][]string{
		{"a", "c", "d"}, // capacity 4 after three appends: room to grow in place
		{"c"},
		{},
	} {
		orig := Of(base...)
		want := orig.Reasons()
		cp := orig
		cp.Add("b")
		cp.Add("e")
		if got := orig.Reasons(); !slices.Equal(got, want) {
			t.Fatalf("original %v became %v after its copy grew", want, got)
		}
		if got := cp.Reasons(); !slices.IsSorted(got) || !slices.Contains(got, "b") || len(got) != len(want)+2 {
			t.Fatalf("copy is %v", got)
		}
	}
}
