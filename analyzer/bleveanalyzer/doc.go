// Package bleveanalyzer registers memidx's canonical tokenizer (package
// analyzer) in bleve's registry, as a tokenizer and as an analyzer, both
// under the name Name ("memidx_canonical"), so that a bleve index mapping
// produces exactly the tokens memidx's own index does.
//
// It is a package of its own so that programs that do not use bleve (the
// memidx CLI among them) do not link bleve and its dependencies: that alone
// halves the binary and its start-up time.
package bleveanalyzer
