package evalset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Limits of a labelled set. A set is a file the user names, but it is read
// whole into memory, so it is bounded like any other input.
const (
	// MaxLineBytes bounds one question's line: a query is at most 4,096
	// characters, so 1 MiB leaves room for any honest evidence list.
	MaxLineBytes = 1 << 20
	// MaxQuestions bounds a set: every question is one recall, and the
	// public sets have from 35 to 2,000.
	MaxQuestions = 100_000
)

// Evidence is one entry that answers a question. EntryID names it; for an
// entry without an id (a pi v1 file, whose ids OMP makes up at random when
// it migrates the file) Index names it instead.
type Evidence struct {
	SessionID string `json:"sessionId"`
	EntryID   string `json:"entryId,omitempty"`
	Index     *int   `json:"index,omitempty"`
}

// Episode is one labelled episode of the OMP-MemBench format: the user
// text message numbered Ordinal (from 0, in file order) and everything
// after it up to the next user text message.
type Episode struct {
	SessionID string `json:"sessionId"`
	Ordinal   int    `json:"ordinal"`
}

// Question is one labelled question.
type Question struct {
	// Line is the question's line in its file, from 1.
	Line  int
	ID    string
	Query string
	// Expected and Episodes are the evidence; a hit on any one counts.
	Expected []Evidence
	Episodes []Episode
	// Abstain marks a question nothing in the sessions answers.
	Abstain bool
	Note    string
}

// Kind says how a question counts.
type Kind int

const (
	// Answerable questions have evidence and are ranked.
	Answerable Kind = iota
	// Abstain questions have none: they count for answerability only.
	Abstain
	// Unlabelled questions have no evidence at entry or episode level
	// and are not must-abstain (an OMP-MemBench question labelled only
	// by memory titles): they are left out.
	Unlabelled
)

// Kind is the question's kind.
func (q Question) Kind() Kind {
	switch {
	case q.Abstain:
		return Abstain
	case len(q.Expected) > 0 || len(q.Episodes) > 0:
		return Answerable
	}
	return Unlabelled
}

// questionLine is a line as written, in either format.
type questionLine struct {
	ID               string      `json:"id"`
	Query            *string     `json:"query"`
	Expected         *[]Evidence `json:"expected"`
	ExpectedEpisodes *[]Episode  `json:"expectedEpisodes"`
	MustAbstain      bool        `json:"mustAbstain"`
	Note             string      `json:"note"`
}

// Read reads a labelled set. Blank lines are skipped; any other line that
// is not a question (no query, evidence without a session, an entry named
// neither by id nor by index) is an error naming its line.
func Read(r io.Reader) ([]Question, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineBytes)
	var qs []Question
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if len(qs) == MaxQuestions {
			return nil, fmt.Errorf("line %d: a set holds at most %d questions", n, MaxQuestions)
		}
		q, err := parseLine(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		q.Line = n
		qs = append(qs, q)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("line %d: longer than %d bytes", n+1, MaxLineBytes)
		}
		return nil, err
	}
	return qs, nil
}

func parseLine(line []byte) (Question, error) {
	var ql questionLine
	if err := json.Unmarshal(line, &ql); err != nil {
		return Question{}, err
	}
	if ql.Query == nil || strings.TrimSpace(*ql.Query) == "" {
		return Question{}, errors.New("no query")
	}
	q := Question{ID: ql.ID, Query: *ql.Query, Note: ql.Note, Abstain: ql.MustAbstain}
	if ql.Expected != nil {
		q.Expected = *ql.Expected
		// memidx's format: an empty list is the must-abstain mark.
		if len(q.Expected) == 0 && ql.ExpectedEpisodes == nil {
			q.Abstain = true
		}
	}
	if ql.ExpectedEpisodes != nil {
		q.Episodes = *ql.ExpectedEpisodes
	}
	if q.Abstain && (len(q.Expected) > 0 || len(q.Episodes) > 0) {
		return Question{}, errors.New("a must-abstain question has evidence")
	}
	for _, ev := range q.Expected {
		switch {
		case ev.SessionID == "":
			return Question{}, errors.New("evidence without a sessionId")
		case ev.EntryID == "" && ev.Index == nil:
			return Question{}, errors.New("evidence names no entry (entryId or index)")
		}
	}
	for _, ep := range q.Episodes {
		if ep.SessionID == "" || ep.Ordinal < 0 {
			return Question{}, errors.New("an episode needs a sessionId and an ordinal of 0 or more")
		}
	}
	return q, nil
}
