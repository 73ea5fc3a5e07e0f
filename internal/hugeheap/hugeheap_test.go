package hugeheap

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestInner(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		p      uintptr
		n      int
		lo, hi int
	}{
		{p: 0, n: 8 * mb, lo: 0, hi: 8 * mb},           // aligned: all of it
		{p: 1 * mb, n: 8 * mb, lo: 1 * mb, hi: 7 * mb}, // the whole pages inside
		{p: 2*mb + 4096, n: 4 * mb, lo: 2*mb - 4096, hi: 4*mb - 4096},
		{p: 1 * mb, n: 2 * mb, lo: 0, hi: 0}, // no whole page
		{p: 3 * mb, n: 1 * mb, lo: 0, hi: 0},
	} {
		lo, hi := inner(c.p, c.n)
		require.Equal(t, [2]int{c.lo, c.hi}, [2]int{lo, hi}, "%#x+%d", c.p, c.n)
	}
}

// anonHuge is the process's anonymous memory in huge pages, in bytes.
func anonHuge(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/smaps_rollup")
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "AnonHugePages:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			require.NoError(t, err)
			return kb << 10
		}
	}
	t.Fatal("no AnonHugePages in smaps_rollup")
	return 0
}

// The heap a fresh process fills after Prepare is backed by huge pages:
// small objects too, placed in the advised range. The process is a child,
// whose heap no earlier test filled.
func TestPrepareBacksTheHeapWithHugePages(t *testing.T) {
	if runtime.GOOS != "linux" {
		require.False(t, Prepare(64<<20))
		t.Skip("transparent huge pages are Linux's")
	}
	if !supported() {
		t.Skip("no transparent huge pages here (THP mode never, or a 32-bit process)")
	}
	if os.Getenv("HUGEHEAP_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPrepareBacksTheHeapWithHugePages$", "-test.count=1")
		cmd.Env = append(os.Environ(), "HUGEHEAP_CHILD=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return
	}
	before := anonHuge(t)
	require.True(t, Prepare(64<<20))
	var keep [][]byte
	for range 48 << 10 { // 48 MiB of 1 KiB objects, touched
		b := make([]byte, 1024)
		b[0] = 1
		keep = append(keep, b)
	}
	got := anonHuge(t) - before
	runtime.KeepAlive(keep)
	require.Greater(t, got, int64(16<<20), "the filled heap is not in huge pages")
}

func TestPrepareSmall(t *testing.T) {
	require.False(t, Prepare(hugePage), "less than two huge pages: nothing to advise")
}
