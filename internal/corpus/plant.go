package corpus

// plantKind says where a planted term goes.
type plantKind uint8

const (
	pUser plantKind = iota
	pAssistant
	pThinking
	pTool
	pDeep
	pBashFail
	pToolError
	pOperation
	pSubagent
	pCustom
	pBashExec
	pCompaction
	pBranchFact
	pAbandoned // planned only: becomes a turn kind with abandoned set
	nPlantKinds
)

// plantOdds are the chances that a session gets a random plant of a kind,
// on top of the one kind each of the first 2*nPlantKinds sessions is given
// in turn.
var plantOdds = [nPlantKinds]float64{
	pUser: 0.2, pAssistant: 0.2, pThinking: 0.06, pTool: 0.15, pDeep: 0.08,
	pBashFail: 0.08, pToolError: 0.06, pOperation: 0.08, pSubagent: 0.015,
	pCustom: 0.05, pBashExec: 0.06, pCompaction: 0.03, pBranchFact: 0.03,
	pAbandoned: 0.06,
}

type plant struct {
	kind      plantKind
	abandoned bool
	at        int64 // becomes due when the file is this large
	done      bool
	// silent plants plant no term: a subagent spawn without a fact.
	silent bool
	// subagent marks an assistant plant handed to a subagent session.
	subagent bool
}

// plan gives top-level session i its planted terms, branches, compactions
// and subagents.
func (g *gen) plan(i int) {
	t := g.t
	// The first sessions get one plant of every kind in turn, so that even
	// a small corpus has every kind of fact.
	var kinds []plantKind
	if i < 2*int(nPlantKinds) {
		kinds = append(kinds, plantKind(i%int(nPlantKinds)))
	}
	for k := range nPlantKinds {
		if t.chance(plantOdds[k]) {
			kinds = append(kinds, k)
		}
	}
	if t.chance(0.015) {
		g.plants = append(g.plants, &plant{kind: pSubagent, silent: true, at: g.at()})
	}
	for _, k := range kinds {
		p := &plant{kind: k, at: g.at()}
		switch k {
		case pAbandoned:
			p.abandoned = true
			p.kind = []plantKind{pUser, pAssistant, pTool, pBashFail, pOperation}[t.n(5)]
		}
		g.plants = append(g.plants, p)
	}
	if g.target > 20e3 && t.chance(0.14) {
		g.branchAt = append(g.branchAt, g.at())
		if t.chance(0.25) {
			g.branchAt = append(g.branchAt, g.at())
		}
	}
	for n := g.target / 700e3; n > 0; n-- {
		if t.chance(0.7) {
			g.compactAt = append(g.compactAt, g.at())
		}
	}
	g.title = t.title()
	g.titleSource = "auto"
	if t.chance(0.2) {
		g.titleSource = "user"
	}
	if t.chance(0.06) {
		g.title = ""
	}
	g.titleChange = g.title != "" && t.chance(0.6)
}

// at returns a random position in the middle of the session's byte target.
func (g *gen) at() int64 {
	return int64(float64(g.target) * (0.1 + 0.8*g.t.r.Float64()))
}

// due returns the first pending plant of kind k that may be planted now, or
// nil.
func (g *gen) due(k plantKind) *plant {
	for _, p := range g.plants {
		if !p.done && p.kind == k && p.abandoned == g.abandoned && (g.flush || p.at <= g.size) {
			return p
		}
	}
	return nil
}

// pending reports whether a plant has not been planted yet.
func (g *gen) pending() bool {
	for _, p := range g.plants {
		if !p.done {
			return true
		}
	}
	return false
}

// dueAbandoned reports whether a plant for an abandoned branch is due.
func (g *gen) dueAbandoned() bool {
	for _, p := range g.plants {
		if !p.done && p.abandoned && (g.flush || p.at <= g.size) {
			return true
		}
	}
	return false
}

// fact records a planted term; the caller fills the placement fields.
func (g *gen) fact(p *plant, kind, role string) (string, *Fact) {
	p.done = true
	if p.silent {
		return "", nil
	}
	branch := "active"
	if p.abandoned {
		kind, branch = "abandoned-term", "abandoned"
	}
	if p.subagent {
		kind = "subagent-term"
	}
	f := &Fact{
		Kind: kind, Term: g.run.term(), SessionID: g.id, Path: g.rel,
		EntryID: g.curID, Role: role, Branch: branch,
	}
	g.run.facts = append(g.run.facts, f)
	return f.Term, f
}
