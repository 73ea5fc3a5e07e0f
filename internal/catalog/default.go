package catalog

import (
	"encoding/json"
	"strings"

	"github.com/memidx/memidx/internal/analyzer"
)

// MemoryProviderName is the name of memidx's own provider.
const MemoryProviderName = "memory"

// Default returns a new catalog holding only [MemoryProvider]: the catalog
// memidx serves when the host registers none.
func Default() *Catalog {
	c, err := New(MemoryProvider())
	if err != nil {
		panic("catalog: the built-in memory provider is invalid: " + err.Error())
	}
	return c
}

// MemoryProvider returns the descriptors of the memory provider itself:
// recall, expand and sessions, all risk "read" and namespace "memory". A
// host that registers its own providers adds this one next to them.
func MemoryProvider() Provider {
	return Provider{
		Name:        MemoryProviderName,
		Description: "Search, expand and list this machine's OMP session transcripts: ranked, integrity-bound recall over the session JSONL files, which stay the source of truth.",
		Actions: []Action{
			{
				Name:         "recall",
				Description:  "Find ranked, bounded evidence in past OMP sessions by literal, phrase or regex query and by exact structural filters (role, tool, ref, provider, action, outcome, time). Every hit carries one follow call; coverage says when an empty answer is not authoritative.",
				InputSchema:  json.RawMessage(recallInputSchema),
				OutputSchema: json.RawMessage(recallOutputSchema),
				Risk:         "read",
				Namespace:    "memory",
			},
			{
				Name:         "expand",
				Description:  "Read full, untruncated normalized session records by index, entry id, operation address or range, with neighbouring context, in chunks that never silently cut a record; refuses a pointer whose source or branch changed.",
				InputSchema:  json.RawMessage(expandInputSchema),
				OutputSchema: json.RawMessage(expandOutputSchema),
				Risk:         "read",
				Namespace:    "memory",
			},
			{
				Name:         "sessions",
				Description:  "List the OMP sessions in scope with their id, file, cwd, modification time, entry count, tier and lineage fingerprint, paged with offset and total.",
				InputSchema:  json.RawMessage(sessionsInputSchema),
				OutputSchema: json.RawMessage(sessionsOutputSchema),
				Risk:         "read",
				Namespace:    "memory",
			},
		},
	}
}

// List returns the provider's visible actions whose "name description"
// contains query, compared NFKC-normalized, lowercased and trimmed as
// [Catalog.Search] compares; an empty query lists them all. This is the
// memory provider's own list({query}) rule, usable for any provider.
func (p Provider) List(query string) []Action {
	q := strings.TrimSpace(analyzer.NormalizePhrase(query))
	var out []Action
	for _, a := range p.Actions {
		if a.Quarantined {
			continue
		}
		if q == "" || strings.Contains(analyzer.NormalizePhrase(a.Name+" "+a.Description), q) {
			out = append(out, a)
		}
	}
	return out
}

const scopeSchema = `{"type":"string","description":"session (default), project, global or session:<id-or-path>"}`

const branchesSchema = `{"type":"string","enum":["active","all"],"default":"active"}`

const entryRangeSchema = `{"type":"object","properties":{"first":{"type":"integer","minimum":0},"last":{"type":"integer","minimum":0}},"required":["first","last"],"additionalProperties":false}`

const recallInputSchema = `{"type":"object","properties":{` +
	`"query":{"type":"string"},` +
	`"queryMode":{"type":"string","enum":["literal","natural","phrase","regex"],"default":"literal"},` +
	`"queryMatch":{"type":"string","enum":["any","all"],"default":"any"},` +
	`"scope":` + scopeSchema + `,` +
	`"branches":` + branchesSchema + `,` +
	`"offset":{"type":"integer","minimum":0},` +
	`"pageSize":{"type":"integer","minimum":1,"maximum":50,"default":10},` +
	`"snippetChars":{"type":"integer","minimum":80,"maximum":2000,"default":480},` +
	`"role":{"type":"string","enum":["assistant","bashExecution","branchCustomMessage","branchSummary","branchUser","compaction","compactionSummary","custom","fabricOperation","fabricPhase","fabricRun","toolResult","user"]},` +
	`"tool":{"type":"string"},` +
	`"ref":{"type":"string"},` +
	`"provider":{"type":"string"},` +
	`"action":{"type":"string"},` +
	`"outcome":{"type":"string","enum":["succeeded","failed","aborted","timed_out"]},` +
	`"since":{"type":"number"},` +
	`"until":{"type":"number"},` +
	`"entryRange":` + entryRangeSchema + `,` +
	`"context":{"type":"object","properties":{"next":{"type":"integer","minimum":0,"maximum":3,"default":0}},"additionalProperties":false},` +
	`"expectedSourceHash":{"type":"string"},` +
	`"expectedLineageFingerprint":{"type":"string"}` +
	`},"additionalProperties":false}`

const fabricCallSchema = `{"type":"object","properties":{"ref":{"type":"string"},"args":{"type":"object"}},"required":["ref","args"]}`

const coverageSchema = `{"type":"object","properties":{"complete":{"type":"boolean"},"indexedSessions":{"type":"integer"},"eligibleSessions":{"type":"integer"},"staleSessions":{"type":"integer"},"incompleteSessions":{"type":"integer"},"reasons":{"type":"array","items":{"type":"string"}},"error":{"type":"object","properties":{"code":{"type":"string"},"message":{"type":"string"}}}}}`

const recallOutputSchema = `{"type":"object","properties":{` +
	`"total":{"type":"integer"},` +
	`"hits":{"type":"array","items":{"type":"object","properties":{"kind":{"type":"string","enum":["entry","session"]},"follow":` + fabricCallSchema + `}}},` +
	`"next":{"anyOf":[` + fabricCallSchema + `,{"type":"null"}]},` +
	`"coverage":` + coverageSchema +
	`}}`

const expandInputSchema = `{"type":"object","properties":{` +
	`"session":{"type":"string"},` +
	`"expectedSourceHash":{"type":"string"},` +
	`"expectedLineageFingerprint":{"type":"string"},` +
	`"branches":` + branchesSchema + `,` +
	`"indices":{"type":"array","items":{"type":"integer","minimum":0}},` +
	`"entryIds":{"type":"array","items":{"type":"string"}},` +
	`"operationAddresses":{"type":"array","items":{"type":"string"}},` +
	`"entryRange":` + entryRangeSchema + `,` +
	`"before":{"type":"integer","minimum":0,"maximum":100},` +
	`"after":{"type":"integer","minimum":0,"maximum":100},` +
	`"entryOffset":{"type":"integer","minimum":0},` +
	`"textOffset":{"type":"integer","minimum":0},` +
	`"maxChars":{"type":"integer","minimum":256,"maximum":24000,"default":20000},` +
	`"maxEntries":{"type":"integer","minimum":1,"maximum":20,"default":10}` +
	`},"required":["session"],"additionalProperties":false}`

const expandOutputSchema = `{"type":"object","properties":{` +
	`"session":{"type":"string"},` +
	`"sourceHash":{"type":"string"},` +
	`"branches":` + branchesSchema + `,` +
	`"lineageFingerprint":{"type":"string"},` +
	`"entryCount":{"type":"integer"},` +
	`"entries":{"type":"array","items":{"type":"object"}},` +
	`"next":{"anyOf":[` + fabricCallSchema + `,{"type":"null"}]},` +
	`"error":{"type":"object","properties":{"code":{"type":"string"},"message":{"type":"string"}}}` +
	`}}`

const sessionsInputSchema = `{"type":"object","properties":{` +
	`"scope":` + scopeSchema + `,` +
	`"branches":` + branchesSchema + `,` +
	`"offset":{"type":"integer","minimum":0},` +
	`"limit":{"type":"integer","minimum":1,"maximum":500}` +
	`},"additionalProperties":false}`

const sessionsOutputSchema = `{"type":"object","properties":{` +
	`"scope":{"type":"string"},` +
	`"branches":` + branchesSchema + `,` +
	`"total":{"type":"integer"},` +
	`"truncated":{"type":"boolean"},` +
	`"sessions":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"file":{"type":"string"},"cwd":{"type":"string"},"mtime":{"type":"number"},"entryCount":{"type":"integer"},"tier":{"type":"string","enum":["hot","cold"]},"branches":{"type":"string"},"lineageFingerprint":{"type":["string","null"]}}}}` +
	`}}`
