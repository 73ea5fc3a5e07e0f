// Package catalog holds the capability heads behind tools.catalog,
// tools.search and tools.describe: the providers and actions a host has
// registered, their descriptor hashes, and the ranked search over them.
//
// # Invariant: catalog text is never memory evidence
//
// Catalog text (provider and action names, descriptions, schemas) describes
// what is registered now; it is navigation, not history. It never enters a
// normalized session entry, a hot posting, a cold vocabulary or any other
// part of the memory index, so it can never become a lexical match in
// memory.recall. Historical evidence comes from session records alone: a
// recall for ref "omp.grep" finds the entries whose typed ref field says so,
// never the catalog's description of grep. To keep this structural, no
// package that builds the memory index (session, lineage, normalize,
// hotbm25, coldvocab, index) may import this package; only the engine
// (which serves the tools.* calls next to the memory.* calls) and the CLI
// may. TestNoIndexPackageImportsCatalog enforces that, and a benchmark
// checks that catalog prose never surfaces in recall.
//
// # Basics
//
// A [Catalog] holds [Provider] values, each with its [Action] values. Build
// one with [New] (from Go), [Load] or [Decode] (from the JSON file format
// below), or take [Default], the catalog memidx ships when the host gives
// none: [MemoryProvider], the memory provider's own three read-only actions
// (recall, expand, sessions). [Catalog.Register] adds or replaces a
// provider at run time, [Catalog.Unregister] removes one and
// [Catalog.SetQuarantined] hides or restores one action;
// [Catalog.Providers] and [Catalog.Encode] give the registered state back.
// A Catalog is safe for concurrent use: writers are serialized and publish
// an immutable snapshot with every hash and search field precomputed;
// readers never block and always see one consistent snapshot.
//
// Three reads serve the three guest calls, as the reference (the
// TypeScript implementation memidx matches on the wire: docs/REFERENCE.md)
// answers them:
//
//   - [Catalog.Catalog] returns the reference's deterministic tree as a
//     [Tree] (providers by name, actions by ref, all descriptor hashes, and
//     the action_limit coverage). Its JSON encoding is the wire object.
//   - [Catalog.Search] ranks actions with the reference's scoring table,
//     over every visible action (the reference stops at the first 1000).
//   - [Catalog.Describe] returns one full [Descriptor], resolving a bare
//     action name only when it is unambiguous, and refusing a pinned
//     descriptor hash that no longer matches.
//
// Quarantined actions are hidden from all three: they are not counted, not
// hashed into their provider, not searched and not described.
//
// # Descriptor hashes
//
// The reference's stableJsonHash is unverified ("presumably SHA-256 over
// canonical JSON"). memidx defines it: the lowercase hex SHA-256 of the
// canonical JSON of a value, where canonical JSON is
//
//   - objects with their keys sorted by UTF-16 code units (JavaScript's
//     default sort), recursively, including inside schemas; a key that is
//     absent (an empty optional field) is omitted, never written as null;
//   - strings quoted as JSON.stringify quotes them (no HTML escaping,
//     U+2028/U+2029 verbatim, lone surrogates as \udXXX);
//   - numbers formatted as JavaScript prints them (1.0 is 1, 1e21 is 1e+21);
//   - no whitespace anywhere.
//
// The hashed values are:
//
//   - action: {ref, description, inputSchema, outputSchema, risk,
//     namespace, effect}, with description always present (possibly "")
//     and inputSchema, outputSchema, namespace and effect omitted when
//     empty. The name is not hashed separately: ref contains it.
//   - provider: {name, description, actions: [the action hashes of its
//     visible actions, in ref order]}.
//   - root: [the provider hashes, in name order].
//
// So an action's hash changes exactly when its descriptor changes, a
// provider's hash changes when any of its visible actions changes, appears,
// disappears or is quarantined, and the root hash changes when anything
// visible does. Hashes never depend on the limit of a catalog call.
//
// # File format
//
// [Load] reads one JSON object (UTF-8, parsed with JavaScript's JSON rules)
// from a regular file of at most [DefaultMaxFileBytes] (16 MiB; [LoadLimit]
// takes another bound): a FIFO, a device or a larger file is refused at once
// with [ErrNotRegular] or [ErrTooLarge], before anything of it is read.
//
//	{
//	  "providers": [
//	    {
//	      "name": "omp",
//	      "description": "Core coding tools of the OMP host.",
//	      "actions": [
//	        {
//	          "name": "grep",
//	          "description": "Search file contents with a regular expression.",
//	          "risk": "read",
//	          "namespace": "fs",
//	          "effect": "none",
//	          "inputSchema": {"type": "object", "properties": {…}},
//	          "outputSchema": {"type": "object"},
//	          "quarantined": false
//	        }
//	      ]
//	    }
//	  ]
//	}
//
// "providers" is required. A provider needs "name"; "description" and
// "actions" are optional. An action needs "name" and "risk"; the rest is
// optional. An action's ref is always "<provider>.<name>" and is not
// written in the file. Schemas are JSON Schema documents: an object or a
// boolean; null means no schema. Any other key is an error (a misspelled
// "input_schema" would otherwise silently drop a schema), except keys that
// start with "$" ("$schema", "$comment"), which are ignored at the catalog,
// provider and action level. testdata/catalog.json is a complete example.
//
// # Validation
//
// [New], [Register], [Load] and [Decode] refuse, with an error wrapping
// [ErrInvalid]: an empty provider or action name; a provider name that
// contains "."; a name with whitespace or control characters, or text that
// is not valid UTF-8; an empty risk; an Action.Ref or Action.Provider that is
// set but differs from "<provider>.<name>" and the provider's name; two
// providers with one name or two actions with one ref; a schema that is not
// JSON, or not an object or boolean.
//
// # Errors of Describe and Search
//
// They are [*coverage.Error] values with a stable code:
//
//   - [coverage.ActionNotFound] "action_not_found": no visible action has the ref,
//     and no visible action has it as a bare name;
//   - [coverage.AmbiguousAction] "ambiguous_action": a bare name that several
//     providers expose; the message lists the qualified refs;
//   - [coverage.DescriptorChanged] "descriptor_changed": the pinned hash differs
//     from the current one; the message is "Fabric capability descriptor
//     changed" with the ref and both hashes;
//   - [coverage.ActionQuarantined] "action_quarantined": the ref (or the only
//     action with that bare name) exists but is quarantined;
//   - [coverage.InvalidRequest] "invalid_request": an empty ref or query.
package catalog
