package corpus

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// call is one planned tool call and the shape of its result.
type call struct {
	id, name string
	plant    *plant
	fail     bool
	exitCode int
	large    int // target output size in bytes, or 0
	path     string
	command  string
	pattern  string
	// edit / write
	edits [][2]string
	// task
	agent, agentID, description, assignment string
	// fabric_exec
	fab *fabRun
}

var toolWeights = []struct {
	name string
	w    int
}{
	{"read", 28}, {"grep", 14}, {"find", 5}, {"ls", 3}, {"edit", 12},
	{"write", 4}, {"bash", 20}, {"fabric_exec", 3}, {"web_search", 2},
	{"todo_write", 2},
}

// randomTool picks a tool by toolWeights.
func (g *gen) randomTool() string {
	n := g.t.n(93)
	for _, tw := range toolWeights {
		if n < tw.w {
			return tw.name
		}
		n -= tw.w
	}
	return "read"
}

// newCallID returns a tool call id in the model provider's style.
func (g *gen) newCallID() string {
	b := make([]byte, 0, 32)
	switch {
	case g.m.provider == "anthropic":
		b = append(b, "toolu_01"...)
		b = g.t.randID(b, 22)
	case strings.HasPrefix(g.m.provider, "openai"):
		b = append(b, "call_"...)
		b = g.t.randID(b, 24)
	default:
		b = append(b, "call_"...)
		b = g.t.randID(b, 16)
	}
	return string(b)
}

// planCall fills in a call for tool name, serving plant p if set.
func (g *gen) planCall(name string, p *plant) *call {
	t := g.t
	c := &call{id: g.newCallID(), name: name, plant: p}
	remaining := int(g.target - g.size)
	bigOK := remaining > 40e3 && !g.flush
	switch name {
	case "read":
		c.path = t.file()
		c.fail = t.chance(0.03)
		if bigOK && t.chance(0.08) {
			c.large = t.logUniform(10e3, min(350e3, remaining/2))
		}
	case "grep":
		c.pattern = t.ident()
		if t.chance(0.3) {
			c.pattern += "\\(" // a regex
		}
		c.path = t.dir()
		if bigOK && t.chance(0.05) {
			c.large = t.logUniform(10e3, min(250e3, remaining/2))
		}
	case "find", "ls":
		c.path = t.dir()
		if name == "find" {
			c.pattern = "**/*." + t.p.lang
		}
	case "edit":
		c.path = t.file()
		c.fail = t.chance(0.05)
		for range t.between(1, 3) {
			c.edits = append(c.edits, [2]string{string(t.code(nil, t.between(1, 4), 0)), string(t.code(nil, t.between(1, 6), 0))})
		}
	case "write":
		c.path = t.file()
		c.edits = [][2]string{{"", string(t.code(nil, t.between(8, 90), 0))}}
	case "bash":
		c.command = t.command()
		if bigOK && t.chance(0.07) {
			c.large = t.logUniform(10e3, min(400e3, remaining/2))
		}
		if t.chance(0.15) {
			c.fail = true
			c.exitCode = []int{1, 1, 1, 2, 101, 127}[t.n(6)]
		}
	case "fabric_exec":
		c.fab = g.planFabric(p)
	case "task":
		c.agent = t.pick([]string{"explore", "explore", "plan", "reviewer", "task"})
		c.agentID = strconv.Itoa(g.agents) + "-" + c.agent
		g.agents++
		c.description = t.shortText(t.between(3, 7))
		c.assignment = string(t.prose(nil, t.between(200, 1200)))
	case "web_search":
		c.pattern = t.shortText(t.between(3, 6))
	}
	if p == nil {
		return c
	}
	switch p.kind {
	case pDeep:
		c.large = max(c.large, t.logUniform(6e3, 60e3))
		c.fail = false
		if name == "bash" {
			c.command = t.testCommand()
		}
	case pTool:
		c.large = 0
		c.fail = false
	case pBashFail:
		c.fail = true
		c.exitCode = 1
		c.large = 0
	case pToolError:
		c.fail = true
	}
	return c
}

// toolRound writes one assistant message with several tool calls and then
// their results.
func (g *gen) toolRound(think **plant) {
	t := g.t
	n := []int{1, 1, 2, 2, 2, 3, 3, 4, 5}[t.n(9)]
	if g.lite() {
		n = 1 + t.n(2)
	}
	var calls []*call
	served := 0
	for _, k := range callKinds {
		p := g.due(k)
		if p == nil || served == 2 {
			continue
		}
		if k == pSubagent && g.depth >= 2 {
			p.done = true // a grandchild spawns nobody
			continue
		}
		served++
		var name string
		switch k {
		case pTool:
			name = t.pick([]string{"read", "grep", "bash"})
		case pDeep:
			name = t.pick([]string{"read", "grep", "bash", "bash"})
		case pBashFail:
			name = "bash"
		case pToolError:
			name = "edit"
		case pOperation:
			name = "fabric_exec"
		case pSubagent:
			name = "task"
		}
		p.done = true // served by this call; the fact is written with it
		calls = append(calls, g.planCall(name, p))
	}
	for len(calls) < n {
		calls = append(calls, g.planCall(g.randomTool(), nil))
	}
	t.r.Shuffle(len(calls), func(i, j int) { calls[i], calls[j] = calls[j], calls[i] })

	ts := g.assistantHead()
	if g.wantsThinking(*think) {
		g.thinkingBlock(think, 2500)
	}
	outBytes := 0
	if t.chance(0.45) {
		g.s = t.prose(g.s[:0], t.logUniform(20, 600))
		outBytes += len(g.s)
		g.w.textPart(g.s)
	}
	for _, c := range calls {
		start := len(g.w.b)
		g.w.obj()
		g.w.kstr("type", "toolCall")
		g.w.kstr("id", c.id)
		g.w.kstr("name", c.name)
		g.w.key("arguments")
		g.callArgs(c)
		g.w.endObj()
		outBytes += len(g.w.b) - start
	}
	g.assistantTail(ts, outBytes, "toolUse", "")
	if g.abandoned {
		g.abLog[len(g.abLog)-1].role = "assistant"
		g.abLog[len(g.abLog)-1].calls = calls
	}
	for _, c := range calls {
		if g.execStarts {
			g.execStart(c)
		}
		g.toolResult(c)
	}
}

// callArgs writes the arguments object of c's toolCall block.
func (g *gen) callArgs(c *call) {
	w := &g.w
	t := g.t
	w.obj()
	switch c.name {
	case "read":
		w.kstr("path", c.path)
		if c.large == 0 && t.chance(0.4) {
			w.kint("offset", int64(t.between(1, 400)))
			w.kint("limit", int64(t.pick2(80, 200)))
		}
	case "grep":
		w.kstr("pattern", c.pattern)
		w.kstr("path", c.path)
		if t.chance(0.3) {
			w.kstr("glob", "*."+t.p.lang)
		}
		if t.chance(0.2) {
			w.kbool("i", true)
		}
	case "find":
		w.kstr("pattern", c.pattern)
		w.kstr("path", c.path)
	case "ls":
		w.kstr("path", c.path)
	case "edit":
		w.kstr("path", c.path)
		w.key("edits")
		w.arr()
		for _, e := range c.edits {
			w.obj()
			w.kstr("old", e[0])
			w.kstr("new", e[1])
			w.endObj()
		}
		w.endArr()
	case "write":
		w.kstr("path", c.path)
		w.kstr("content", c.edits[0][1])
	case "bash":
		w.kstr("command", c.command)
		if t.chance(0.3) {
			w.kint("timeout", int64(t.pick2(120, 600)))
		}
	case "task":
		w.kstr("agent", c.agent)
		w.key("tasks")
		w.arr()
		w.obj()
		w.kstr("id", c.agentID)
		w.kstr("description", c.description)
		w.kstr("assignment", c.assignment)
		w.endObj()
		w.endArr()
	case "fabric_exec":
		w.kstr("code", c.fab.code)
	case "web_search":
		w.kstr("query", c.pattern)
	case "todo_write":
		w.key("todos")
		w.arr()
		for range t.between(2, 5) {
			w.obj()
			w.kstr("content", t.shortText(t.between(3, 8)))
			w.kstr("status", t.pick([]string{"pending", "in_progress", "completed"}))
			w.endObj()
		}
		w.endArr()
	}
	w.endObj()
}

// execStart writes the custom tool_execution_start record OMP writes
// just before a tool runs.
func (g *gen) execStart(c *call) {
	g.tick(5, 300)
	g.startCustom("custom", "tool_execution_start")
	w := &g.w
	w.key("data")
	w.obj()
	w.kstr("toolCallId", c.id)
	w.kstr("toolName", c.name)
	w.kstr("startedAt", iso(g.now))
	switch {
	case c.command != "":
		w.key("args")
		w.obj()
		w.kstr("command", c.command)
		w.endObj()
	case c.path != "":
		w.key("args")
		w.obj()
		w.kstr("path", c.path)
		w.endObj()
	}
	w.endObj()
	g.finishCustom()
}

// plantText appends a planted term for c.plant to s: early for a plain
// term, past 3000 bytes for a deep one (the caller has written that much).
func (g *gen) plantText(s []byte, c *call, kind, note string) []byte {
	term, f := g.fact(c.plant, kind, "toolResult")
	f.Tool = c.name
	f.Note = note
	if c.fail {
		f.Outcome = "error"
	} else {
		f.Outcome = "ok"
	}
	if c.name == "bash" && c.fail {
		f.Note = "exitCode=" + strconv.Itoa(c.exitCode)
	}
	pre := len(s)
	s = append(s, term...)
	if kind == "deep-term" {
		f.Offset = utf8.RuneCount(s[:pre])
	}
	return s
}

// output appends the normal output of call c, about size bytes when size
// is set.
func (g *gen) output(s []byte, c *call, size int) []byte {
	t := g.t
	switch c.name {
	case "read":
		if size > 0 {
			return t.codeSized(s, size, 1)
		}
		return t.code(s, t.logUniform(5, g.cap(160)), t.between(1, 300))
	case "grep":
		if size > 0 {
			end := len(s) + size
			for len(s) < end {
				s = t.grepLines(s, 20)
				s = append(s, '\n')
			}
			return s
		}
		return t.grepLines(s, t.logUniform(1, g.cap(60)))
	case "bash":
		return g.bashOutput(s, c.command, c.fail, size)
	}
	return s
}

// bashOutput appends the output of shell command cmd, about size bytes
// when the command's kind of output can be that long.
func (g *gen) bashOutput(s []byte, cmd string, fail bool, size int) []byte {
	t := g.t
	if size == 0 {
		size = t.logUniform(60, g.cap(5000))
	}
	switch {
	case strings.HasPrefix(cmd, "git "):
		return t.gitOutput(s, cmd)
	case strings.Contains(cmd, "test") || strings.Contains(cmd, "pytest") || strings.Contains(cmd, "vitest"):
		return t.testOutput(s, size, fail)
	case strings.HasPrefix(cmd, "rg "):
		return t.grepLines(s, max(1, size/80))
	case strings.HasPrefix(cmd, "ls "):
		return t.lsLines(s, max(1, size/60))
	case strings.HasPrefix(cmd, "wc "):
		return append(s, strconv.Itoa(t.between(10, 3000))+" "+cmd[6:]...)
	case strings.HasPrefix(cmd, "head "):
		return t.codeSized(s, size, 1)
	default:
		if fail && t.chance(0.4) {
			return t.stackTrace(s)
		}
		return t.buildLog(s, size, fail)
	}
}

// toolResult writes the toolResult of call c, with the planted term of
// c.plant if set.
func (g *gen) toolResult(c *call) {
	t := g.t
	if c.name == "task" {
		g.taskResult(c)
		return
	}
	g.tick(50, 20000)
	g.startMessage("toolResult")
	w := &g.w
	w.kstr("toolCallId", c.id)
	w.kstr("toolName", c.name)
	s := g.s[:0]
	p := c.plant
	switch {
	case c.name == "fabric_exec":
		s = g.fabricText(s, c)
	case c.fail && c.name == "read":
		s = append(s, "ENOENT: no such file or directory, open '"+t.p.cwd+"/"+c.path+"'"...)
	case c.fail && c.name == "edit":
		s = append(s, "Error: could not find the text to replace in "+c.path+".\nClosest match at line "+strconv.Itoa(t.between(3, 700))+":\n"...)
		s = t.codeLine(s)
		if p != nil {
			s = append(s, " // "...)
			s = g.plantText(s, c, "tool-outcome", "edit failed")
		}
	case c.name == "edit":
		s = append(s, "Applied "+strconv.Itoa(len(c.edits))+" edit(s) to "+c.path...)
	case c.name == "write":
		s = append(s, "Wrote "+strconv.Itoa(len(c.edits[0][1]))+" bytes to "+c.path...)
	case c.name == "find":
		s = t.pathList(s, t.logUniform(1, 80))
	case c.name == "ls":
		s = t.lsLines(s, t.logUniform(2, 40))
	case c.name == "web_search":
		for i := range t.between(3, 8) {
			s = append(s, strconv.Itoa(i+1)+". "+t.shortText(t.between(3, 8))+"\n   https://"+t.pick([]string{"pkg.go.dev", "github.com", "stackoverflow.com", "docs.python.org", "developer.mozilla.org"})+"/"+snake(t.ident())+"\n   "...)
			s = t.sentence(s)
			s = append(s, '\n')
		}
	case c.name == "todo_write":
		s = append(s, "Todo list updated."...)
	case p != nil && p.kind == pDeep:
		off := t.between(3000, max(3000, c.large-200))
		s = g.output(s, c, off)
		for utf8.RuneCount(s) < 2600 {
			s = append(s, '\n')
			s = g.output(s, c, 1000)
		}
		s = append(s, "\n"...)
		if c.name == "read" {
			s = append(s, "// "...)
		}
		s = g.plantText(s, c, "deep-term", "deep in a large tool output")
		s = append(s, ' ')
		s = t.sentence(s)
		s = append(s, '\n')
		s = g.output(s, c, max(200, c.large-off))
	case p != nil:
		// Early in the output, well inside a 2000-character hot window.
		s = g.output(s, c, 0)
		if len(s) > 1200 {
			s = s[:1200]
			for len(s) > 0 && !utf8.Valid(s) {
				s = s[:len(s)-1]
			}
		}
		s = append(s, '\n')
		kind, note := "term", "tool output"
		if c.fail {
			kind, note = "tool-outcome", "bash failed"
		}
		s = g.plantText(s, c, kind, note)
		s = append(s, ": "...)
		s = t.sentence(s)
		s = append(s, '\n')
		s = g.output(s, c, 0)
	default:
		s = g.output(s, c, c.large)
	}
	if c.name == "bash" && c.fail {
		s = append(s, "\n\nCommand exited with code "+strconv.Itoa(c.exitCode)...)
	}
	if c.name == "grep" && len(s) == 0 {
		s = append(s, "No matches found"...)
	}
	g.s = s
	w.key("content")
	w.textParts(s)
	g.resultDetails(c, s)
	w.kbool("isError", c.fail)
	w.kint("timestamp", g.now)
	w.endObj()
	g.finish()
	switch c.name {
	case "read", "grep", "find", "ls":
		g.touch(&g.readFiles, c.path)
	case "edit", "write":
		g.touch(&g.modFiles, c.path)
	}
}

// cap shrinks an upper bound of an output size for lite sessions.
func (g *gen) cap(n int) int {
	if g.lite() {
		return max(2, n/6)
	}
	return n
}

// touch records path in a compaction's readFiles or modifiedFiles.
func (g *gen) touch(list *[]string, path string) {
	if path == "" || g.fileSeen[path] {
		return
	}
	g.fileSeen[path] = true
	*list = append(*list, path)
}

// resultDetails writes the tool-specific details of c's result.
func (g *gen) resultDetails(c *call, out []byte) {
	w := &g.w
	t := g.t
	switch c.name {
	case "read":
		if !c.fail {
			w.key("details")
			w.obj()
			w.kint("lineCount", int64(1+strings.Count(string(out), "\n")))
			w.endObj()
		}
	case "grep":
		w.key("details")
		w.obj()
		w.kint("matchCount", int64(strings.Count(string(out), "\n")+1))
		w.endObj()
	case "edit":
		if !c.fail {
			w.key("details")
			w.obj()
			w.key("diff")
			w.strBytes(t.diff(nil, c.path))
			w.endObj()
		}
	case "bash":
		w.key("details")
		w.obj()
		if c.fail {
			w.kint("exitCode", int64(c.exitCode))
		}
		w.kint("wallTimeMs", int64(t.logUniform(20, 120000)))
		w.endObj()
	case "fabric_exec":
		w.key("details")
		g.fabricDetails(c.fab)
	case "todo_write":
		w.key("details")
		w.obj()
		w.kint("count", int64(t.between(2, 5)))
		w.endObj()
	}
}
