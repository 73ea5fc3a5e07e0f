// Package hugeheap asks the kernel to back the Go heap a short-lived
// process is about to fill with transparent huge pages.
//
// A one-shot recall over 100,000 sessions allocates some 130 MB and lives
// for well under a second: every page of it is fresh memory, and the
// first touch of each 4 KiB page is a fault. On the 2-core VM this
// project measures on a fault costs 10.5 µs (the host backs the guest's
// memory lazily), so the recall spent ~350 ms of its ~1.5 s of CPU in
// 33,000 faults; a 2 MiB huge page costs one fault for 512 pages. The Go
// runtime does not advise its heap as huge (it did briefly in Go 1.21,
// see golang.org/issue/61718), and with the kernel's default THP mode,
// "madvise", only advised memory gets huge pages.
//
// Prepare allocates one large block from the heap, advises its range
// (MADV_HUGEPAGE, whole 2 MiB pages only) and lets it go: the runtime
// places the process's next spans in that free range, first fit, and the
// kernel backs them with huge pages as they are touched. Memory that is
// never touched is never resident, so the block's size costs address
// space, not memory. It is for processes that ask one question and exit;
// a long-lived server keeps its own pages and gives freed ones back.
//
// On other systems, in a 32-bit process and where the THP mode is
// "never", Prepare allocates nothing; when the advice fails, the process
// runs as before.
package hugeheap
