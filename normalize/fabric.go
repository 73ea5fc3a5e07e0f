package normalize

import "github.com/memidx/memidx/jsjson"

// executionTrace emits one child per operation of a valid
// FabricExecutionTraceV1 on a fabric_exec result. (Filled in separately.)
func (n *normalizer) executionTrace(carrier Entry, details jsjson.Value) {}

// branchFacts emits the typed children of a valid
// FabricBranchSummaryDetailsV1/V2 envelope. (Filled in separately.)
func (n *normalizer) branchFacts(carrier Entry, rec jsjson.Value, fromID jsjson.Value) {}
