// Package evalset measures recall against a labelled set of questions:
// the library behind "memidx eval".
//
// A set is JSONL, one question a line. Two formats are read:
//
//   - memidx's own: {"query", "expected": [{"sessionId", "entryId"}]}, where
//     an entry without an id (a pi v1 file) is named by "index" instead, and
//     an empty "expected" list marks a must-abstain question;
//   - the OMP-MemBench format: {"query", "expectedEpisodes": [{"sessionId",
//     "ordinal"}], "mustAbstain"}, where an episode is a user text message
//     and everything after it up to the next one, numbered from 0 in file
//     order. A question with neither (labelled only by memory titles) is
//     unlabelled: read, counted and left out of the figures.
//
// Run asks each question through an engine's Recall in-process and ranks
// the page's hits against the evidence: at entry level (a hit on any
// expected entry, or for episode labels any entry of an expected episode)
// and at session level (any hit of an expected session, cold session
// candidates included). Summarize turns the ranks into R@1, R@5, R@10 and
// MRR; ranks past the page count as misses, so R@k for k above the page
// size equals R@pageSize.
//
// Answerability: when a page or hit carries a queryCoverage field (read from
// the page's JSON, so the package works before and after the engine has
// one) the report gives its distribution for answerable and must-abstain
// questions; otherwise it says the figure is not available. It always
// counts the must-abstain questions that got any hit.
//
// The input is bounded (MaxLineBytes per line, MaxQuestions per set): a set
// past either is refused with an error naming the line.
package evalset
