package cli

import (
	"encoding/json"

	"github.com/memidx/memidx/internal/jsjson"
)

// rawMessage is pre-encoded JSON, written as is.
type rawMessage = json.RawMessage

// rawJSON encodes a parsed value as JavaScript would, null when absent.
func rawJSON(v jsjson.Value) json.RawMessage {
	if !v.Exists() {
		return json.RawMessage("null")
	}
	return json.RawMessage(jsjson.Stringify(v))
}
