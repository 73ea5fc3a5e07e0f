package corpus

import "strings"

// turn writes a user message, rounds of tool calls and results, and a
// final assistant answer.
func (g *gen) turn() {
	t := g.t
	g.userMessage(g.due(pUser))
	rounds := []int{0, 1, 1, 2, 2, 3, 3, 4, 5, 7}[t.n(10)]
	if g.lite() {
		rounds = min(rounds, t.n(3))
	}
	think := g.due(pThinking)
	for r := 0; r < rounds || g.needsCall(); r++ {
		g.toolRound(&think)
		if !g.flush && g.size > g.target && !g.needsCall() {
			break
		}
	}
	if t.chance(0.015) {
		g.errorTurn()
	}
	g.assistantFinal(g.due(pAssistant), &think)
}

var callKinds = []plantKind{pTool, pDeep, pBashFail, pToolError, pOperation, pSubagent}

// needsCall reports whether a due plant needs a tool call.
func (g *gen) needsCall() bool {
	for _, k := range callKinds {
		if g.due(k) != nil {
			return true
		}
	}
	return false
}

// userMessage writes a user message (string or text-part content),
// planting p's term early in it if set.
func (g *gen) userMessage(p *plant) {
	t := g.t
	if g.target > 1e6 {
		g.tick(5e3, 90e3) // long sessions are busy ones
	} else {
		g.tick(20e3, 600e3)
	}
	g.startMessage("user")
	w := &g.w
	s := g.s[:0]
	if p != nil {
		s = t.prose(s, t.between(10, 300))
		term, f := g.fact(p, "term", "user")
		f.Note = "user text"
		s = append(s, ' ')
		s = append(s, term...)
		s = append(s, ' ')
		s = t.prose(s, t.between(10, 300))
	} else {
		s = t.prose(s, t.logUniform(20, g.cap(1500)))
	}
	if t.chance(0.05) {
		s = append(s, "\n\n```\n"...)
		s = t.stackTrace(s)
		s = append(s, "```"...)
	}
	g.s = s
	w.key("content")
	if t.chance(0.5) {
		w.strBytes(s)
	} else {
		w.textParts(s)
	}
	w.kint("timestamp", g.now)
	w.endObj()
	g.userAt = append(g.userAt, len(g.path))
	g.finish()
	if g.abandoned {
		e := &g.abLog[len(g.abLog)-1]
		e.role = "user"
		if p == nil {
			e.text = truncateRunes(string(s), 300)
		}
	}
}

// truncateRunes returns the first n code points of s.
func truncateRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// assistantHead begins an assistant message and its content array.
func (g *gen) assistantHead() int64 {
	ts := g.now
	g.tick(2000, 60000)
	g.startMessage("assistant")
	g.w.key("content")
	g.w.arr()
	return ts
}

// assistantTail ends the content array and writes model, usage and stop
// reason.
func (g *gen) assistantTail(ts int64, outBytes int, stop, errMsg string) {
	t := g.t
	w := &g.w
	w.endArr()
	w.kstr("api", g.m.api)
	w.kstr("provider", g.m.provider)
	w.kstr("model", g.m.id)
	ctx := g.ctxTokens + 3000
	cached := ctx * (60 + t.n(38)) / 100
	if t.n(8) == 0 {
		cached = 0
	}
	write := 0
	if g.m.cacheWrite > 0 {
		write = (ctx - cached) * t.n(90) / 100
	}
	g.writeUsage(g.m, ctx-cached-write, cached, write, outBytes/4+t.n(40))
	w.kstr("stopReason", stop)
	if errMsg != "" {
		w.kstr("errorMessage", errMsg)
	}
	w.kint("timestamp", ts)
	if t.chance(0.3) {
		w.kint("duration", g.now-ts)
		w.kint("ttft", int64(t.between(300, 4000)))
	}
	w.endObj()
	g.finish()
}

// thinkingBlock writes a thinking block of at most about size bytes, with
// a planted term early in it if *p is set.
func (g *gen) thinkingBlock(p **plant, size int) {
	t := g.t
	s := g.s[:0]
	if *p != nil {
		s = t.prose(s, t.between(20, 400))
		term, f := g.fact(*p, "thinking-term", "assistant")
		f.Note = "thinking block"
		s = append(s, ' ')
		s = append(s, term...)
		s = append(s, ". "...)
		*p = nil
	}
	s = t.prose(s, t.logUniform(60, g.cap(size)))
	g.s = s
	w := &g.w
	w.obj()
	w.kstr("type", "thinking")
	w.key("thinking")
	w.strBytes(s)
	w.kstr("thinkingSignature", g.signature())
	w.endObj()
}

// signature is the provider's opaque thinking signature: base64 for
// Anthropic and Google, a serialized reasoning item for OpenAI.
func (g *gen) signature() string {
	if strings.HasPrefix(g.m.provider, "openai") {
		b := []byte(`{"type":"reasoning","id":"rs_`)
		b = g.t.randHex(b, 40)
		b = append(b, `","encrypted_content":"`...)
		b = append(b, g.t.signature()...)
		b = append(b, `","summary":[]}`...)
		return string(b)
	}
	return g.t.signature()
}

// wantsThinking decides whether an assistant message gets a thinking block.
func (g *gen) wantsThinking(p *plant) bool {
	return p != nil || (g.thinking != "off" && g.t.chance(0.6))
}

// assistantFinal writes the answer that ends a turn, planting p's term
// early in its text if set.
func (g *gen) assistantFinal(p *plant, think **plant) {
	t := g.t
	ts := g.assistantHead()
	if g.wantsThinking(*think) {
		// A planted answer stays inside a 2000-character window even when
		// thinking is indexed before it.
		size := 2500
		if p != nil {
			size = 300
		}
		g.thinkingBlock(think, size)
	}
	s := g.s[:0]
	if p != nil {
		s = t.prose(s, t.between(20, 600))
		term, f := g.fact(p, "term", "assistant")
		f.Note = "assistant text"
		s = append(s, " `"...)
		s = append(s, term...)
		s = append(s, "` "...)
		s = t.prose(s, t.between(20, 600))
	} else {
		s = t.prose(s, t.logUniform(40, g.cap(4000)))
	}
	g.s = s
	g.w.textPart(s)
	g.assistantTail(ts, len(s), "stop", "")
}

// errorTurn writes an assistant message that failed with an API error.
func (g *gen) errorTurn() {
	ts := g.assistantHead()
	g.assistantTail(ts, 0, "error", g.t.pick([]string{
		"529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}",
		"Request timed out after 600000ms",
		"429 rate_limit_error: Number of request tokens has exceeded your per-minute rate limit",
	}))
}
