// Package regexiso runs untrusted regular expressions over bounded haystacks
// with a hard wall-clock deadline.
//
// # Dialect
//
// Patterns are Go regexp (RE2) syntax, always case-insensitive: the package
// compiles "(?i)" + pattern, which folds case with Unicode simple folding
// (É matches é, K matches the Kelvin sign), as JavaScript's "iu" flags do.
// JavaScript with the u flag is the dialect of the reference
// (docs/REFERENCE.md); the differences are:
//
//   - Not supported, rejected with invalid_regex and a message that names the
//     construct: lookahead (?=…) (?!…), lookbehind (?<=…) (?<!…), numbered
//     backreferences \1…\9, named backreferences \k<name> (and Python's
//     (?P=name)), possessive quantifiers (a*+, a{2}+), atomic groups (?>…),
//     octal escapes \01, and property spellings with "=": \p{Script=Greek}
//     and \p{sc=Greek} (write \p{Greek}), \p{scx=…}, \p{gc=…}.
//   - Translated on purpose: \uHHHH and \u{H…} become Go's \x{H…}; a UTF-16
//     surrogate pair written as \uD83D\uDE00 becomes the one code point
//     \x{1F600}, as JavaScript reads it. A lone surrogate escape compiles but
//     never matches, since haystacks are UTF-8. The empty class [] (matches
//     nothing) and [^] (matches any character) keep their JavaScript meaning;
//     Go would read that ] as a literal, so write \] for a literal ].
//   - Different meaning, same spelling: . excludes only \n (JavaScript also
//     excludes \r, U+2028 and U+2029); \s is ASCII whitespace [\t\n\f\r ]
//     (JavaScript adds \v and Unicode spaces such as U+00A0 and U+3000);
//     \p{…} takes Go's names: general categories (Lu or Uppercase_Letter),
//     scripts (Greek), Any, ASCII and Assigned, matched without regard to
//     case; Go rejects binary properties such as Emoji and White_Space.
//   - Go extensions accepted although JavaScript rejects them: inline flags
//     such as (?s) and (?-i) (which turns case-insensitivity off), \Q…\E,
//     \A, \z, [[:alpha:]], \pL, \x{…}, and lone ], { and } as literals.
//
// Any other compile error is reported as invalid_regex with Go's message.
// Error messages quote the translated expression, so \u00e9 shows as \x{E9}.
//
// # Why there is no worker
//
// The reference evaluates JavaScript patterns in a fresh worker thread that it
// kills at the timeout, because a backtracking engine can run for ever. RE2
// cannot backtrack catastrophically: matching is O(len(program) ×
// len(haystack)), so memidx evaluates patterns in-process. What remains
// dangerous is the product of the two: a 17-byte pattern such as
// [\p{L}\p{N}]{1000}z compiles to about 1,000 instructions, and one match
// over 2 MiB of letters then takes tens of seconds. So the time budget is
// still enforced, by polling rather than by killing a thread:
//
//   - Compilation runs in a goroutine; the caller stops waiting at the
//     deadline. A compile left behind finishes in the background, bounded by
//     the pattern size: a 1 KiB pattern compiles in at most about 0.2 s, a
//     64 KiB one (the configuration's maximum) in a few seconds, and Go
//     rejects programs over about 3 million instructions.
//   - An item is matched by one direct call when its worst-case work,
//     program size × (bytes + 1) at 25 ns a unit, fits in 4 ms and in a
//     quarter of the time left: ordinary patterns over entry texts and
//     vocabulary terms run at the full speed of Go's matcher. Any other item
//     is fed to the matcher through an io.RuneReader that reads the clock
//     after about 0.1 ms of work and ends the input at the deadline; the
//     abandoned match's answer is discarded. A call therefore overruns the
//     deadline by at most one matcher step, program size × about 25 ns (a
//     few milliseconds for a 1 KiB pattern), plus whatever the scheduler
//     adds.
//
// Items are never split: a match may span any part of its item.
//
// # Cut items
//
// Run.AddCut searches an item that is the head of a longer text (a hot
// entry cut at maxEntryChars). It reports a match only when the whole text
// matches too: $ and \z never match at the cut, and a multi-line $, \b or
// \B is not taken at the cut either, where it would read a character the
// head does not have. A match it cannot prove is a miss, never a false
// match; the caller reports the cut as incomplete coverage.
//
// # Limits
//
// Four limits, from the configuration, bound a query (zero means the
// default; see DefaultLimits):
//
//   - MaxPatternBytes: UTF-8 bytes of the pattern. A longer pattern is
//     rejected with regex_pattern_too_large ("Regex pattern is N bytes;
//     limit is M.") before anything is compiled.
//   - MaxHaystackItems: items searched per run; the next item is not searched
//     and the run ends with regex_max_haystack_terms.
//   - MaxHaystackBytes: aggregate UTF-8 bytes searched per run; the item that
//     would exceed it is not searched and the run ends with
//     regex_max_haystack_bytes.
//   - Timeout: wall clock for compiling and searching. At the deadline the
//     run ends with regex_timeout ("Regex execution exceeded N ms."). With
//     Start the clock covers compilation and search, as the reference's timer
//     covered worker start-up and search; with Compile and NewRun each gets a
//     budget of its own. The clock runs between calls to Add too, so time
//     the caller spends collecting items counts. A context deadline or
//     cancellation ends a run the same way.
//
// # Partial results
//
// The reference returns no matches at all when anything goes wrong. Here the
// items searched before a limit or the deadline keep their answers, and the
// Outcome says the result is incomplete (Complete false, with the reason and,
// for a timeout or a bad pattern, a coverage.Error). An incomplete result is
// never an authoritative no-match: items that were not searched may match.
// Outcome.NoMatch is the only test for "nothing matches".
package regexiso
