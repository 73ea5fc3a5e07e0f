// Package search ranks one recall query over the sources the index opened
// for it: hot shards (or sessions read into memory) and cold digests. It
// holds the query's plan and filters, the corpus statistics, BM25 and its
// top-k (MaxScore over the hot postings, with an exact total), the archive
// lexicon's walk over the cold sessions, phrase and regex matching, and the
// one ordering every page follows. Package engine shapes the request into
// a Plan and Filters, asks Acquire for the scope's sources, hands them to a
// Searcher and turns the Items it returns into hits.
//
// # Acquiring sources
//
// Acquire is the one way a call reaches tier data (recall, the inspection
// of a session; the session listing takes only the records from it). It
// refreshes the scope, reads a single session from its source when the
// index holds it cold, and hands the caller the sources where they are:
// the index at the refresh's commit, what the refresh built in memory when
// the index could not take it, or, when the index cannot be read at all,
// the sessions read into memory within the sync budget. It recovers in a
// bounded number of tries: damaged tier data is dropped and rebuilt, a
// damaged index file reset, and a session that another process rewrote
// between the refresh and the read is read again from its source.
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
// the terms the lexicon found in them. A search that finds a source's data
// damaged marks it (Broken, LexDamaged) for the caller to drop and rebuild.
//
// # Bounds
//
// The candidate budgets (MaxEntryCandidates hot entries, MaxDigestCandidates
// cold digests, MaxRankedItems ranked items) keep the best candidates and
// name the budget in the coverage.
package search
