// Package natural is the analysis of natural-language recall: the
// canonical tokens of package analyzer, less English stop words, each
// reduced to its English stem. "When did the deploys start timing out?"
// becomes "deploy", "start", "time", "out" is a stop word too, so
// "deploy start time".
//
// The stop words are Snowball's English list, the list bleve's "stop_en"
// filter holds; the stemmer is Snowball's English (Porter2) stemmer, the one
// bleve's "stemmer_en_snowball" filter runs. Package bleveanalyzer
// registers the same analysis as a bleve analyzer built from those bleve
// filters, and its test holds the two equal token for token. This package
// calls the stemmer directly because linking bleve's analysis registry (and
// through it bleve's geo and search packages) costs a one-shot CLI process
// about 1.5 ms of start-up and 3 MB of memory, an eighth of a recall.
//
// Only words are stemmed: a token with a digit or an underscore, or with a
// character outside a-z, is kept whole, so version numbers ("v1"),
// identifiers ("parse_config", "e402") and words of other scripts match
// exactly. A stop word yields nothing.
package natural
