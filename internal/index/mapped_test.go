package index

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"

	"github.com/memidx/memidx/internal/indexfile"
)

// The runs to give back cover the pages read, widened to fault-around
// blocks and joined across small gaps, and are cut to the pages between
// the lowest and highest read: nothing outside them is given back.
func TestMappedPagesRunsStayWithinThePagesRead(t *testing.T) {
	buf := make([]byte, 4<<20) // stands for the map; never given back here
	block := max(pageSize, faultAround)
	// An offset in buf that starts a block, so that the cases align.
	zero := block - int(uintptr(unsafe.Pointer(&buf[0]))%uintptr(block))
	at := func(off, n int) []byte { return buf[zero+off : zero+off+n] }
	for _, c := range []struct {
		name  string
		reads [][2]int // offset, length from a block start
		runs  int
		bytes []int // what within gives back, per run
	}{
		{"one value", [][2]int{{100, 50}}, 1, []int{pageSize}},
		{"a block's values", [][2]int{{100, 50}, {5000, 50}}, 1, []int{2 * pageSize}},
		{"next block joins", [][2]int{{100, 50}, {block + 100, 50}}, 1, []int{block + pageSize}},
		{"far block apart", [][2]int{{100, 50}, {3 * block, 50}, {3*block + 200, 10}}, 2, []int{block, pageSize}},
	} {
		m := mappedPages{area: areaOf(buf)}
		for _, r := range c.reads {
			m.add(at(r[0], r[1]))
		}
		assert.Len(t, m.runs, c.runs, c.name)
		var got []int
		for _, r := range m.runs {
			p, n := m.within(r)
			lo := uintptr(unsafe.Pointer(&buf[zero])) + uintptr(c.reads[0][0])&^uintptr(pageSize-1)
			assert.GreaterOrEqual(t, uintptr(p), lo, c.name)
			got = append(got, n)
		}
		assert.Equal(t, c.bytes, got, c.name)
	}
}

// A value that does not lie within the map (a damaged page pointing past
// it; the Go heap beside it) is never noted, so never given back; and
// without the map's bounds nothing is.
func TestMappedPagesNoteOnlyValuesInTheMap(t *testing.T) {
	buf := make([]byte, 1<<20)
	mapped := buf[4096 : 512<<10]
	area := areaOf(mapped)
	elsewhere := make([]byte, 64)
	for name, c := range map[string]struct {
		area indexfile.MapArea
		b    []byte
		in   bool
	}{
		"inside":              {area, mapped[100:200], true},
		"the map's last byte": {area, mapped[len(mapped)-1:], true},
		"before the map":      {area, buf[10:20], false},
		"across its end":      {area, buf[len(mapped)+4000 : len(mapped)+4200], false},
		"past its end":        {area, buf[600<<10 : 601<<10], false},
		"heap elsewhere":      {area, elsewhere, false},
		"no bounds":           {indexfile.MapArea{}, mapped[100:200], false},
	} {
		m := mappedPages{area: c.area}
		m.add(c.b)
		assert.Equal(t, c.in, len(m.runs) == 1, name)
		assert.Equal(t, c.in, c.area.Holds(c.b), name)
	}
}

// areaOf is b as a map's area.
func areaOf(b []byte) indexfile.MapArea {
	return indexfile.MapArea{Start: uintptr(unsafe.Pointer(unsafe.SliceData(b))), Len: uintptr(len(b))}
}
