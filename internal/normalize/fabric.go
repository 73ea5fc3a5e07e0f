package normalize

// Fabric child records.
//
// Two typed payloads become child entries placed immediately after the entry
// that carries them (the carrier), and only when the carrier has an entryId:
//
//   - a FabricExecutionTraceV1 in details.trace of an outer fabric_exec tool
//     result yields one "fabric_operation" child per operation, addressed
//     <carrierEntryId>/<sequence>;
//   - a FabricBranchSummaryDetailsV1 or V2 envelope in the details of a
//     branch summary yields one "fabric_branch_fact" child per fact,
//     addressed by the fact's own address.
//
// Both payloads pass an exact reader guard first (allowed keys at every
// level, types, enums, safe integers, depth and size bounds); anything else
// (unknown kinds, wrong versions, extra keys, non-finite numbers) is
// ignored as a whole and contributes nothing. Prose, whether the outer
// fabric_exec output or branch-summary text, is never parsed for
// operations.
//
// Where memidx differs from the reference implementation:
//
//   - Text indexes values, not JSON. The reference indexes an operation as
//     "Fabric operation <ref>\n" plus the JSON of the operation object, so
//     keys such as args, outcome, sequence and address become tokens of
//     every operation and distort IDF. memidx keeps ref, provider, action,
//     tool, outcome and addresses in structured fields and indexes
//     "Fabric operation <ref>" (or "Fabric branch operation <ref>") followed
//     by one line each of: the string and number leaves of the arguments in
//     document order, separated by spaces and, unless FullToolArgs, cut
//     after MaxArgsChars scalars plus "…" (the rest indexed through
//     Entry.ArgsCuts, as for ordinary tool calls); the error text; and,
//     only with IndexToolOutput and when the result was kept in the
//     operation object, the string and number leaves of the result. Keys,
//     booleans and nulls are not indexed.
//   - filesTouched has one rule for every source: the argument-path walk of
//     ordinary tool calls (filesFromArgs). The reference collects only
//     path ?? file ?? dir of six omp refs for trace children and uses the
//     walk for branch facts; memidx uses the walk for both, so omp.read,
//     omp.edit and any other action that takes a path argument behave the
//     same. A bare "dir" argument is not a path key under that rule (the
//     recorder projects omp.ls arguments to path and limit anyway).
//   - provider and action of an operation come from its own fields, or else
//     from its ref split at the first "."; empty halves are absent. Branch
//     operation facts get the same fallback (the reference copies the
//     fact's fields only).
//   - resultOmitted:true is set only when an operation had a result and it
//     was dropped (no IndexToolOutput, or the operation JSON is over
//     MaxOperationBytes); an operation without a result has neither key.
//   - An operation that is still over MaxOperationBytes without its result
//     is kept as is; the trace and envelope size guards bound it.
//   - A trace child's address also counts for branch-fact deduplication: a
//     branch operation fact whose address names an operation already
//     emitted from its original trace (both are on the selection under
//     branches "all") is not emitted again, instead of producing a
//     duplicate entryId and operationAddress.
//   - A duplicated address inside one envelope drops all of its facts and
//     adds duplicate_branch_fact_address, plus duplicate_operation_address
//     when one of the duplicates carries an operation address (an operation
//     or a fabricRun fact).
//   - Operation and BranchFact values are detached copies: they do not alias
//     the session buffer.
//
// Choices where the reference documentation is silent:
//
//   - Depth counts container nesting with the payload's root object at
//     depth 0; a container deeper than the bound rejects the payload,
//     scalars do not count.
//   - Sizes are UTF-8 bytes of the JSON.stringify encoding.
//   - The error of a trace and of an operation is a string. The ref, a
//     fact's entryId and its subordinal are non-empty strings.
//   - The kind of a branch fact is its "kind" member.
//   - Every node of an envelope (the root, every member value and array
//     item) counts against MaxBranchDetailsNodes; the collection bound
//     applies to arrays and objects alike.
//   - A fabricRun fact's empty description adds nothing to its text, and a
//     customMessage fact with an empty customType is indexed as its text
//     alone, as an ordinary custom message is.
//   - Names are non-blank after trimming JavaScript white space.

import (
	"math"
	"strings"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/jsjson"
)

// Bounds of the Fabric reader guards.
const (
	// MaxTraceBytes bounds the serialized FabricExecutionTraceV1.
	MaxTraceBytes = 512 << 10
	// MaxTraceDepth bounds the container nesting of a trace.
	MaxTraceDepth = 14
	// MaxOperationBytes bounds the serialized operation object of a child;
	// over it the result is dropped.
	MaxOperationBytes = 96 << 10

	// MaxBranchDetailsBytes bounds a serialized branch-summary envelope.
	MaxBranchDetailsBytes = 128 << 10
	// MaxBranchDetailsNodes bounds the JSON nodes of an envelope.
	MaxBranchDetailsNodes = 4096
	// MaxBranchDetailsCollection bounds every array and object of an
	// envelope.
	MaxBranchDetailsCollection = 256
	// MaxBranchDetailsDepth bounds the container nesting of an envelope.
	MaxBranchDetailsDepth = 16
	// MaxBranchFacts bounds the facts of an envelope.
	MaxBranchFacts = 256
	// MaxBranchSections bounds the sections of an envelope.
	MaxBranchSections = 64
	// MaxRunNameBytes and MaxRunDescriptionBytes bound a fabricRun fact.
	MaxRunNameBytes        = 256
	MaxRunDescriptionBytes = 1024
)

const (
	traceKind         = "omp-fabric.execution"
	branchDetailsKind = "omp-fabric.branch-summary"
	maxSafeInteger    = 1<<53 - 1
	// maxLeafDepth bounds the walks over values that already passed a
	// guard; it only protects against misuse.
	maxLeafDepth = 64
)

// executionTrace emits one child per operation of a valid
// FabricExecutionTraceV1 in details.trace of a fabric_exec result. It must be
// called right after carrier was emitted.
func (n *normalizer) executionTrace(carrier Entry, details jsjson.Value) {
	if carrier.EntryID == nil {
		return
	}
	trace := details.Get("trace")
	if !trace.Exists() || !validTrace(trace) {
		return
	}
	for _, m := range trace.Get("operations").Items() {
		op := m.Value
		seq := op.Get("sequence")
		addr := *carrier.EntryID + "/" + jsjson.Stringify(seq)
		e := n.child(carrier, "fabric_operation", addr)
		e.OperationAddress = str(addr)
		view := operationView(op)
		head := []jsjson.Member{
			{Key: "address", Value: jsjson.MakeString(addr)},
			{Key: "parentEntryId", Value: jsjson.MakeString(*carrier.EntryID)},
			{Key: "sequence", Value: seq},
		}
		n.operation(&e, head, view, "Fabric operation ")
		n.claimFact(addr)
		n.emit(e)
	}
}

// branchFacts emits the typed children of a valid
// FabricBranchSummaryDetailsV1/V2 envelope in rec.details. It must be called
// right after carrier was emitted; fromID is the summary's fromId.
func (n *normalizer) branchFacts(carrier Entry, rec jsjson.Value, fromID jsjson.Value) {
	if carrier.EntryID == nil {
		return
	}
	env := rec.Get("details")
	if !validBranchEnvelope(env) {
		return
	}
	facts := env.Get("facts").Items()
	seen := make(map[string]string, len(facts))
	dup := false
	for _, f := range facts {
		addr := f.Value.Get("address").StrOr("")
		kind := f.Value.Get("kind").StrOr("")
		if prev, ok := seen[addr]; ok {
			dup = true
			n.res.Problems.Add(coverage.DuplicateBranchFactAddress)
			if hasOperationAddress(prev) || hasOperationAddress(kind) {
				n.res.Problems.Add(coverage.DuplicateOperationAddress)
			}
			continue
		}
		seen[addr] = kind
	}
	if dup {
		return
	}
	carrierFrom := stringField(fromID)
	for _, f := range facts {
		addr := f.Value.Get("address").StrOr("")
		if n.claimFact(addr) {
			n.emit(n.factChild(carrier, f.Value, addr, carrierFrom))
		}
	}
}

// claimFact records a fact or operation address for the session-wide
// deduplication of branch facts and reports whether it was new.
func (n *normalizer) claimFact(addr string) bool {
	if n.facts[addr] {
		return false
	}
	if n.facts == nil {
		n.facts = make(map[string]bool)
	}
	n.facts[addr] = true
	return true
}

func hasOperationAddress(kind string) bool { return kind == "operation" || kind == "fabricRun" }

// child returns the fields every Fabric child shares with its carrier.
func (n *normalizer) child(carrier Entry, typ, entryID string) Entry {
	return Entry{
		Record:        carrier.Record,
		Line:          carrier.Line,
		Type:          typ,
		EntryID:       str(entryID),
		ParentID:      cloneStr(carrier.ParentID),
		ParentEntryID: cloneStr(carrier.EntryID),
		Timestamp:     cloneFloat(carrier.Timestamp),
	}
}

func (n *normalizer) factChild(carrier Entry, fact jsjson.Value, addr string, carrierFrom *string) Entry {
	e := n.child(carrier, "fabric_branch_fact", addr)
	e.FactAddress = str(addr)
	e.CarrierEntryID = cloneStr(carrier.EntryID)
	e.CarrierParentID = cloneStr(carrier.ParentID)
	e.CarrierFromID = carrierFrom
	// The fact as read, with the result policy of operations applied.
	members := append([]jsjson.Member(nil), fact.Members()...)
	switch fact.Get("kind").StrOr("") {
	case "user":
		e.Role = str(RoleBranchUser)
		e.Text = strings.Clone(fact.Get("text").StrOr(""))
	case "customMessage":
		e.Role = str(RoleBranchCustomMessage)
		e.Text = strings.Clone(customText(fact.Get("customType").StrOr(""), fact.Get("text").StrOr("")))
	case "phase":
		e.Role = str(RoleFabricPhase)
		e.Text = "Fabric phase " + fact.Get("phase").StrOr("")
	case "fabricRun":
		e.Role = str(RoleFabricRun)
		e.Tool = str("fabric_exec")
		e.Ref = str("fabric_exec")
		e.OperationAddress = str(addr)
		outcome := strings.Clone(fact.Get("outcome").StrOr(""))
		e.Outcome = str(outcome)
		e.IsError = outcome != Succeeded
		var b strings.Builder
		b.WriteString("Fabric run ")
		b.WriteString(fact.Get("name").StrOr(""))
		if d := fact.Get("description").StrOr(""); d != "" {
			b.WriteString(" — ")
			b.WriteString(d)
		}
		b.WriteString(" → ")
		b.WriteString(outcome)
		e.Text = b.String()
	case "operation":
		e.OperationAddress = str(addr)
		head := []jsjson.Member{
			{Key: "address", Value: jsjson.MakeString(addr)},
			{Key: "parentEntryId", Value: fact.Get("entryId")},
			{Key: "subordinal", Value: fact.Get("subordinal")},
		}
		kept := n.operation(&e, head, operationView(fact), "Fabric branch operation ")
		if fact.Has("result") && !kept {
			members = members[:0]
			for _, m := range fact.Members() {
				if m.Key != "result" {
					members = append(members, m)
				}
			}
			members = append(members, jsjson.Member{Key: "resultOmitted", Value: jsjson.MakeBool(true)})
		}
	}
	members = append(members,
		jsjson.Member{Key: "carrierEntryId", Value: jsjson.MakeString(*carrier.EntryID)},
		jsjson.Member{Key: "carrierParentId", Value: stringOrNull(carrier.ParentID)},
		jsjson.Member{Key: "carrierFromId", Value: stringOrNull(carrierFrom)},
	)
	e.BranchFact = detach(jsjson.MakeObject(members...))
	return e
}

// opView is an operation of a trace or a branch fact, with provider, action
// and tool derived.
type opView struct {
	ref, provider, action, tool, outcome string
	args, err, result                    jsjson.Value
}

func operationView(op jsjson.Value) opView {
	v := opView{
		ref:     op.Get("ref").StrOr(""),
		outcome: op.Get("outcome").StrOr(""),
		args:    op.Get("args"),
		err:     op.Get("error"),
		result:  op.Get("result"),
	}
	prov, act, ok := strings.Cut(v.ref, ".")
	if !ok {
		prov = ""
	}
	v.provider = op.Get("provider").StrOr(prov)
	v.action = op.Get("action").StrOr(act)
	v.tool = op.Get("tool").StrOr("")
	if v.tool == "" {
		v.tool = v.ref
		if v.action != "" {
			v.tool = v.action
		}
	}
	return v
}

// operation fills the operation fields of a child: structured identity, the
// bounded operation object (head members first), filesTouched and text. It
// reports whether the result was kept.
func (n *normalizer) operation(e *Entry, head []jsjson.Member, op opView, textPrefix string) bool {
	e.Role = str(RoleFabricOperation)
	e.Tool = str(strings.Clone(op.tool))
	e.Ref = str(strings.Clone(op.ref))
	e.Provider = optStr(strings.Clone(op.provider))
	e.Action = optStr(strings.Clone(op.action))
	e.Outcome = str(strings.Clone(op.outcome))
	e.IsError = op.outcome != Succeeded
	e.FilesTouched = filesFromArgs(op.args, nil)

	obj := append(head,
		jsjson.Member{Key: "tool", Value: jsjson.MakeString(op.tool)},
		jsjson.Member{Key: "ref", Value: jsjson.MakeString(op.ref)},
	)
	if op.provider != "" {
		obj = append(obj, jsjson.Member{Key: "provider", Value: jsjson.MakeString(op.provider)})
	}
	if op.action != "" {
		obj = append(obj, jsjson.Member{Key: "action", Value: jsjson.MakeString(op.action)})
	}
	obj = append(obj,
		jsjson.Member{Key: "args", Value: op.args},
		jsjson.Member{Key: "outcome", Value: jsjson.MakeString(op.outcome)},
	)
	if op.err.Exists() {
		obj = append(obj, jsjson.Member{Key: "error", Value: op.err})
	}
	omitted := jsjson.Member{Key: "resultOmitted", Value: jsjson.MakeBool(true)}
	kept := false
	var enc []byte
	switch {
	case !op.result.Exists():
		enc = jsjson.AppendValue(nil, jsjson.MakeObject(obj...))
	case n.opt.IndexToolOutput:
		enc = jsjson.AppendValue(nil, jsjson.MakeObject(append(obj, jsjson.Member{Key: "result", Value: op.result})...))
		kept = len(enc) <= MaxOperationBytes
		if !kept {
			enc = jsjson.AppendValue(enc[:0], jsjson.MakeObject(append(obj, omitted)...))
		}
	default:
		enc = jsjson.AppendValue(nil, jsjson.MakeObject(append(obj, omitted)...))
	}
	if v, err := jsjson.Parse(enc); err == nil {
		e.Operation = v
	}

	var b strings.Builder
	b.WriteString(textPrefix)
	b.WriteString(op.ref)
	line := func(s string) {
		if strings.TrimSpace(s) != "" {
			b.WriteByte('\n')
			b.WriteString(s)
		}
	}
	if args := leafText(op.args); strings.TrimSpace(args) != "" {
		b.WriteByte('\n')
		n.writeArgsTo(&b, e, args)
	}
	line(op.err.StrOr(""))
	if kept {
		line(leafText(op.result))
	}
	e.Text = b.String()
	return kept
}

// leafText joins the string and number leaves of v in document order with
// single spaces, skipping blank strings.
func leafText(v jsjson.Value) string {
	var b strings.Builder
	var walk func(v jsjson.Value, depth int)
	walk = func(v jsjson.Value, depth int) {
		var s string
		switch v.Kind() {
		case jsjson.String:
			s = v.StrOr("")
			if strings.TrimSpace(s) == "" {
				return
			}
		case jsjson.Number:
			f, _ := v.Float()
			s = jsjson.FormatNumber(f)
		case jsjson.Array, jsjson.Object:
			if depth >= maxLeafDepth {
				return
			}
			for _, m := range v.Members() {
				walk(m.Value, depth+1)
			}
			for _, m := range v.Items() {
				walk(m.Value, depth+1)
			}
			return
		default:
			return
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	walk(v, 0)
	return b.String()
}

// validTrace is the reader guard of FabricExecutionTraceV1.
func validTrace(t jsjson.Value) bool {
	g := jsonGuard{maxDepth: MaxTraceDepth}
	if !g.ok(t, 0) || !encodedWithin(t, MaxTraceBytes) {
		return false
	}
	if !hasKeys(t, []string{"kind", "version", "outcome", "phases", "operations", "counts"}, "error") {
		return false
	}
	if t.Get("kind").StrOr("") != traceKind || !numberIs(t.Get("version"), 1) ||
		!ValidOutcome(t.Get("outcome").StrOr("")) || !optionalString(t.Get("error")) {
		return false
	}
	if !t.Get("phases").IsArray() {
		return false
	}
	for _, p := range t.Get("phases").Items() {
		if p.Value.Kind() != jsjson.String {
			return false
		}
	}
	counts := t.Get("counts")
	countKeys := []string{"droppedValues", "truncatedValues", "redactedValues", "droppedOperations"}
	if !hasKeys(counts, countKeys) {
		return false
	}
	for _, k := range countKeys {
		if _, ok := safeUint(counts.Get(k)); !ok {
			return false
		}
	}
	ops := t.Get("operations")
	if !ops.IsArray() {
		return false
	}
	last := -1.0
	for _, m := range ops.Items() {
		op := m.Value
		if !hasKeys(op, []string{"type", "sequence", "ref", "args", "outcome"},
			"provider", "action", "failureStage", "error", "result", "resultTruncated") {
			return false
		}
		seq, ok := safeUint(op.Get("sequence"))
		if !ok || seq <= last {
			return false
		}
		last = seq
		if op.Get("type").StrOr("") != "call" || op.Get("ref").StrOr("") == "" ||
			!optionalString(op.Get("provider")) || !optionalString(op.Get("action")) ||
			!op.Get("args").IsObject() || !ValidOutcome(op.Get("outcome").StrOr("")) ||
			!optionalString(op.Get("error")) {
			return false
		}
		if st := op.Get("failureStage"); st.Exists() && !validFailureStage(st.StrOr("")) {
			return false
		}
		if rt := op.Get("resultTruncated"); rt.Exists() {
			if _, ok := rt.Bool(); !ok {
				return false
			}
		}
	}
	return true
}

func validFailureStage(s string) bool {
	switch s {
	case "resolve", "prepare", "validate", "approve", "invoke", "guard":
		return true
	}
	return false
}

// validBranchEnvelope reports whether env is a valid
// FabricBranchSummaryDetailsV2 envelope or else a valid V1 one.
func validBranchEnvelope(env jsjson.Value) bool {
	if !env.IsObject() {
		return false
	}
	g := jsonGuard{
		maxDepth: MaxBranchDetailsDepth,
		maxNodes: MaxBranchDetailsNodes,
		maxColl:  MaxBranchDetailsCollection,
	}
	if !g.ok(env, 0) || !encodedWithin(env, MaxBranchDetailsBytes) {
		return false
	}
	return validBranchDetails(env, 2) || validBranchDetails(env, 1)
}

func validBranchDetails(env jsjson.Value, version int) bool {
	if !hasKeys(env, []string{"kind", "version", "source", "facts", "omittedFacts", "sections", "request"}) {
		return false
	}
	if env.Get("kind").StrOr("") != branchDetailsKind || !numberIs(env.Get("version"), float64(version)) {
		return false
	}
	src := env.Get("source")
	if !hasKeys(src, []string{"firstEntryId", "lastEntryId", "entryCount"}, "oldLeafId") ||
		src.Get("firstEntryId").Kind() != jsjson.String || src.Get("lastEntryId").Kind() != jsjson.String {
		return false
	}
	if _, ok := safeUint(src.Get("entryCount")); !ok {
		return false
	}
	if old := src.Get("oldLeafId"); old.Exists() && !old.IsNull() && old.Kind() != jsjson.String {
		return false
	}
	if _, ok := safeUint(env.Get("omittedFacts")); !ok {
		return false
	}
	sections := env.Get("sections")
	if !sections.IsArray() || sections.Len() > MaxBranchSections {
		return false
	}
	for _, s := range sections.Items() {
		if s.Value.Kind() != jsjson.String {
			return false
		}
	}
	req := env.Get("request")
	if !hasKeys(req, []string{"text", "sourceBytes", "truncated"}) || req.Get("text").Kind() != jsjson.String {
		return false
	}
	if _, ok := safeUint(req.Get("sourceBytes")); !ok {
		return false
	}
	if _, ok := req.Get("truncated").Bool(); !ok {
		return false
	}
	facts := env.Get("facts")
	if !facts.IsArray() || facts.Len() > MaxBranchFacts {
		return false
	}
	for _, f := range facts.Items() {
		if !validFact(f.Value, version) {
			return false
		}
	}
	return true
}

// factKeys returns the required keys of a fact: the base and extra.
func factKeys(extra ...string) []string {
	return append([]string{"kind", "entryId", "subordinal", "address"}, extra...)
}

func validFact(f jsjson.Value, version int) bool {
	entryID := f.Get("entryId").StrOr("")
	sub := f.Get("subordinal").StrOr("")
	if entryID == "" || sub == "" || f.Get("address").StrOr("") != entryID+"/"+sub {
		return false
	}
	switch f.Get("kind").StrOr("") {
	case "user":
		return hasKeys(f, factKeys("text")) && f.Get("text").Kind() == jsjson.String
	case "customMessage":
		if !hasKeys(f, factKeys("customType", "text", "display"), "details") {
			return false
		}
		_, isBool := f.Get("display").Bool()
		return isBool && f.Get("customType").Kind() == jsjson.String && f.Get("text").Kind() == jsjson.String
	case "phase":
		return hasKeys(f, factKeys("phase")) && f.Get("phase").Kind() == jsjson.String
	case "operation":
		return hasKeys(f, factKeys("ref", "tool", "args", "outcome"), "provider", "action", "error", "result") &&
			f.Get("ref").StrOr("") != "" && f.Get("tool").Kind() == jsjson.String &&
			optionalString(f.Get("provider")) && optionalString(f.Get("action")) &&
			f.Get("args").IsObject() && ValidOutcome(f.Get("outcome").StrOr("")) && optionalString(f.Get("error"))
	case "fabricRun":
		if version < 2 || !hasKeys(f, factKeys("name", "outcome"), "description") {
			return false
		}
		name, ok := f.Get("name").Str()
		if !ok || len(name) > MaxRunNameBytes || strings.TrimFunc(name, jsjson.IsTrimSpace) == "" {
			return false
		}
		if d := f.Get("description"); d.Exists() {
			s, ok := d.Str()
			if !ok || len(s) > MaxRunDescriptionBytes {
				return false
			}
		}
		return strings.HasPrefix(sub, "call:") && len(sub) > len("call:") && ValidOutcome(f.Get("outcome").StrOr(""))
	}
	return false
}

// jsonGuard checks that a value is JSON a JavaScript host could have
// written (finite numbers) within nesting, node and collection bounds. Zero
// bounds (other than maxDepth) are unlimited.
type jsonGuard struct {
	maxDepth, maxNodes, maxColl int
	nodes                       int
}

func (g *jsonGuard) ok(v jsjson.Value, depth int) bool {
	g.nodes++
	if g.maxNodes > 0 && g.nodes > g.maxNodes {
		return false
	}
	switch v.Kind() {
	case jsjson.Number:
		f, _ := v.Float()
		return !math.IsNaN(f) && !math.IsInf(f, 0)
	case jsjson.Array, jsjson.Object:
		if depth > g.maxDepth || (g.maxColl > 0 && v.Len() > g.maxColl) {
			return false
		}
		for _, m := range v.Members() {
			if !g.ok(m.Value, depth+1) {
				return false
			}
		}
		for _, m := range v.Items() {
			if !g.ok(m.Value, depth+1) {
				return false
			}
		}
		return true
	case jsjson.Absent:
		return false
	}
	return true
}

// encodedWithin reports whether JSON.stringify(v) takes at most max UTF-8
// bytes. It stops as soon as the bound is passed.
func encodedWithin(v jsjson.Value, max int) bool {
	var scratch []byte
	size := 0
	var walk func(v jsjson.Value) bool
	walk = func(v jsjson.Value) bool {
		switch v.Kind() {
		case jsjson.String:
			s := v.StrOr("")
			if size+len(s)+2 > max {
				return false
			}
			scratch = jsjson.AppendString(scratch[:0], s)
			size += len(scratch)
		case jsjson.Array, jsjson.Object:
			size += 2 // brackets
			for i, m := range v.Members() {
				scratch = jsjson.AppendString(scratch[:0], m.Key)
				size += len(scratch) + 1 // colon
				if i > 0 {
					size++ // comma
				}
				if size > max || !walk(m.Value) {
					return false
				}
			}
			for i, m := range v.Items() {
				if i > 0 {
					size++
				}
				if size > max || !walk(m.Value) {
					return false
				}
			}
		default:
			scratch = jsjson.AppendValue(scratch[:0], v)
			size += len(scratch)
		}
		return size <= max
	}
	return walk(v)
}

// hasKeys reports whether obj is an object that has every required key and
// no key outside required and optional.
func hasKeys(obj jsjson.Value, required []string, optional ...string) bool {
	if !obj.IsObject() {
		return false
	}
	for _, k := range required {
		if !obj.Has(k) {
			return false
		}
	}
	for _, m := range obj.Members() {
		if !contains(required, m.Key) && !contains(optional, m.Key) {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func optionalString(v jsjson.Value) bool { return !v.Exists() || v.Kind() == jsjson.String }

func numberIs(v jsjson.Value, want float64) bool {
	f, ok := v.Float()
	return ok && f == want
}

// safeUint returns a number that is a safe integer ≥ 0.
func safeUint(v jsjson.Value) (float64, bool) {
	f, ok := v.Float()
	if !ok || f < 0 || f > maxSafeInteger || f != math.Trunc(f) {
		return 0, false
	}
	return f, true
}

// detach returns a copy of v that does not alias the session buffer.
func detach(v jsjson.Value) jsjson.Value {
	c, err := jsjson.Parse(jsjson.AppendValue(nil, v))
	if err != nil {
		return jsjson.Value{}
	}
	return c
}

func stringOrNull(p *string) jsjson.Value {
	if p == nil {
		return jsjson.MakeNull()
	}
	return jsjson.MakeString(*p)
}

func cloneFloat(p *float64) *float64 {
	if p == nil {
		return nil
	}
	f := *p
	return &f
}

func cloneStr(p *string) *string {
	if p == nil {
		return nil
	}
	return str(*p)
}
