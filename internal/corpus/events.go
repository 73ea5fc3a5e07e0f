package corpus

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// Entries between turns: user bash commands, custom messages, compactions,
// abandoned branches with their summaries, and subagent sessions.

// bashExecution writes a user "!" command with its output and exit code,
// planting p's term in the output if set.
func (g *gen) bashExecution(p *plant) {
	t := g.t
	g.tick(5000, 120000)
	g.startMessage("bashExecution")
	w := &g.w
	cmd := t.command()
	w.kstr("command", cmd)
	exit, cancelled := 0, false
	switch {
	case p != nil:
		exit = []int{1, 1, 2, 130}[t.n(4)]
	case t.chance(0.04):
		cancelled = true
	case t.chance(0.25):
		exit = []int{1, 2, 127}[t.n(3)]
	}
	s := g.s[:0]
	if p != nil {
		s = append(s, "error: "...)
		term, f := g.fact(p, "bash-execution", "bashExecution")
		f.Tool = "bash"
		f.Outcome = "exit:" + strconv.Itoa(exit)
		f.Note = "user ! command output"
		s = append(s, term...)
		s = append(s, ' ')
		s = t.sentence(s)
		s = append(s, '\n')
	}
	s = g.bashOutput(s, cmd, exit != 0, t.logUniform(40, 3000))
	g.s = s
	w.key("output")
	w.strBytes(s)
	if !cancelled {
		w.kint("exitCode", int64(exit))
	}
	w.kbool("cancelled", cancelled)
	w.kbool("truncated", false)
	w.kint("timestamp", g.now)
	w.endObj()
	g.finish()
}

// customMessage writes a custom_message entry, planting p's term if set.
func (g *gen) customMessage(p *plant) {
	t := g.t
	g.tick(100, 5000)
	g.startCustom("custom_message", t.pick([]string{"skill-prompt", "rewind-report", "com.example.lint-hint", "ttsr-reminder"}))
	w := &g.w
	s := t.prose(g.s[:0], t.logUniform(30, 1200))
	if p != nil {
		term, f := g.fact(p, "term", "custom")
		f.Note = "custom_message content"
		s = append(s, ' ')
		s = append(s, term...)
		s = append(s, '.')
	}
	g.s = s
	w.key("content")
	if t.chance(0.7) {
		w.strBytes(s)
	} else {
		w.textParts(s)
	}
	w.kbool("display", t.chance(0.7))
	if t.chance(0.5) {
		w.key("details")
		w.obj()
		w.kstr("source", t.pick([]string{"lint-ext", "skills", "rewind"}))
		w.endObj()
	}
	if t.chance(0.6) {
		w.kstr("attribution", t.pick([]string{"agent", "user"}))
	}
	g.finishCustom()
}

// compactionDue consumes a planned compaction position the file has passed.
func (g *gen) compactionDue() bool {
	if len(g.compactAt) > 0 && g.compactAt[0] <= g.size {
		g.compactAt = g.compactAt[1:]
		return true
	}
	return false
}

// compaction writes a compaction whose firstKeptEntryId is a recent user
// message on the path, planting p's term in the summary if set.
func (g *gen) compaction(p *plant) {
	t := g.t
	g.tick(2000, 30000)
	kept := ""
	if n := len(g.userAt); n > 0 {
		kept = g.path[g.userAt[max(0, n-1-t.n(3))]]
	} else if len(g.path) > 0 {
		kept = g.path[len(g.path)/2]
	}
	g.start("compaction")
	w := &g.w
	s := append(g.s[:0], "## Goal\n"...)
	s = t.sentence(s)
	s = append(s, "\n\n## Progress\n"...)
	for range t.between(2, 6) {
		s = append(s, "- "...)
		s = t.sentence(s)
		s = append(s, '\n')
	}
	if p != nil {
		term, f := g.fact(p, "term", "compaction")
		f.Note = "compaction summary"
		s = append(s, "- Open question: "...)
		s = append(s, term...)
		s = append(s, '\n')
	}
	s = append(s, "\n## Next steps\n"...)
	for range t.between(1, 4) {
		s = append(s, "- "...)
		s = t.sentence(s)
		s = append(s, '\n')
	}
	g.s = s
	w.key("summary")
	w.strBytes(s)
	w.kstr("shortSummary", t.shortText(t.between(3, 7)))
	w.kstr("firstKeptEntryId", kept)
	w.kint("tokensBefore", int64(g.ctxTokens+t.n(5000)))
	g.fileDetails()
	g.finish()
	g.ctxTokens /= 5
}

// fileDetails writes {readFiles, modifiedFiles} details.
func (g *gen) fileDetails() {
	w := &g.w
	w.key("details")
	w.obj()
	w.kstrs("readFiles", tail(g.readFiles, 12))
	w.kstrs("modifiedFiles", tail(g.modFiles, 12))
	w.endObj()
}

// tail returns the last n items of s, never nil.
func tail(s []string, n int) []string {
	if s == nil {
		return []string{}
	}
	return s[max(0, len(s)-n):]
}

// branchDue reports whether a branch should be written now: a planned
// position was passed, or a plant that needs one is due.
func (g *gen) branchDue() bool {
	if len(g.branchAt) > 0 && g.branchAt[0] <= g.size {
		return true
	}
	return g.dueAbandoned() || g.due(pBranchFact) != nil
}

// branch writes an abandoned sibling branch after the current leaf X, then
// navigates back to X with a branch_summary, which becomes the new leaf.
func (g *gen) branch() {
	t := g.t
	if len(g.branchAt) > 0 && g.branchAt[0] <= g.size {
		g.branchAt = g.branchAt[1:]
	}
	x, xi := g.leaf, len(g.path)
	factPlant := g.due(pBranchFact)
	discard := !g.dueAbandoned() && factPlant == nil && t.chance(0.15)
	g.branched = true
	g.abandoned = true
	g.abLog = g.abLog[:0]
	startSize := g.size
	if discard {
		g.errorTurn()
	} else {
		turns := 1 + t.n(2)
		for i := 0; i < turns || (g.dueAbandoned() && i < 8); i++ {
			g.turn()
		}
	}
	g.abandoned = false
	first, last := g.path[xi], g.leaf
	g.path = g.path[:xi]
	for len(g.userAt) > 0 && g.userAt[len(g.userAt)-1] >= xi {
		g.userAt = g.userAt[:len(g.userAt)-1]
	}
	g.leaf = x
	g.tick(5000, 300000)
	g.start("branch_summary")
	w := &g.w
	if x == "" {
		w.kstr("fromId", "root")
	} else {
		w.kstr("fromId", x)
	}
	if discard {
		w.kstr("summary", "")
		w.key("details")
		w.obj()
		w.kstr("kind", "discarded-entry-branch")
		w.kstr("discardedEntryId", first)
		w.endObj()
		g.finish()
		return
	}
	g.s = t.prose(g.s[:0], t.logUniform(100, 1500))
	w.key("summary")
	w.strBytes(g.s)
	if factPlant != nil || t.chance(0.5) {
		w.key("details")
		g.branchEnvelope(factPlant, first, last, int(g.size-startSize))
	} else {
		g.fileDetails()
	}
	if t.chance(0.5) {
		w.kbool("fromExtension", false)
	}
	g.finish()
}

// taskResult runs the subagent of a task call (writing its session file)
// and writes the task's toolResult.
func (g *gen) taskResult(c *call) {
	t := g.t
	sub := g.spawn(c)
	g.now = sub.now
	g.tick(200, 3000)
	g.startMessage("toolResult")
	w := &g.w
	w.kstr("toolCallId", c.id)
	w.kstr("toolName", "task")
	s := append(g.s[:0], "## "+c.agentID+" ("+c.agent+") completed\n\n"...)
	s = t.prose(s, t.logUniform(200, 3000))
	g.s = s
	w.key("content")
	w.textParts(s)
	w.key("details")
	w.obj()
	w.key("results")
	w.arr()
	w.obj()
	w.kstr("id", c.agentID)
	w.kstr("agent", c.agent)
	w.kstr("status", "completed")
	w.kstr("output", "agent://"+c.agentID)
	w.endObj()
	w.endArr()
	u := sub.usage
	g.writeUsageTotals(u)
	w.endObj()
	w.kbool("isError", false)
	w.kint("timestamp", g.now)
	w.endObj()
	g.finish()
}

// writeUsageTotals writes a subagent's summed usage, with its cost.
func (g *gen) writeUsageTotals(u usage) {
	w := &g.w
	w.key("usage")
	w.obj()
	w.kint("input", int64(u.input))
	w.kint("output", int64(u.output))
	w.kint("cacheRead", int64(u.cacheRead))
	w.kint("cacheWrite", int64(u.cacheWrite))
	w.kint("totalTokens", int64(u.input+u.output+u.cacheRead+u.cacheWrite))
	w.key("cost")
	w.obj()
	w.knum("input", u.cost[0])
	w.knum("output", u.cost[1])
	w.knum("cacheRead", u.cost[2])
	w.knum("cacheWrite", u.cost[3])
	w.knum("total", u.cost[0]+u.cost[1]+u.cost[2]+u.cost[3])
	w.endObj()
	w.endObj()
}

// spawn writes the subagent session of task call c. A subagent's own
// children nest one level deeper, as OMP files them.
func (g *gen) spawn(c *call) *gen {
	t := g.t
	art := strings.TrimSuffix(g.rel, ".jsonl")
	rel := art + "/" + c.agentID + ".jsonl"
	if g.depth == 1 {
		// art is <parent artifacts>/<agentId>: the child is
		// <agentId>/<agentId>.<childId>.jsonl.
		rel = art + "/" + g.agentID + "." + c.agentID + ".jsonl"
	}
	st := &text{r: rand.New(rand.NewPCG(t.r.Uint64(), t.r.Uint64())), v: t.v, p: t.p}
	size := lognormalSize(st.r, 25e3, 1.0, 3e3, 1.5e6, g.run.c.opt.Scale)
	sub := newGen(g.run, st, g.now+int64(t.between(100, 2000)), "", rel, g.abs, size, g.depth+1)
	sub.agentID = c.agentID
	sub.parentRel = g.rel
	sub.m = g.m
	sub.task = c.assignment
	sub.agent = c.agent
	if p := c.plant; p != nil && !p.silent {
		// The term goes to the subagent's answer, or one level deeper.
		if g.depth == 0 && st.chance(0.4) {
			sub.plants = append(sub.plants, &plant{kind: pSubagent, subagent: true})
		} else {
			sub.plants = append(sub.plants, &plant{kind: pAssistant, subagent: true})
		}
	} else if g.depth == 0 && st.chance(0.25) {
		sub.plants = append(sub.plants, &plant{kind: pSubagent, silent: true})
	}
	if err := sub.write(); err != nil && g.run.err == nil {
		g.run.err = err
	}
	return sub
}

// subBody writes a subagent session: session_init, the assignment as the
// user message, tool rounds, and a final answer.
func (g *gen) subBody() {
	t := g.t
	g.execStarts = t.chance(0.5)
	g.header()
	g.tick(50, 500)
	g.sessionInit(g.task, g.agent)
	g.modelChange("default")
	g.thinkingChange()
	g.tick(100, 1000)
	g.startMessage("user")
	g.w.kstr("content", g.task)
	g.w.kint("timestamp", g.now)
	g.w.endObj()
	g.finish()
	var think *plant
	for iter := 0; iter < 10000; iter++ {
		g.flush = g.size >= g.target
		if g.flush && !g.needsCall() {
			break
		}
		g.toolRound(&think)
	}
	g.flush = true
	g.assistantFinal(g.due(pAssistant), &think)
}
