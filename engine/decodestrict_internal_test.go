package engine

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

// strictReference is decodeStrict through the strict decoder always, as
// every request was decoded before.
func strictReference(data []byte, v any, aliases map[string]string) *ErrorObject {
	if eo := decodeStrictAs(data, v, aliases, false); eo != nil {
		return &ErrorObject{Code: eo.Code, Message: eo.Message}
	}
	return nil
}

// Arguments decoded as given decode to what the strict decoder gave, and
// fail with the same message: types wrong at the top and inside objects,
// duplicate keys, aliases, nulls, nested objects.
func TestDecodeAsGivenIsTheStrictDecoder(t *testing.T) {
	for _, in := range []string{
		`{}`,
		`  {"query":"x"}  `,
		`{"query":"x","pageSize":3,"offset":2,"scope":"global"}`,
		`{"query":"x","query":"y"}`,
		`{"query":"x","pageSize":"3"}`,
		`{"query":7}`,
		`{"query":"x","pageSize":1.5}`,
		`{"query":"x","pageSize":null}`,
		`{"query":"x","context":{"before":1}}`,
		`{"query":"x","context":{"before":"1"}}`,
		`{"query":"x","entryRange":{"first":1,"last":2}}`,
		`{"query":"x","since":"2026-01-01T00:00:00Z","role":"user","tool":"bash"}`,
		`{"query":"\u00e9\ud83d\ude00","queryMode":"phrase"}`,
		`{"offset":"x","offset":1}`,
		`{"query":1,"query":"x"}`,
		`{"query":1,"offset":"x"}`,
		`{"queryMode":1,"offset":[1]}`,
		`{"offset":1e400,"offset":1}`,
		`{"q\u0075ery":"x"}`,
	} {
		for _, alias := range []bool{false, true} {
			text := in
			if alias {
				for a, canon := range recallAliases {
					text = string(bytes.Replace([]byte(text), []byte(`"`+canon+`"`), []byte(`"`+a+`"`), 1))
					break
				}
			}
			var got, want recallArgs
			geo := decodeArgs([]byte(text), &got, recallAliases)
			weo := strictReference([]byte(text), &want, recallAliases)
			assert.Equal(t, want, got, "%s", text)
			if weo == nil {
				assert.Nil(t, geo, "%s", text)
			} else if assert.NotNil(t, geo, "%s", text) {
				assert.Equal(t, weo.Message, geo.Message, "%s", text)
			}
		}
	}
	var a recallArgs
	data := []byte(`{"query":"zqxaaaaaa","scope":"global"}`)
	direct := testing.AllocsPerRun(50, func() { _ = decodeStrict(data, &a, recallAliases) })
	strict := testing.AllocsPerRun(50, func() { _ = strictReference(data, &a, recallAliases) })
	assert.Less(t, direct, strict, "decoded as given: fewer allocations")
}

// A wrong type names the JSON type the argument takes, named string types
// (queryMode, scope, branches) as strings.
func TestWrongTypeNamesTheJSONType(t *testing.T) {
	for in, want := range map[string]string{
		`{"queryMode":1}`:    `argument "queryMode" must be of type string, not number`,
		`{"scope":true}`:     `argument "scope" must be of type string, not bool`,
		`{"pageSize":"3"}`:   `argument "pageSize" must be of type number, not string`,
		`{"query":["a"]}`:    `argument "query" must be of type string, not array`,
		`{"context":"x"}`:    `argument "context" must be of type object, not string`,
		`{"entryRange":[1]}`: `argument "entryRange" must be of type object, not array`,
		`{"offset":{"a":1}}`: `argument "offset" must be of type number, not object`,
	} {
		var a recallArgs
		eo := decodeArgs([]byte(in), &a, recallAliases)
		if assert.NotNil(t, eo, in) {
			assert.Equal(t, want, eo.Message, in)
		}
	}
}
