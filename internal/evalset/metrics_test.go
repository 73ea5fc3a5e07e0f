package evalset

import (
	"math"
	"strings"
	"testing"
)

func ip(i int) *int { return &i }

func TestRank(t *testing.T) {
	byEntry := Question{Expected: []Evidence{{SessionID: "s1", EntryID: "e5"}, {SessionID: "s1", EntryID: "e9"}}}
	byIndex := Question{Expected: []Evidence{{SessionID: "v1", Index: ip(7)}}}
	byEpisode := Question{Episodes: []Episode{{SessionID: "s2", Ordinal: 1}}}
	for _, tc := range []struct {
		name string
		q    Question
		hits []HitRef
		want Ranks
	}{
		{"first hit", byEntry, []HitRef{{SessionID: "s1", Entry: true, EntryID: "e5"}}, Ranks{1, 1}},
		{"any expected entry counts", byEntry, []HitRef{
			{SessionID: "s3", Entry: true, EntryID: "e5"},
			{SessionID: "s1", Entry: true, EntryID: "e1"},
			{SessionID: "s1", Entry: true, EntryID: "e9"},
		}, Ranks{3, 2}},
		{"same entry id in another session is not it", byEntry, []HitRef{{SessionID: "s2", Entry: true, EntryID: "e5"}}, Ranks{0, 0}},
		{"a cold session hit counts for the session only", byEntry, []HitRef{
			{SessionID: "s1"}, {SessionID: "s1", Entry: true, EntryID: "e5"},
		}, Ranks{2, 1}},
		{"index names an entry without an id", byIndex, []HitRef{
			{SessionID: "v1", Entry: true, EntryID: "abc", Index: 7},
			{SessionID: "v1", Entry: true, Index: 6},
			{SessionID: "v1", Entry: true, Index: 7},
		}, Ranks{3, 1}},
		{"episode of the hit", byEpisode, []HitRef{
			{SessionID: "s2", Entry: true, EntryID: "x", Episode: 0},
			{SessionID: "s2", Entry: true, EntryID: "y", Episode: -1},
			{SessionID: "s2", Entry: true, EntryID: "z", Episode: 1},
		}, Ranks{3, 1}},
		{"no hits", byEpisode, nil, Ranks{0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Rank(tc.q, tc.hits); got != tc.want {
				t.Errorf("Rank = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ranks []int
		want  Metrics
	}{
		{"none", nil, Metrics{}},
		{"all first", []int{1, 1}, Metrics{N: 2, R1: 1, R5: 1, R10: 1, MRR: 1}},
		// 1, 2, 5, 10, 11 (past R@10), 0 (not found):
		// MRR = (1 + 1/2 + 1/5 + 1/10 + 1/11) / 6.
		{"mixed", []int{1, 2, 5, 10, 11, 0}, Metrics{N: 6, R1: 1.0 / 6, R5: 3.0 / 6, R10: 4.0 / 6,
			MRR: (1 + 0.5 + 0.2 + 0.1 + 1.0/11) / 6}},
		{"all missed", []int{0, 0, 0}, Metrics{N: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Summarize(tc.ranks)
			if got.N != tc.want.N || !near(got.R1, tc.want.R1) || !near(got.R5, tc.want.R5) ||
				!near(got.R10, tc.want.R10) || !near(got.MRR, tc.want.MRR) {
				t.Errorf("Summarize(%v) = %+v, want %+v", tc.ranks, got, tc.want)
			}
		})
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestEpisodeOrdinals(t *testing.T) {
	entries := []EntryInfo{
		{Index: 4, EntryID: "a4", Type: "message", Role: "assistant", Text: "answer"},
		{Index: 0, Type: "session_init"},
		{Index: 1, Type: "model_change"},
		{Index: 2, Type: "message", Role: "user", Text: "first question"},
		{Index: 3, Type: "message", Role: "toolResult", Text: "output"},
		{Index: 5, Type: "message", Role: "user", Text: "  "}, // no text: no new episode
		{Index: 6, Type: "branch_summary", Text: "went back"},
		{Index: 7, EntryID: "u7", Type: "message", Role: "user", Text: "second"},
		{Index: 8, Type: "message", Role: "fileMention", Text: "worker.go"},
	}
	got := EpisodeOrdinals(entries)
	want := map[int]int{2: 0, 3: 0, 4: 0, 5: 0, 6: 0, 7: 1, 8: 1}
	if len(got.ByIndex) != len(want) {
		t.Fatalf("EpisodeOrdinals = %v, want %v", got.ByIndex, want)
	}
	for i, o := range want {
		if got.ByIndex[i] != o {
			t.Errorf("entry %d: episode %d, want %d", i, got.ByIndex[i], o)
		}
	}
	if len(got.ByID) != 2 || got.ByID["a4"] != 0 || got.ByID["u7"] != 1 {
		t.Errorf("by id: %v, want a4 in 0 and u7 in 1", got.ByID)
	}
}

func TestRead(t *testing.T) {
	in := strings.Join([]string{
		`{"query":"a","expected":[{"sessionId":"s","entryId":"e"}],"note":"n"}`,
		``,
		`{"query":"b","expected":[]}`,
		`{"id":"q3","query":"c","expectedEpisodes":[{"sessionId":"s","ordinal":2}]}`,
		`{"query":"d","category":"abstain","mustAbstain":true}`,
		`{"query":"e","expectedMemoryTitles":["x"]}`,
		`{"query":"f","expected":[{"sessionId":"v","index":3}]}`,
	}, "\n")
	qs, err := Read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	kinds := []Kind{Answerable, Abstain, Answerable, Abstain, Unlabelled, Answerable}
	lines := []int{1, 3, 4, 5, 6, 7}
	if len(qs) != len(kinds) {
		t.Fatalf("%d questions, want %d", len(qs), len(kinds))
	}
	for i, q := range qs {
		if q.Kind() != kinds[i] || q.Line != lines[i] {
			t.Errorf("question %d (%q): kind %d line %d, want %d line %d", i, q.Query, q.Kind(), q.Line, kinds[i], lines[i])
		}
	}
	if qs[2].ID != "q3" || qs[2].Episodes[0].Ordinal != 2 || *qs[5].Expected[0].Index != 3 {
		t.Errorf("fields not read: %+v %+v", qs[2], qs[5])
	}
}

func TestReadRefuses(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"not json", `{"query":`, "line 2:"},
		{"no query", `{"expected":[]}`, "no query"},
		{"no session", `{"query":"a","expected":[{"entryId":"e"}]}`, "without a sessionId"},
		{"no entry", `{"query":"a","expected":[{"sessionId":"s"}]}`, "names no entry"},
		{"abstain with evidence", `{"query":"a","mustAbstain":true,"expectedEpisodes":[{"sessionId":"s","ordinal":0}]}`, "has evidence"},
		{"negative ordinal", `{"query":"a","expectedEpisodes":[{"sessionId":"s","ordinal":-1}]}`, "ordinal"},
		{"line too long", `{"query":"` + strings.Repeat("x", MaxLineBytes) + `"}`, "line 2: longer than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader("\n" + tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Read: %v, want an error with %q", err, tc.want)
			}
		})
	}
}

func TestNewReport(t *testing.T) {
	c := func(f float64) *float64 { return &f }
	results := []Result{
		{Kind: "answerable", Ranks: Ranks{1, 1}, Hits: 3, QueryCoverage: c(0.9)},
		{Kind: "answerable", Ranks: Ranks{0, 2}, Hits: 2, QueryCoverage: c(0.3)},
		{Kind: "answerable", Ranks: Ranks{0, 0}, Hits: 0},
		{Kind: "abstain", Hits: 1, QueryCoverage: c(0.2)},
		{Kind: "abstain", Hits: 0},
		{Kind: "unlabelled"},
	}
	r := NewReport(Options{WeakBelow: c(0.5)}, results)
	if r.Answerable != 3 || r.Abstain != 2 || r.Unlabelled != 1 || r.Questions != 6 {
		t.Errorf("counts %+v", r)
	}
	if !near(r.Entry.R1, 1.0/3) || !near(r.Session.MRR, (1+0.5)/3) {
		t.Errorf("entry %+v session %+v", r.Entry, r.Session)
	}
	a := r.Answerability
	if a.AbstainWithHits != 1 || a.AnswerableWithoutHits != 1 {
		t.Errorf("answerability %+v", a)
	}
	f := a.QueryCoverage
	if f == nil || !near(f.Answerable.Mean, 0.4) || f.Answerable.Min != 0 || f.Abstain.Max != 0.2 ||
		*f.AnswerableBelow != 2 || *f.AbstainBelow != 2 {
		t.Errorf("coverage figures %+v", f)
	}
	if got := len(r.Misses()); got != 2 {
		t.Errorf("%d misses, want 2", got)
	}
	if NewReport(Options{}, results[2:3]).Answerability.QueryCoverage != nil {
		t.Error("no page has a queryCoverage: the figures must be n/a")
	}
}
