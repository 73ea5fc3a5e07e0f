package coldvocab

import (
	"math/rand"
	"testing"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/normalize"
)

// BenchmarkStructural reads a filter's postings and the matched entries'
// timestamps from a short session's addresses, in both forms.
func BenchmarkStructural(b *testing.B) {
	ents := randomEntries(rand.New(rand.NewSource(3)), 11)
	full, _, _ := Build(Digest{SessionID: "s"}, ents, coverage.Set{}, roomy)
	stored, _ := Stored(full)
	for _, c := range []struct {
		name string
		blob []byte
	}{{"termtab", full}, {"compact", stored}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				v, _ := Open(c.blob)
				st := v.Structural()
				n := 0
				for _, e := range st.Entries(normalize.KeyRole + "assistant") {
					if _, ok := st.Timestamp(int(e)); ok {
						n++
					}
				}
				for _, e := range st.Entries(normalize.KeyTool + "bash") {
					if _, ok := st.Timestamp(int(e)); ok {
						n++
					}
				}
			}
		})
	}
}
