// Package scopes resolves a scope (session, project, global,
// session:<id-or-path>) to the session files it covers.
//
// One Resolver serves every action: ParseScope refuses unknown scopes
// (including "all", which the reference, docs/REFERENCE.md, silently
// widened to global) with invalid_scope; session:<id-or-path> answers
// exactly one file, ambiguous_session with every candidate, or
// session_not_found, never an empty result; an id prefix of at least
// MinIDPrefix characters names the one session whose id starts with it (a
// full id or file name wins); a cwd without a bucket of its own is seen as
// its nearest ancestor that has one, below the home directory and the root
// (Resolution.ProjectDir, Subdir); a project without a bucket carries
// project_session_dir_missing. A file a caller names passes the
// whole check before it is read: inside the roots and a valid name
// (package confine), a regular file with a session header
// (session.CheckFile). Listings go through the Resolver's ListCache when
// it has one (package listing).
package scopes
