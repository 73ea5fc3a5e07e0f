// Package search plans and ranks one recall query. It holds the query's
// plan and filters, the corpus statistics, BM25 and its top-k (MaxScore
// over the hot postings, with an exact total), the archive lexicon's walk
// over the cold sessions, phrase and regex matching, and the one ordering
// every page follows.
//
// # One recall
//
// Package engine shapes the request into a Query (a Plan, Filters, the
// page) and calls Recall, which asks index.Acquire for a view of the
// scope (every refresh, fallback and recovery happens inside it) and
// ranks over that view: Open makes each state a source (hot shards, or
// sessions the view read into memory, and cold digests), Run ranks them,
// and the page's items are read into PageHits (stored entries, snippet
// anchors, context, query coverage) while the view is open. The engine
// builds the page from the returned Page and never calls back in. Damaged
// data a search meets is reported to the view (View.Damaged,
// View.LexiconDamaged), which drops it and tries again.
//
// # Ranking
//
// Hot entries are scored with BM25 (k1 1.2, b 0.75, Lucene idf) times the
// provenance weight of the reference (docs/REFERENCE.md); corpus
// statistics (N, df, mean length) are taken over every session of the
// scope before filters, so a filter or a page never changes a score. A
// cold session candidate scores what an entry of average length holding
// each matched term once would score, weight 1: the two tiers share one
// scale, and one mixed stream is ranked (score, then session mtime,
// entries before sessions, entry index, file) and then paged. Phrase mode
// matches whole tokens in order (so "cat" never matches "concatenate" and
// a line break equals a space) and ranks phrase hits by BM25 of their
// terms. Regex mode (package regexiso) scores the provenance weight.
//
// # Regex over cold sessions
//
// A cold session is matched one vocabulary term at a time, as the
// reference does; that is exact only for a token-local pattern, whose
// every match is a non-empty run of token characters (anchors and \b
// included: see regexspan.go). A pattern that can span tokens (., \s,
// punctuation, the empty string) leaves possible every cold session whose
// terms hold what the pattern needs inside a token (its literals' ASCII
// runs): those are candidates (score 1 with a matching term, 0.5 without),
// and the answer names cold_regex_requires_hydration, so the caller
// follows them instead of reading "no hits" as no.
//
// # Cold sessions and the lexicon
//
// The archive lexicon (package index, package lexicon) names the cold
// sessions that hold a query's terms and filter keys: a session no posting
// names is ruled out without being looked at, and the ones it settles
// become items only as far as a page needs them. Only the candidates whose
// entries a filter must count have their digests opened (by Open), with
// the terms the lexicon found in them. A stored digest holds no
// vocabulary (coldvocab.Stored): when the lexicon does not settle the
// sessions (a regex, NoLexicon, a lexicon merged since the records were
// read), a current record's terms are still read from the lexicon of the
// same read (stored.go), for a regex in batches of the sources it reaches;
// a session whose record is not current, or every one when the lexicon is
// damaged, is read from source instead. A term or phrase query without
// filters whose records are all current takes its terms as bitmaps over
// the cold sessions (termbits.go): the candidates are counted, grouped by
// the terms they hold and the first of each group taken word by word, and
// a common term's bitmaps (one naming a sixteenth of the cold sessions or
// more) are kept in the Engine's DocMemo while the lexicon and the cold
// records are the same, so that a server's call neither decodes its
// postings nor looks at its sessions one by one. Other queries mark a
// common term by session in a table of term bits the next query reuses,
// so that a server's call allocates nothing by session. A settled
// session's record is completed (a one-shot
// call reads partial ones) only when it is a hit on the page. A search
// that finds a source's data damaged marks it (Broken, LexDamaged); Recall
// reports it to the view.
//
// # Bounds
//
// The candidate budgets (MaxEntryCandidates hot entries, MaxDigestCandidates
// cold digests, MaxRankedItems ranked items) keep the best candidates and
// name the budget in the coverage.
package search
