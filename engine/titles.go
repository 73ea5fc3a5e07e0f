package engine

import "github.com/memidx/memidx/internal/session"

// maxTitleChars bounds a session title on the wire, as the reference
// bounds string metadata.
const maxTitleChars = 512

// sessionTitles reads session titles (OMP's title slot, else the header's
// title) from the session files' headers, once per file and call: OMP
// rewrites the slot in place, so the index does not keep a title that
// would go stale. Only files a scope resolved (and so checked) are read.
type sessionTitles map[string]string

// of is the title of the session file at path, "" when it has none or its
// header cannot be read.
func (t sessionTitles) of(path string) string {
	if title, ok := t[path]; ok {
		return title
	}
	title := ""
	if h, err := session.ReadHeader(path); err == nil {
		title = boundString(h.Title, maxTitleChars)
	}
	t[path] = title
	return title
}
