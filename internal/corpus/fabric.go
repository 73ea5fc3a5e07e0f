package corpus

import (
	"strconv"
	"strings"
)

// kv is one member of a small generated object: a string, an integer or
// true.
type kv struct {
	k    string
	s    string
	n    int64
	kind byte // 's', 'n' or 'b'
}

func sv(k, s string) kv { return kv{k: k, s: s, kind: 's'} }
func nv(k string, n int) kv {
	return kv{k: k, n: int64(n), kind: 'n'}
}

func (w *jw) kvs(list []kv) {
	w.obj()
	for _, e := range list {
		w.key(e.k)
		switch e.kind {
		case 's':
			w.str(e.s)
		case 'n':
			w.int(e.n)
		default:
			w.bool(true)
		}
	}
	w.endObj()
}

// fabOp is one operation of a FabricExecutionTraceV1.
type fabOp struct {
	seq                   int
	ref, provider, action string
	explicit              bool // write provider and action (else derived from ref)
	args                  []kv
	outcome, stage, err   string
	result                []kv // nil: no result
	truncated             bool
}

// fabRun is one fabric_exec call: its code and its recorded trace.
type fabRun struct {
	name, code string
	phases     []string
	ops        []fabOp
	outcome    string
	dropped    int
	truncated  int
	plant      *plant
	plantOp    int
	plantErr   bool
	term       string
}

var fabRefs = []string{
	"omp.read", "omp.read", "omp.grep", "omp.grep", "omp.find", "omp.ls",
	"omp.edit", "omp.write", "omp.bash", "agents.run", "mesh.publish",
	"mesh.read", "mcp.github.search", "memory.recall", "fabric.discovery.search",
}

var failureStages = []string{"resolve", "prepare", "validate", "approve", "invoke", "guard"}

// planFabric plans the operations of a fabric_exec call; p, if set, puts a
// planted term into one operation's error or result.
func (g *gen) planFabric(p *plant) *fabRun {
	t := g.t
	f := &fabRun{name: t.pick([]string{"explore", "triage", "collect", "verify", "refactor"}) + "-" + snake(t.ident()), plant: p, outcome: "succeeded"}
	for range t.between(1, 3) {
		f.phases = append(f.phases, t.pick([]string{"plan", "explore", "collect", "edit", "verify", "report"}))
	}
	n := t.between(1, 7)
	seq := 0
	if p != nil {
		f.plantOp = t.n(n)
		f.plantErr = t.chance(0.5)
	}
	var code strings.Builder
	code.WriteString("// " + f.name + "\n")
	for i := range n {
		ref := t.pick(fabRefs)
		if p != nil && i == f.plantOp && !f.plantErr {
			ref = t.pick([]string{"omp.read", "omp.grep", "omp.bash"})
		}
		prov, act, _ := strings.Cut(ref, ".")
		op := fabOp{seq: seq, ref: ref, provider: prov, action: act, explicit: t.chance(0.7), outcome: "succeeded"}
		switch ref {
		case "omp.read":
			op.args = []kv{sv("path", t.file())}
			if t.chance(0.5) {
				op.args = append(op.args, nv("offset", t.between(1, 300)), nv("limit", t.pick2(80, 200)))
			}
			op.result = []kv{sv("text", string(t.code(nil, t.between(3, 30), 0)))}
		case "omp.grep":
			op.args = []kv{sv("path", t.dir()), nv("context", t.n(4)), nv("limit", t.pick2(20, 100))}
			op.result = []kv{nv("matchCount", t.between(0, 90)), sv("text", string(t.grepLines(nil, t.between(1, 12))))}
		case "omp.find", "omp.ls":
			op.args = []kv{sv("path", t.dir()), nv("limit", t.pick2(50, 200))}
			op.result = []kv{sv("text", string(t.pathList(nil, t.between(1, 20))))}
		case "omp.edit":
			op.args = []kv{sv("path", t.file())}
		case "omp.write":
			op.args = []kv{sv("path", t.file())}
			op.result = []kv{{k: "created", kind: 'b'}}
		case "omp.bash":
			op.args = []kv{sv("command", t.command())}
			op.result = []kv{nv("exitCode", 0), sv("output", string(t.buildLog(nil, t.logUniform(60, 1500), false)))}
		case "agents.run":
			op.args = []kv{sv("id", strconv.Itoa(t.n(5))+"-explore")}
			op.result = []kv{sv("status", "completed")}
		case "mesh.publish", "mesh.read":
			op.args = []kv{sv("topic", "build/"+snake(t.ident()))}
		default:
			// memory, MCP and discovery calls keep no args and no result.
		}
		if op.result != nil && t.chance(0.1) {
			op.truncated = true
			f.truncated++
		}
		fail := t.chance(0.12)
		if p != nil && i == f.plantOp {
			fail = f.plantErr
		}
		if fail {
			op.outcome = t.pick([]string{"failed", "failed", "failed", "timed_out", "aborted"})
			op.stage = t.pick(failureStages)
			switch op.outcome {
			case "timed_out":
				op.stage = "invoke"
				op.err = "operation timed out after 30000ms"
			case "aborted":
				op.stage = ""
				op.err = "aborted by user"
			default:
				op.err = op.stage + " failed: " + string(t.sentence(nil))
			}
			op.result, op.truncated = nil, false
			if p != nil && i == f.plantOp {
				op.outcome, op.stage = "failed", "invoke"
			}
			if f.outcome == "succeeded" {
				f.outcome = op.outcome
			}
		}
		code.WriteString("const r" + strconv.Itoa(i) + " = await " + ref + "({")
		for j, a := range op.args {
			if j > 0 {
				code.WriteString(",")
			}
			code.WriteString(" " + a.k + ": ")
			if a.kind == 's' {
				code.WriteString(strconv.Quote(a.s))
			} else {
				code.WriteString(strconv.FormatInt(a.n, 10))
			}
		}
		code.WriteString(" });\n")
		f.ops = append(f.ops, op)
		seq++
		if t.n(8) == 0 {
			seq++ // a dropped discovery operation leaves a gap
			f.dropped++
		}
		if fail && (p == nil || i >= f.plantOp) && t.chance(0.7) {
			break
		}
	}
	if p != nil && f.plantOp >= len(f.ops) {
		f.plantOp = len(f.ops) - 1
	}
	code.WriteString("return { ok: true, count: " + strconv.Itoa(len(f.ops)) + " };")
	f.code = code.String()
	return f
}

// fabricText writes the text of a fabric_exec result and records the
// planted operation fact, if any.
func (g *gen) fabricText(s []byte, c *call) []byte {
	f := c.fab
	if f.plant != nil {
		op := &f.ops[f.plantOp]
		term, fact := g.fact(f.plant, "operation", "toolResult")
		f.term = term
		fact.Tool = op.action
		fact.Ref = op.ref
		fact.Outcome = op.outcome
		field := "result"
		if op.outcome != "succeeded" {
			field = "error"
			if op.outcome != "failed" || op.err == "" {
				op.outcome, op.stage = "failed", "invoke"
				fact.Outcome = "failed"
			}
			op.err = "invoke failed: " + term + " is not defined in " + g.t.file()
		} else {
			op.result = append([]kv{sv("note", "matched "+term)}, op.result...)
		}
		fact.Note = "address=" + g.curID + "/" + strconv.Itoa(op.seq) + " field=" + field
		if f.outcome == "succeeded" && op.outcome != "succeeded" {
			f.outcome = op.outcome
		}
	}
	if f.outcome == "succeeded" {
		s = append(s, "Fabric run "+f.name+" succeeded: "+strconv.Itoa(len(f.ops))+" operation(s).\n"...)
		return append(s, `{"ok":true,"count":`+strconv.Itoa(len(f.ops))+"}"...)
	}
	for _, op := range f.ops {
		if op.outcome != "succeeded" {
			return append(s, "Fabric run "+f.name+" "+f.outcome+": operation "+op.ref+" "+op.outcome+"."...)
		}
	}
	return s
}

// fabricDetails writes the FabricPersistedExecutionDetailsV1 envelope:
// {success, trace, audits, phases, error?}. The trace holds exactly the
// keys readFabricExecutionTraceV1 allows.
func (g *gen) fabricDetails(f *fabRun) {
	w := &g.w
	w.obj()
	w.kbool("success", f.outcome == "succeeded")
	w.key("trace")
	w.obj()
	w.kstr("kind", "omp-fabric.execution")
	w.kint("version", 1)
	w.kstr("outcome", f.outcome)
	w.kstrs("phases", f.phases)
	w.key("operations")
	w.arr()
	for _, op := range f.ops {
		w.obj()
		w.kstr("type", "call")
		w.kint("sequence", int64(op.seq))
		w.kstr("ref", op.ref)
		if op.explicit {
			w.kstr("provider", op.provider)
			w.kstr("action", op.action)
		}
		w.key("args")
		w.kvs(op.args)
		w.kstr("outcome", op.outcome)
		if op.stage != "" {
			w.kstr("failureStage", op.stage)
		}
		if op.err != "" {
			w.kstr("error", op.err)
		}
		if op.result != nil {
			w.key("result")
			w.kvs(op.result)
			if op.truncated {
				w.kbool("resultTruncated", true)
			}
		}
		w.endObj()
	}
	w.endArr()
	w.key("counts")
	w.obj()
	w.kint("droppedValues", 0)
	w.kint("truncatedValues", int64(f.truncated))
	w.kint("redactedValues", 0)
	w.kint("droppedOperations", int64(f.dropped))
	w.endObj()
	errMsg := ""
	if f.outcome != "succeeded" {
		errMsg = "fabric run " + f.name + " " + f.outcome
		w.kstr("error", errMsg)
	}
	w.endObj()
	w.key("audits")
	w.arr()
	w.endArr()
	w.kstrs("phases", f.phases)
	if errMsg != "" {
		w.kstr("error", errMsg)
	}
	w.endObj()
}

// branchEnvelope writes a FabricBranchSummaryDetailsV2 envelope for the
// abandoned branch in g.abLog, planting p's term into one fact if set.
func (g *gen) branchEnvelope(p *plant, first, last string, sourceBytes int) {
	t := g.t
	w := &g.w
	w.obj()
	w.kstr("kind", "omp-fabric.branch-summary")
	w.kint("version", 2)
	w.key("source")
	w.obj()
	w.kstr("firstEntryId", first)
	w.kstr("lastEntryId", last)
	w.kint("entryCount", int64(len(g.abLog)))
	if t.chance(0.8) {
		w.kstr("oldLeafId", last)
	} else {
		w.key("oldLeafId")
		w.null()
	}
	w.endObj()

	const maxFacts = 60
	facts, omitted := 0, 0
	// room reports whether another fact fits; p's fact is always kept.
	room := func() bool {
		if facts < maxFacts {
			facts++
			return true
		}
		omitted++
		return false
	}
	head := func(kind, entryID, sub string) {
		w.obj()
		w.kstr("kind", kind)
		w.kstr("entryId", entryID)
		w.kstr("subordinal", sub)
		w.kstr("address", entryID+"/"+sub)
	}
	plantAt := -1
	if p != nil {
		plantAt = t.n(3)
	}
	w.key("facts")
	w.arr()
	if t.chance(0.3) && room() {
		head("phase", first, "phase:0")
		w.kstr("phase", t.pick([]string{"explore", "edit", "verify"}))
		w.endObj()
	}
	for _, e := range g.abLog {
		if e.role == "user" && room() {
			head("user", e.id, "text:0")
			txt := e.text
			if txt == "" {
				txt = string(t.sentence(nil))
			}
			w.kstr("text", txt)
			w.endObj()
		}
		for _, c := range e.calls {
			if c.fab != nil {
				if room() {
					head("fabricRun", e.id, "call:"+c.id)
					w.kstr("name", c.fab.name)
					if t.chance(0.6) {
						w.kstr("description", t.shortText(t.between(3, 9)))
					}
					w.kstr("outcome", c.fab.outcome)
					w.endObj()
				}
				for i, op := range c.fab.ops {
					if !room() {
						continue
					}
					if c.fab.term != "" && i == c.fab.plantOp {
						// A planted term stays on its own line.
						op.err = strings.ReplaceAll(op.err, c.fab.term, "it")
					}
					head("operation", e.id, c.id+"/"+strconv.Itoa(op.seq))
					w.kstr("ref", op.ref)
					if op.explicit {
						w.kstr("provider", op.provider)
						w.kstr("action", op.action)
					}
					w.kstr("tool", op.action)
					w.key("args")
					w.kvs(op.args)
					w.kstr("outcome", op.outcome)
					if op.err != "" {
						w.kstr("error", op.err)
					}
					w.endObj()
				}
				continue
			}
			ref := "omp." + c.name
			switch c.name {
			case "read", "grep", "find", "ls", "edit", "write", "bash":
			default:
				continue
			}
			if !room() {
				continue
			}
			head("operation", e.id, "tool:"+c.id)
			w.kstr("ref", ref)
			w.kstr("tool", c.name)
			w.key("args")
			switch {
			case c.command != "":
				w.kvs([]kv{sv("command", c.command)})
			default:
				w.kvs([]kv{sv("path", c.path)})
			}
			if c.fail {
				w.kstr("outcome", "failed")
				w.kstr("error", "tool reported an error")
			} else {
				w.kstr("outcome", "succeeded")
			}
			w.endObj()
		}
	}
	if p != nil {
		term, fact := g.fact(p, "branch-fact", "")
		sub := "planted:0"
		switch plantAt {
		case 0:
			fact.Role = "branchUser"
			head("user", first, sub)
			w.kstr("text", string(t.sentence(nil))+" "+term+".")
		case 1:
			fact.Role, fact.Ref, fact.Tool, fact.Outcome = "fabricOperation", "omp.grep", "grep", "failed"
			head("operation", first, sub)
			w.kstr("ref", "omp.grep")
			w.kstr("provider", "omp")
			w.kstr("action", "grep")
			w.kstr("tool", "grep")
			w.key("args")
			w.kvs([]kv{sv("path", t.dir()), nv("limit", 50)})
			w.kstr("outcome", "failed")
			w.kstr("error", "invoke failed: "+term+" not found")
		default:
			sub = "call:planted"
			fact.Role, fact.Ref, fact.Tool, fact.Outcome = "fabricRun", "fabric_exec", "fabric_exec", "failed"
			head("fabricRun", first, sub)
			w.kstr("name", "verify-"+snake(t.ident()))
			w.kstr("description", "check "+term+" before retrying")
			w.kstr("outcome", "failed")
		}
		w.endObj()
		fact.Note = "address=" + first + "/" + sub
	}
	w.endArr()
	w.kint("omittedFacts", int64(omitted))
	w.key("sections")
	w.arr()
	for _, h := range []string{"## Goal\n", "## Attempted\n", "## Why it was abandoned\n"}[:t.between(1, 3)] {
		w.str(h + string(t.prose(nil, t.logUniform(60, 600))))
	}
	w.endArr()
	w.key("request")
	w.obj()
	w.kstr("text", "Summarize the abandoned branch: "+string(t.sentence(nil)))
	w.kint("sourceBytes", int64(sourceBytes))
	w.kbool("truncated", false)
	w.endObj()
	w.endObj()
}
