// Package locate finds where OMP keeps its session files, as OMP 18 does.
//
// ResolveAgentDir finds OMP 18's directories (agent dir, sessions root,
// explicit session dir, gc archive) from an Env (home, cwd, tmp,
// variables, --profile/--session-dir flags): PI_CONFIG_DIR, OMP_PROFILE/
// PI_PROFILE, PI_CODING_AGENT_DIR and the XDG_DATA_HOME redirect, as
// pi-utils dirs.ts does (.env files are not read). BucketNames spells the
// bucket of a cwd in every historical scheme, current name first. Where
// $HOME is unset the home comes from the password file (or the system on
// macOS and Windows), never through cgo.
//
// Within and Realpath are OMP's containment test and realpath fallback,
// shared by the listing and the scope resolution. The package reads
// directories' existence and resolves symlinks; it never lists or opens a
// session file.
package locate
