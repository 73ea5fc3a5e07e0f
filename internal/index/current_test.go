package index

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Asking whether the records of an unchanged index are current (what a
// common term asks of nearly every cold session) decodes no full record:
// the work does not grow with the sessions the answer does not open.
func TestCurrentAtTheRefreshCommitDecodesNothing(t *testing.T) {
	for _, n := range []int{4, 40, 400} {
		t.Run(fmt.Sprint(n, " sessions"), func(t *testing.T) {
			f := newAcquireFixture(t, n)
			f.indexAll()
			ix, need := f.oneShot()
			before := recordBytesDecoded.Load()
			asked := 0
			_, _, err := ix.Acquire(context.Background(), need, func(v *View) error {
				require.True(t, v.Reader().unchanged, "nothing written since the refresh")
				for i := range v.Len() {
					if rec := v.Record(i); rec != nil && rec.Tier == Cold {
						assert.True(t, v.Reader().Current(rec), rec.Path)
						asked++
					}
				}
				return nil
			})
			require.NoError(t, err)
			assert.Equal(t, n-1, asked, "one session is hot")
			assert.Zero(t, recordBytesDecoded.Load()-before, "full record bytes decoded")
		})
	}
}
