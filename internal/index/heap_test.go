package index

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The soft limit is base, plus what the records held take, plus the floor
// (the read floor until a build is charged) or the builds' charge with
// an eighth of the floor, whichever is more; restore puts back the limit
// before and makes the hooks do nothing.
func TestHeapSteeringHeldAddsTheRecordsHeld(t *testing.T) {
	const base, floor, readFloor = 1 << 20, 64 << 20, 48 << 20
	before := debug.SetMemoryLimit(-1)
	for _, c := range []struct {
		name          string
		held, charged int64
		want          int64
	}{
		{"nothing", 0, 0, base + readFloor},
		{"records held", 40 << 20, 0, base + 40<<20 + readFloor},
		{"builds under the floor", 0, 10 << 20, base + floor},
		{"a build done", 0, -1, base + floor},
		{"builds over the floor", 0, 100 << 20, base + 100<<20 + floor/8},
		{"both", 40 << 20, 100 << 20, base + 40<<20 + 100<<20 + floor/8},
	} {
		charged, held, restore := HeapSteeringHeld(base, floor, readFloor)
		held(c.held)
		if c.charged < 0 { // one build charged, then none
			charged(1 << 20)
			c.charged = 0
		}
		charged(c.charged)
		assert.Equal(t, c.want, debug.SetMemoryLimit(-1), c.name)
		restore()
		held(1 << 30)
		assert.Equal(t, before, debug.SetMemoryLimit(-1), c.name+": restored")
	}
}
