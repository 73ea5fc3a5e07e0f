package indexfile

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// ErrInternal: a transaction's own code panicked (a bug in memidx, not a
// damaged file). The file is left as it is: resetting it would turn a
// bug into a rebuild of the whole archive on every call that meets it.
var ErrInternal = errors.New("bucket: internal error in a transaction")

// guard turns a panic inside a transaction into an error: *damaged for
// what a damaged file causes (a panic inside bbolt, which panics on some
// damaged pages; a memory fault, since a truncated file leaves pages of
// the map past its end, and touching one would otherwise kill the
// process), a *bug (ErrInternal) for a panic of memidx's own code.
func guard(fn func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			if where, mine := panickedOutsideBbolt(r); mine {
				err = &bug{value: r, where: where}
			} else {
				err = &damaged{r}
			}
		}
	}()
	return fn()
}

// bug is a panic of memidx's own code inside a transaction.
type bug struct {
	value any
	where string // the function that panicked
}

func (b *bug) Error() string {
	return fmt.Sprintf("%v: %v (in %s)", ErrInternal, b.value, b.where)
}

func (b *bug) Unwrap() error { return ErrInternal }

// bboltPackage prefixes the functions of bbolt and its internal packages.
const bboltPackage = "go.etcd.io/bbolt"

// panickedOutsideBbolt reports whether the panic being recovered (r,
// called from the deferred function that recovers it) was raised by a
// function outside bbolt, and names that function. A memory fault is
// the file's, wherever it was met; so is a panic whose raiser cannot be
// told.
func panickedOutsideBbolt(r any) (where string, outside bool) {
	if re, ok := r.(runtime.Error); ok {
		if _, fault := re.(interface{ Addr() uintptr }); fault {
			return "", false
		}
	}
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	inPanic := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			inPanic = true
		case inPanic && !strings.HasPrefix(f.Function, "runtime."):
			return f.Function, !strings.HasPrefix(f.Function, bboltPackage)
		}
		if !more {
			return "", false
		}
	}
}
