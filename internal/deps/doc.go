// Package deps holds no code: its test enforces the dependency direction of
// DESIGN.md, so that a leaf package never grows an import of a higher layer,
// and keeps every non-test function outside internal/corpus (the test corpus
// generator) within 80 lines, but for the exceptions it lists with reasons.
//
// Layers, lowest first; a package may import only packages of a strictly
// lower layer:
//
//	0 coverage  analyzer  jsjson  bucket  blocksum  frontcode  strsort  leaves (and internal/memtest, for tests)
//	1 session   termtab                    find and read files; sorted tables
//	2 lineage   regexiso   lexicon         select branches, bounded regex, archive lexicon
//	3 normalize                            records -> entries
//	4 hotbm25   coldvocab  catalog         postings, digests, capability heads
//	5 index                                refresh, tiers, budgets, records
//	6 search                               ranking: BM25, top-k, the lexicon walk
//	7 engine                               public API: requests and responses
//	8 internal/benchmark                   memidx bench
//	9 internal/cli, internal/reliability   CLI; tests of the whole
//	10 cmd/memidx, cmd/memidx-mcp          the commands (mcp: with the MCP SDK)
package deps
