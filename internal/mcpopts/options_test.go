package mcpopts

import (
	"testing"
	"time"
)

func TestFilled(t *testing.T) {
	for _, c := range []struct {
		name string
		in   Options
		want Options
	}{
		{"zero is the defaults", Options{},
			Options{Version: "devel", MaxResultBytes: DefaultMaxResultBytes, MaxMessageBytes: DefaultMaxMessageBytes,
				ProgressAfter: DefaultProgressAfter, ProgressEvery: DefaultProgressEvery}},
		{"a result bound under the minimum is raised to it", Options{MaxResultBytes: 1000},
			Options{Version: "devel", MaxResultBytes: MinMaxResultBytes, MaxMessageBytes: DefaultMaxMessageBytes,
				ProgressAfter: DefaultProgressAfter, ProgressEvery: DefaultProgressEvery}},
		{"set fields stay; negative progress sends none", Options{Version: "v1", MaxResultBytes: 2 << 20, MaxMessageBytes: 5, ProgressAfter: -1, ProgressEvery: time.Minute},
			Options{Version: "v1", MaxResultBytes: 2 << 20, MaxMessageBytes: 5, ProgressAfter: -1, ProgressEvery: time.Minute}},
	} {
		if got := c.in.Filled(); got != c.want {
			t.Errorf("%s: Filled() = %+v, want %+v", c.name, got, c.want)
		}
	}
}

// A walk page's entries take half of what the result bound leaves after
// the reserve, for the text repeats them.
func TestWalkPageBytes(t *testing.T) {
	for _, c := range []struct{ bound, want int }{
		{0, (DefaultMaxResultBytes - resultReserve) / 2},
		{1, (MinMaxResultBytes - resultReserve) / 2},
		{4 << 20, (4<<20 - resultReserve) / 2},
	} {
		if got := WalkPageBytes(c.bound); got != c.want {
			t.Errorf("WalkPageBytes(%d) = %d, want %d", c.bound, got, c.want)
		}
	}
}
