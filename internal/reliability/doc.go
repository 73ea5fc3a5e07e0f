// Package reliability holds memidx's reliability tests: they drive the
// memidx CLI (built once per test run) as separate processes over
// generated agent directories and check that it keeps its promises under
// load, crashes, a damaged index, hostile input and privacy constraints.
//
// The package has no non-test code; its tests run on Unix systems (they
// signal process groups, kill -9 and change permissions). Its tests are named by family:
//
//   - TestSoak*: readers, a rebuilder and a writer at once, every answer
//     checked against the bytes the writer produced;
//   - TestCrash*: kill -9 during rebuild, then compare with a fresh index;
//   - TestCorrupt*: truncated, overwritten, unreadable index files, and
//     single flipped bytes (bit rot) in stored terms and anywhere;
//   - TestHostile*: malformed sessions, absurd requests, path tricks;
//   - TestPrivacy*: permissions, thinking text, untrusted project config.
//
// Everything is deterministic given a seed (MEMIDX_RELIABILITY_SEED,
// logged by every test). The default run is kept short; longer runs are
// selected with environment variables:
//
//	MEMIDX_SOAK_SECONDS=60      soak duration (default 6 s in a plain run)
//	MEMIDX_SOAK_REPORT=path     write the soak's numbers as JSON
//	MEMIDX_CRASH_KILLS=50       kill -9 count (default 8)
//	MEMIDX_FLIPS=1000           single-byte index flips (default 40)
//	MEMIDX_CLI_RACE=1           build the CLI with the race detector
//	MEMIDX_RELIABILITY_SEED=n   another seed (default 20260901)
//
// The corruption tests know the signatures of the bugs they once found
// (all fixed); a match fails as a regression, naming the bug.
package reliability
