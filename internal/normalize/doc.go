// Package normalize turns the records of an OMP session file, as the
// session package reads them and the lineage package selects them, into
// normalized entries: what recall ranks, expand returns and walk visits.
//
// Session normalizes one selection. Each Entry has a dense index, its stable
// addresses (entry id, operation address), a role, the tool, ref, provider
// and action of a tool call, an outcome, a timestamp in epoch milliseconds,
// isError, the files it touched, and a bounded text. Fabric carriers get
// child entries: one per operation of a FabricExecutionTraceV1 and one per
// fact of FabricBranchSummaryDetailsV1/V2, addressed so that expansion finds
// them again.
//
// Normalization is structural only: fields are read from the records' typed
// shape, and no regular expression ever classifies prose. Options is the
// privacy and size policy: DefaultOptions are the spec's defaults
// (docs/REFERENCE.md) for the index (maxEntryChars 2000, no thinking, tool
// output included) and Lossless is expansion's, which returns every byte
// of the source.
package normalize
