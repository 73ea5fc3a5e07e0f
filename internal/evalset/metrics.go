package evalset

// HitRef is what ranking needs of one hit.
type HitRef struct {
	SessionID string
	// Entry is false for a cold session candidate: it counts at session
	// level only.
	Entry bool
	// EntryID is "" for an entry without an id.
	EntryID string
	Index   int
	// Episode is the episode ordinal the entry falls in, -1 when it falls
	// in none (before a session's first user text message) or was not
	// mapped.
	Episode int
}

// Ranks are a question's 1-based ranks in its page; 0 is not found.
type Ranks struct {
	Entry   int `json:"entry"`
	Session int `json:"session"`
}

// Rank ranks hits against q's evidence.
func Rank(q Question, hits []HitRef) Ranks {
	var r Ranks
	for i, h := range hits {
		if r.Entry == 0 && h.Entry && matchesEntry(q, h) {
			r.Entry = i + 1
		}
		if r.Session == 0 && matchesSession(q, h.SessionID) {
			r.Session = i + 1
		}
	}
	return r
}

func matchesEntry(q Question, h HitRef) bool {
	for _, ev := range q.Expected {
		if ev.SessionID != h.SessionID {
			continue
		}
		// An index names only an entry without an id, so the same index
		// in a file that has ids (another copy under the same session
		// id) is not taken for it.
		if ev.EntryID != "" && ev.EntryID == h.EntryID ||
			ev.EntryID == "" && h.EntryID == "" && ev.Index != nil && *ev.Index == h.Index {
			return true
		}
	}
	for _, ep := range q.Episodes {
		if ep.SessionID == h.SessionID && h.Episode >= 0 && ep.Ordinal == h.Episode {
			return true
		}
	}
	return false
}

func matchesSession(q Question, id string) bool {
	for _, ev := range q.Expected {
		if ev.SessionID == id {
			return true
		}
	}
	for _, ep := range q.Episodes {
		if ep.SessionID == id {
			return true
		}
	}
	return false
}

// Metrics are recall at 1, 5 and 10 and the mean reciprocal rank over N
// questions.
type Metrics struct {
	N   int     `json:"n"`
	R1  float64 `json:"r1"`
	R5  float64 `json:"r5"`
	R10 float64 `json:"r10"`
	MRR float64 `json:"mrr"`
}

// Summarize turns ranks (1-based, 0 = not found) into Metrics. No ranks
// give zero metrics with N 0.
func Summarize(ranks []int) Metrics {
	m := Metrics{N: len(ranks)}
	if m.N == 0 {
		return m
	}
	var r1, r5, r10 int
	var rr float64
	for _, r := range ranks {
		if r <= 0 {
			continue
		}
		rr += 1 / float64(r)
		if r <= 1 {
			r1++
		}
		if r <= 5 {
			r5++
		}
		if r <= 10 {
			r10++
		}
	}
	n := float64(m.N)
	m.R1, m.R5, m.R10, m.MRR = float64(r1)/n, float64(r5)/n, float64(r10)/n, rr/n
	return m
}
