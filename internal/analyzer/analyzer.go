package analyzer

import "unsafe"

// Tokens returns the canonical tokens of text, in order and with duplicates:
// the lowercased maximal runs of letters, numbers and '_' of the
// NFKC-normalized text (see the package documentation for the exact rules).
//
// Tokens that need no lowercasing share memory with text (as strings.Fields
// does) and lowercased ones share a buffer with each other; a caller that
// keeps a few tokens of a large text for long (as map keys of a vocabulary,
// say) should strings.Clone them.
func Tokens(text string) []string {
	var dst []string
	if len(text) >= 64 {
		// Typical text has a token every six bytes or more.
		dst = make([]string, 0, min(len(text)/6+1, 1<<18))
	}
	if dst = AppendTokens(dst, text); len(dst) == 0 {
		return nil
	}
	return dst
}

// AppendTokens appends the tokens of text to dst and returns the extended
// slice. It is Tokens for hot paths: with a reused dst and text that is
// ASCII or already normalized, it allocates only the buffers that hold the
// lowercased tokens (one per 4 KiB of them), and nothing at all for text
// that is already lowercase.
func AppendTokens(dst []string, text string) []string {
	sc := newScanner(text)
	return sc.appendAll(dst)
}

// A Tokenizer tokenizes texts one after another and reuses, from one text
// to the next, the memory that holds lowercased and normalized tokens: its
// AppendTokens returns the tokens of [AppendTokens], which are valid only
// until the next call. It suits a caller that counts or looks up the
// tokens of each text and copies the few it keeps, as an index build does;
// after the first texts it allocates nothing. The zero Tokenizer is ready
// to use; it is not safe for concurrent use.
type Tokenizer struct {
	// arena holds the bytes of the last text's tokens that are not in the
	// text; AppendSpans keeps all of them in this one array.
	arena []byte
}

// A Span is where a token of [Tokenizer.AppendSpans] is: in the text or
// in the Tokenizer's memory. It holds no pointer, so storing it costs the
// collector nothing.
type Span struct{ start, end int }

// Len returns the length in bytes of the span's token.
func (sp Span) Len() int { return sp.end - sp.start }

// AppendSpans appends the places of the tokens of text to dst and returns
// the extended slice: the tokens are those of [AppendTokens], and
// t.Token(text, sp) returns the token of span sp until the next call.
func (t *Tokenizer) AppendSpans(dst []Span, text string) []Span {
	sc := scanner{text: text, arena: t.arena[:0], reuse: true}
	sc.loadChunk()
	dst = sc.appendSpans(dst)
	t.arena = sc.arena
	return dst
}

// Token returns the token at sp, a Span that the last AppendSpans of text
// returned.
func (t *Tokenizer) Token(text string, sp Span) string {
	if sp.end <= len(text) {
		return text[sp.start:sp.end]
	}
	return unsafe.String(&t.arena[sp.start-len(text)], sp.end-sp.start)
}

// AppendTokens appends the tokens of text to dst and returns the extended
// slice, as the package's AppendTokens does. The tokens may share memory
// with text and with the Tokenizer, which the next call overwrites.
func (t *Tokenizer) AppendTokens(dst []string, text string) []string {
	sc := scanner{text: text, arena: t.arena[:0], reuse: true}
	sc.loadChunk()
	dst = sc.appendAll(dst)
	t.arena = sc.arena
	return dst
}

// Each calls fn for every token of text, in order: the tokens of
// [Each], each valid only until fn returns (the Tokenizer's memory holds
// them). An index build looks up every token of every text and copies
// the few new ones; a lowercased token then costs it no allocation.
func (t *Tokenizer) Each(text string, fn func(tok string)) {
	sc := scanner{text: text, arena: t.arena[:0], reuse: true}
	sc.loadChunk()
	for {
		tok, _, _, ok := sc.next()
		if !ok {
			break
		}
		fn(tok)
	}
	t.arena = sc.arena
}

// Each calls fn for every token of text, in order. The tokens are those of
// Tokens, with the same memory sharing.
func Each(text string, fn func(tok string)) {
	sc := newScanner(text)
	for {
		tok, _, _, ok := sc.next()
		if !ok {
			return
		}
		fn(tok)
	}
}

// EachSpan calls fn for every token of text with its byte offsets start and
// end in Normalize(text), the NFKC form the tokenizer works on: token is
// Lower(Normalize(text)[start:end]) with that run as the Final_Sigma context.
// For text that is already NFKC (all ASCII text and most other real text)
// Normalize(text) is text itself, so the offsets are offsets in text.
func EachSpan(text string, fn func(tok string, start, end int)) {
	sc := newScanner(text)
	for {
		tok, start, end, ok := sc.next()
		if !ok {
			return
		}
		fn(tok, start, end)
	}
}

// NormalizePhrase returns JavaScript's s.normalize("NFKC").toLowerCase():
// the whole string normalized and lowercased, with the whole string as the
// Final_Sigma context and no change to whitespace. Invalid UTF-8 bytes
// become U+FFFD, one per byte.
func NormalizePhrase(s string) string {
	return Lower(Normalize(s))
}
