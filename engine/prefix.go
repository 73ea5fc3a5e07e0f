package engine

import "github.com/memidx/memidx/internal/session/scopes"

// MinSessionPrefix is the shortest session id prefix a session argument
// takes (ExpandRequest.Session, a "session:<x>" scope, Walk): a unique
// prefix names its session; one that several sessions share answers
// ambiguous_session with every candidate file; a shorter one, or one of no
// session, is session_not_found, whose message says when it was too short.
// A full id or a file name always wins over a prefix.
const MinSessionPrefix = scopes.MinIDPrefix
