package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/memidx/memidx/engine"
)

// exampleEngine opens an engine over a throwaway agent directory holding
// the bundled example session (testdata/sessions/example-v3.jsonl).
func exampleEngine() (*engine.Engine, func()) {
	root, _ := os.MkdirTemp("", "memidx-example-")
	agent := filepath.Join(root, "agent")
	bucket := filepath.Join(agent, "sessions", "-proj")
	os.MkdirAll(bucket, 0o700)
	src, _ := os.ReadFile("../testdata/sessions/example-v3.jsonl")
	os.WriteFile(filepath.Join(bucket, "2026-09-01T10-00-00-000Z_0198f2a4.jsonl"), src, 0o600)
	cfg := engine.DefaultConfig()
	cfg.IndexDir = filepath.Join(root, "index")
	env := engine.Env{Home: root, Cwd: root, TmpDir: root} // no variables
	e, err := engine.Open(engine.Options{AgentDir: agent, Memory: &cfg, Env: &env})
	if err != nil {
		panic(err)
	}
	return e, func() { e.Close(); os.RemoveAll(root) }
}

// Recall locates evidence; every hit carries one copy-ready follow call.
func ExampleEngine_Recall() {
	e, done := exampleEngine()
	defer done()
	ctx := context.Background()
	page, _ := e.Recall(ctx, engine.RecallRequest{Query: "done channel", Scope: "global", PageSize: 2})
	fmt.Println("total:", page.Total, "complete:", page.Coverage.Complete)
	for _, h := range page.Hits {
		fmt.Printf("%s #%d %s: %s\n", h.Kind(), h.Entry.Index, *h.Entry.Role, h.Entry.Snippet)
	}
	// Output:
	// total: 5 complete: true
	// entry #14 assistant: - worker: fix flaky TestWorker by synchronising on a done channel
	// entry #6 user: Use a done channel instead of sleeping. See @worker.go
}

// Follow a hit: Call dispatches the token unchanged and returns the full,
// untruncated record, bound to the source it came from.
func ExampleEngine_Call_follow() {
	e, done := exampleEngine()
	defer done()
	ctx := context.Background()
	page, _ := e.Recall(ctx, engine.RecallRequest{Query: "flaky", Scope: "global"})
	res, _ := e.Call(ctx, page.Hits[0].Follow())
	x := res.Expand // the follow of an entry hit is memory.expand
	fmt.Println(x.Entries[0].Text)
	fmt.Println(x.Entries[0].TextRange.Complete)
	// Output:
	// - worker: fix flaky TestWorker by synchronising on a done channel
	// true
}

// Page through a result with next until it is nil.
func ExampleEngine_Call_next() {
	e, done := exampleEngine()
	defer done()
	ctx := context.Background()
	page, _ := e.Recall(ctx, engine.RecallRequest{Query: "worker", Scope: "global", PageSize: 3})
	seen := len(page.Hits)
	for page.Next != nil {
		res, _ := e.Call(ctx, *page.Next)
		page = res.Recall
		seen += len(page.Hits)
	}
	fmt.Println(seen == page.Total, page.Total)
	// Output:
	// true 4
}

// Add context to a hit: a follow's arguments are a request like any other,
// still bound to the source the hit came from.
func ExampleFabricCall_ExpandArgs() {
	e, done := exampleEngine()
	defer done()
	ctx := context.Background()
	page, _ := e.Recall(ctx, engine.RecallRequest{Query: "flaky", Scope: "global", PageSize: 1})
	req, err := page.Hits[0].Follow().ExpandArgs()
	if err != nil {
		panic(err)
	}
	req.Before, req.After = 1, 1 // entry 14 is the last of its branch
	x, _ := e.Expand(ctx, req)
	for _, en := range x.Entries {
		fmt.Println(en.Index, *en.Anchor, *en.Role)
	}
	// Output:
	// 13 false user
	// 14 true assistant
}

// Walk visits every complete normalized entry; the callback decides what
// to keep and when to stop.
func ExampleEngine_Walk() {
	e, done := exampleEngine()
	defer done()
	ctx := context.Background()
	failed := map[string]bool{}
	res, _ := e.Walk(ctx, engine.ExpandRequest{Session: "0198f2a4-7c1e-7b3a-9d2e-4f5a6b7c8d9e", Branches: "all"},
		func(en engine.ExpandedEntry) (bool, error) {
			if en.Outcome != nil && *en.Outcome == "failed" {
				failed[*en.Ref] = true
			}
			return true, nil
		})
	fmt.Println(res.Visited, res.Stopped, failed)
	// Output:
	// 18 false map[omp.bash:true]
}

// A walk that did not visit every selected entry is not complete, and
// says why: here the visitor stopped it.
func ExampleEngine_Walk_stop() {
	e, done := exampleEngine()
	defer done()
	res, err := e.Walk(context.Background(), engine.ExpandRequest{Session: "0198f2a4-7c1e-7b3a-9d2e-4f5a6b7c8d9e", Branches: "all"},
		func(en engine.ExpandedEntry) (bool, error) { return en.Index < 2, nil })
	fmt.Println(res.Visited, res.Stopped, res.Complete, res.Reasons, err)
	// Output:
	// 3 true false [walk_stopped] <nil>
}

// After Close every call returns ErrClosed.
func ExampleEngine_Close() {
	e, done := exampleEngine()
	defer done()
	e.Close()
	_, err := e.Recall(context.Background(), engine.RecallRequest{Query: "flaky"})
	fmt.Println(errors.Is(err, engine.ErrClosed))
	// Output:
	// true
}
