// Package engine is memidx's public API: recall, expand, sessions, walk and
// call over the OMP sessions of one agent directory.
//
//	e, err := engine.Open(engine.Options{})           // OMP's own directories
//	page, err := e.Recall(ctx, engine.RecallRequest{Query: "flaky test", Scope: engine.ScopeProject})
//	res, err := e.Call(ctx, page.Hits[0].Follow())   // expand the hit: res.Expand
//	for page.Next != nil { res, err = e.Call(ctx, *page.Next); page = res.Recall }
//
// Call also takes memory.walk, memidx's extension for hosts that cannot run
// the spec's guest-local walk: WalkPage answers a session a bounded page at
// a time, its next a memory.walk call.
//
// Every call first refreshes what its scope needs (package index), so an
// empty or stale index directory still answers correctly; no separate
// rebuild is ever required for correctness.
//
// # Results and errors
//
// Requests and results are Go structs whose JSON is the wire format of the
// reference, the TypeScript memory provider memidx matches on the wire
// (docs/REFERENCE.md says what memidx takes from it and where it differs,
// and what "the spec" is). Domain outcomes are values in
// the result: Error on a page (invalid_request, invalid_scope,
// session_not_found, ambiguous_session, stale_pointer, index_out_of_bounds,
// address_not_found, …) and Coverage, which says whether an answer is
// authoritative. A Go error means the engine itself failed. Every caller
// mistake is refused with invalid_request naming the argument; nothing is
// silently repaired, except the reference's documented ceilings (pageSize is
// capped at 50, snippetChars kept within 80..2000).
//
// The Go types follow the wire: every time is a float64 of epoch
// milliseconds (a result's *float64 timestamp, nil when undated; a
// recall's Since and Until; EpochMs and EpochTime convert), because that
// is what OMP's files and the wire hold, fractions included. A *string in
// a result is a member the wire writes as null, or leaves out, when there
// is nothing, and writes as given (even "") when there is: a string would
// lose that difference. A hit's Kind is a method of Hit, EntryHit and
// SessionHit alike. No exported type is another package's: engine is the
// whole API.
//
// One rule for contexts and budgets, in every method: the caller's own
// context ending (cancelled, or past its deadline) before a call returns
// is the context's error, ctx.Err() (errors.Is context.Canceled or
// context.DeadlineExceeded), never an answer made of what the call had
// read so far; memidx's own budgets (Options.WalkTimeout, the regex time
// limits, the candidate budgets) are results, with Complete false and a
// reason (walk_deadline, regex_timeout, …). Walk returns its WalkResult
// with the error too, counting what it visited (reason walk_cancelled).
//
// After Close every method that can fail returns ErrClosed; a call in
// flight when Close begins is cancelled and returns ErrClosed, and Close
// returns once it has. Close may be called again.
//
// Derive gives a long-lived Engine's index, listing watches and caches to
// a request with its own working directory, live session and first-answer
// notices (a server answering a shell's one-shot command), when the
// request's options resolve to the same directories and configuration.
// Closing the base ends the derived Engines' calls too.
//
// # Scopes and sessions
//
// With no scope a call searches the session scope (the spec's default):
// the host's live session, or without one the newest session of the
// project; an answer resolved without a live session carries a notice
// (key "scope") naming the session it searched, or saying it found none,
// and how to widen the search. A cwd with no session directory of its own
// is seen as its nearest ancestor that has one (never the home directory
// or /), with a notice naming it: memidx's extension of the project scope.
// A session argument (ExpandRequest.Session, "session:<x>", Walk) is a
// file path, an id, or a unique id prefix of at least MinSessionPrefix
// characters; a shared prefix is ambiguous_session with every candidate
// (ErrAmbiguousSession). Session rows, hits and the expand header carry
// the session's title, and entry hits of a global recall their project
// directory (extensions, omitted when empty). Open refuses a missing
// agent directory it needs with agent_dir_missing and creates nothing.
//
// # Ranking
//
// Package search ranks (BM25 with the reference's weights, one mixed
// stream of hot entries and cold session candidates; see its doc).
//
// A single session (scope session or session:<id-or-path>) is searched
// entry by entry even when it is cold: it is hydrated from its source with
// untruncated text and never persisted, so a cold candidate never hydrates
// into nothing because of hot truncation.
//
// # Bounds
//
// Every response is at most 30,000 UTF-16 code units of JSON (as a
// JavaScript host counts): trailing hits are dropped and next points at the
// first one dropped; a lone oversized hit is shortened. Snippets are
// bounded and centred on the first occurrence of the longest query term
// (mapped back through NFKC, so compatibility characters before the match
// cannot move the window off it). The candidate budgets (50,000 hot
// entries, 10,000 cold digests, 10,000 ranked items) keep the best
// candidates and name the budget in coverage.
//
// # Integrity
//
// An entry hit's follow is memory.expand bound to the session's sourceHash
// and lineageFingerprint; a cold hit's follow is a single-session recall
// with the same bindings; a single-session page's next carries them too. A
// changed source or branch answers stale_pointer with no content, with the
// reference's message and a hint: run the call that produced the pointer
// again. Expansion
// always re-reads the source, losslessly (thinking and tool output
// included whatever the indexing policy: the policy governs the derived
// index, not the source the caller may read). The last few reads are
// cached while their file is unchanged, so that paging reads it once: the
// cache holds at most a quarter of maxBuildBytes of estimated memory (a read
// larger than that is not kept) and drops a read unused for 30 s, so that
// an Engine at rest gives that memory back.
//
// Differences from the reference, deliberately: unknown scopes are errors;
// session:<missing> is session_not_found, never an empty answer; time
// filters exclude undated entries (nothing says they are in the window);
// memory.sessions reports coverage and null (not 0) entry counts for
// sessions it could not index; tools.* errors are values. An offset past
// the last hit is, as in the reference, an empty page with the total.
package engine
