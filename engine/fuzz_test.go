package engine_test

import (
	"encoding/json"
	"testing"

	"github.com/memidx/memidx/engine"
)

// FuzzDecodeRequests feeds arbitrary bytes to the three request decoders:
// they must never panic, and whatever they accept must encode back to JSON
// that they accept again.
func FuzzDecodeRequests(f *testing.F) {
	for _, s := range []string{
		`{"query":"x","scope":"project","pageSize":3}`,
		`{"q":"x","page_size":1e308,"entryRange":{"first":0,"last":2}}`,
		`{"session":"a","indices":[0,1],"before":2,"maxChars":100}`,
		`{"scope":"global","limit":5,"offset":1}`,
		`{"query":null,"role":"user","since":-1}`,
		`[1,2]`, `"x"`, `{"pagesize":1}`, `{"live":{"sessionFile":"/x","leafId":"a","branchIds":["a"]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if r, eo := engine.DecodeRecall(b); eo == nil {
			again, _ := json.Marshal(r)
			if _, eo := engine.DecodeRecall(again); eo != nil {
				t.Fatalf("recall %s -> %s refused: %v", b, again, eo)
			}
		}
		if r, eo := engine.DecodeExpand(b); eo == nil {
			again, _ := json.Marshal(r)
			if _, eo := engine.DecodeExpand(again); eo != nil {
				t.Fatalf("expand %s -> %s refused: %v", b, again, eo)
			}
		}
		if r, eo := engine.DecodeSessions(b); eo == nil {
			again, _ := json.Marshal(r)
			if _, eo := engine.DecodeSessions(again); eo != nil {
				t.Fatalf("sessions %s -> %s refused: %v", b, again, eo)
			}
		}
	})
}
