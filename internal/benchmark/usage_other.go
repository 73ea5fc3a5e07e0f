//go:build !unix

package benchmark

import "os"

// usageOf has no rusage here: CPU and RSS figures are left out.
func usageOf(*os.ProcessState) *usage { return nil }
