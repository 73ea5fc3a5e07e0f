//go:build unix

package benchmark

import (
	"os"
	"runtime"
	"syscall"
)

// usageOf reads a finished process's rusage; nil when there is none.
func usageOf(ps *os.ProcessState) *usage {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return nil
	}
	rss := int64(ru.Maxrss)
	if runtime.GOOS == "darwin" {
		rss /= 1024 // bytes there, KiB on Linux and the BSDs
	}
	return &usage{
		user:      float64(ru.Utime.Sec) + float64(ru.Utime.Usec)/1e6,
		system:    float64(ru.Stime.Sec) + float64(ru.Stime.Usec)/1e6,
		maxRSSKiB: rss,
	}
}
