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

// The schemas below are the wire's, field for field; engine's
// TestPublishedSchemasAreWhatTheEngineAccepts checks every enum and bound
// in them against what the engine accepts, and MCP's tests validate real
// results against the output schemas.

const scopeSchema = `{"type":"string","description":"session (default: the current session), project (this working directory's sessions), global (every session) or session:<id-or-path>"}`

const branchesSchema = `{"type":"string","enum":["active","all"],"default":"active","description":"active: the branch OMP shows; all: every branch of the session tree"}`

const entryRangeSchema = `{"type":"object","properties":{"first":{"type":"integer","minimum":0},"last":{"type":"integer","minimum":0}},"required":["first","last"],"additionalProperties":false}`

const bindingSchema = `"expectedSourceHash":{"type":"string","description":"set by follow and next tokens: the source version they were issued for"},` +
	`"expectedLineageFingerprint":{"type":"string","description":"set by follow and next tokens: the branch they were issued for"}`

const recallInputSchema = `{"type":"object","properties":{` +
	`"query":{"type":"string","description":"what to find; empty browses newest first"},` +
	`"queryMode":{"type":"string","enum":["literal","natural","phrase","regex"],"default":"literal","description":"literal: the words; natural: a question in English (stems, no stop words); phrase: the words in order; regex: an RE2 pattern"},` +
	`"queryMatch":{"type":"string","enum":["any","all"],"default":"any","description":"literal only: any or all of the words"},` +
	`"scope":` + scopeSchema + `,` +
	`"branches":` + branchesSchema + `,` +
	`"offset":{"type":"integer","minimum":0},` +
	`"pageSize":{"type":"integer","minimum":1,"maximum":50,"default":10},` +
	`"snippetChars":{"type":"integer","minimum":80,"maximum":2000,"default":480},` +
	`"role":{"type":"string","enum":["assistant","bashExecution","branchCustomMessage","branchSummary","branchUser","compaction","compactionSummary","custom","developer","fabricOperation","fabricPhase","fabricRun","fileMention","pythonExecution","toolResult","user"]},` +
	`"tool":{"type":"string"},` +
	`"ref":{"type":"string"},` +
	`"provider":{"type":"string"},` +
	`"action":{"type":"string"},` +
	`"outcome":{"type":"string","enum":["succeeded","failed","aborted","timed_out"]},` +
	`"since":{"type":"number","description":"milliseconds since the epoch, inclusive"},` +
	`"until":{"type":"number","description":"milliseconds since the epoch, inclusive"},` +
	`"entryRange":` + entryRangeSchema + `,` +
	`"context":{"type":"object","properties":{"next":{"type":"integer","minimum":0,"maximum":3,"default":0,"description":"snippets of the entries after each entry hit"}},"additionalProperties":false},` +
	bindingSchema +
	`},"additionalProperties":false}`

const fabricCallSchema = `{"type":"object","properties":{"ref":{"type":"string"},"args":{"type":"object"}},"required":["ref","args"]}`

const nextSchema = `{"anyOf":[` + fabricCallSchema + `,{"type":"null"}]}`

const errorSchema = `{"type":"object","properties":{"code":{"type":"string"},"message":{"type":"string"}},"required":["code","message"]}`

const noticesSchema = `{"type":"array","items":{"type":"object","properties":{"file":{"type":"string"},"key":{"type":"string"},"message":{"type":"string"}}}}`

const optString = `{"type":["string","null"]}`

const optNumber = `{"type":["number","null"]}`

const coverageSchema = `{"type":"object","properties":{"complete":{"type":"boolean"},"indexedSessions":{"type":"integer"},"eligibleSessions":{"type":"integer"},"staleSessions":{"type":"integer"},"incompleteSessions":{"type":"integer"},"reasons":{"type":["array","null"],"items":{"type":"string"}},"error":` + errorSchema + `},"required":["complete"]}`

const entryHitSchema = `{"type":"object","properties":{` +
	`"kind":{"const":"entry"},"sessionId":{"type":"string"},"tier":{"type":"string"},"index":{"type":"integer"},` +
	`"entryId":` + optString + `,"parentId":` + optString + `,"operationAddress":` + optString + `,"type":{"type":"string"},` +
	`"role":` + optString + `,"tool":` + optString + `,"ref":` + optString + `,"provider":` + optString + `,"action":` + optString + `,` +
	`"timestamp":` + optNumber + `,"isError":{"type":"boolean"},"outcome":{"type":"string"},"score":{"type":"number"},` +
	`"queryCoverage":{"type":"number"},"snippet":{"type":"string"},"truncated":{"type":"boolean"},` +
	`"context":{"type":"object"},"follow":` + fabricCallSchema +
	`},"required":["kind","sessionId","index","snippet","follow"]}`

const sessionHitSchema = `{"type":"object","properties":{` +
	`"kind":{"const":"session"},"sessionId":{"type":"string"},"tier":{"type":"string"},"cwd":{"type":"string"},` +
	`"lastTimestamp":` + optNumber + `,"score":{"type":"number"},"matchedTerms":{"type":"integer"},` +
	`"matchedStructuralEntries":{"type":"integer"},"queryCoverage":{"type":"number"},"follow":` + fabricCallSchema +
	`},"required":["kind","sessionId","follow"]}`

const recallOutputSchema = `{"type":"object","properties":{` +
	`"total":{"type":"integer"},` +
	`"hits":{"type":["array","null"],"items":{"anyOf":[` + entryHitSchema + `,` + sessionHitSchema + `]}},` +
	`"next":` + nextSchema + `,` +
	`"coverage":` + coverageSchema + `,` +
	`"error":` + errorSchema + `,` +
	`"queryCoverage":{"type":"number"},"weakMatch":{"type":"boolean"},` +
	`"notices":` + noticesSchema +
	`},"required":["total","hits","next","coverage"]}`

const expandInputSchema = `{"type":"object","properties":{` +
	`"session":{"type":"string","description":"a session id, a unique id prefix or a file path"},` +
	bindingSchema + `,` +
	`"branches":` + branchesSchema + `,` +
	`"indices":{"type":"array","items":{"type":"integer","minimum":0}},` +
	`"entryIds":{"type":"array","items":{"type":"string"}},` +
	`"operationAddresses":{"type":"array","items":{"type":"string"}},` +
	`"entryRange":` + entryRangeSchema + `,` +
	`"before":{"type":"integer","minimum":0,"maximum":100,"description":"entries of context before exactly one selected entry"},` +
	`"after":{"type":"integer","minimum":0,"maximum":100,"description":"entries of context after exactly one selected entry"},` +
	`"entryOffset":{"type":"integer","minimum":0},` +
	`"textOffset":{"type":"integer","minimum":0},` +
	`"maxChars":{"type":"integer","minimum":1,"maximum":24000,"default":20000},` +
	`"maxEntries":{"type":"integer","minimum":1,"maximum":20,"default":10}` +
	`},"required":["session"],"additionalProperties":false}`

const textRangeSchema = `{"type":"object","properties":{"start":{"type":"integer"},"end":{"type":"integer"},"total":{"type":"integer"},"complete":{"type":"boolean"}},"required":["start","end","total","complete"]}`

const expandedEntrySchema = `{"type":"object","properties":{` +
	`"index":{"type":"integer"},"entryId":` + optString + `,"parentId":` + optString + `,"type":{"type":"string"},` +
	`"role":` + optString + `,"timestamp":` + optNumber + `,"isError":{"type":"boolean"},"anchor":{"type":"boolean"},` +
	`"text":{"type":"string"},"textRange":` + textRangeSchema + `,` +
	`"parentEntryId":{"type":"string"},"operationAddress":{"type":"string"},"tool":{"type":"string"},` +
	`"tools":{"type":"array","items":{"type":"string"}},"ref":{"type":"string"},"provider":{"type":"string"},` +
	`"action":{"type":"string"},"outcome":{"type":"string"},"filesTouched":{"type":"array","items":{"type":"string"}},` +
	`"structuredTruncated":{"type":"boolean"}` +
	`},"required":["index","type","text","textRange"]}`

const expandOutputSchema = `{"type":"object","properties":{` +
	`"session":{"type":"string"},` +
	`"sourceHash":{"type":"string"},` +
	`"branches":{"type":"string"},` +
	`"lineageFingerprint":{"type":"string"},` +
	`"entryCount":{"type":"integer"},` +
	`"entries":{"type":"array","items":` + expandedEntrySchema + `},` +
	`"next":` + nextSchema + `,` +
	`"error":` + errorSchema + `,` +
	`"notices":` + noticesSchema +
	`},"required":["session","entries"]}`

const sessionsInputSchema = `{"type":"object","properties":{` +
	`"scope":` + scopeSchema + `,` +
	`"branches":` + branchesSchema + `,` +
	`"offset":{"type":"integer","minimum":0},` +
	`"limit":{"type":"integer","minimum":1,"maximum":500,"description":"rows per page, up to the configuration's maxSessions (500 by default)"}` +
	`},"additionalProperties":false}`

const sessionRowSchema = `{"type":"object","properties":{"id":{"type":"string"},"file":{"type":"string"},"cwd":{"type":"string"},` +
	`"mtime":{"type":"number"},"size":{"type":"integer"},"entryCount":{"type":["integer","null"]},"tier":` + optString + `,` +
	`"branches":{"type":"string"},"lineageFingerprint":` + optString + `,"sourceHash":` + optString + `,` +
	`"firstTimestamp":` + optNumber + `,"lastTimestamp":` + optNumber + `,"complete":{"type":"boolean"},` +
	`"reasons":{"type":["array","null"],"items":{"type":"string"}}},"required":["id","file"]}`

const sessionsOutputSchema = `{"type":"object","properties":{` +
	`"scope":{"type":"string"},` +
	`"branches":{"type":"string"},` +
	`"total":{"type":"integer"},` +
	`"truncated":{"type":"boolean"},` +
	`"sessions":{"type":["array","null"],"items":` + sessionRowSchema + `},` +
	`"next":` + nextSchema + `,` +
	`"coverage":` + coverageSchema + `,` +
	`"error":` + errorSchema + `,` +
	`"notices":` + noticesSchema +
	`},"required":["sessions"]}`

// ExpandInputSchema is memory.expand's input schema, which memory.walk's
// extends.
func ExpandInputSchema() json.RawMessage { return json.RawMessage(expandInputSchema) }

// WalkOutputSchema is the schema of a memory.walk page, memidx's
// extension for hosts that cannot run the spec's guest-local walk.
func WalkOutputSchema() json.RawMessage { return json.RawMessage(walkOutputSchema) }

const walkOutputSchema = `{"type":"object","properties":{` +
	`"session":{"type":"string"},"sourceHash":{"type":"string"},"lineageFingerprint":{"type":"string"},"branches":{"type":"string"},` +
	`"entries":{"type":"array","items":` + expandedEntrySchema + `},` +
	`"next":` + nextSchema + `,` +
	`"error":` + errorSchema + `,` +
	`"notices":` + noticesSchema +
	`},"required":["session","entries","next"]}`
