#!/usr/bin/env bash
# Regenerates the *.oracle*.json files of testdata/omp from OMP 18.2.3's own loader.
# Needs the oracle: bash /work/shared/tools/omp-oracle/setup.sh (not needed by tests).
#
#   bash testdata/omp/_tools/run_oracle.sh [NAME ...]     # default: every fixture
#
# Per fixture NAME.jsonl it runs the oracle three times (text loader twice, to find
# the fields that are random per run, and the >= 8 MiB stream loader once with
# --stream); migration fixtures also get a --rewrite run. Raw outputs go to
# $RAW (default /tmp/omp-oracle-raw); normalize.mjs then writes
#   NAME.oracle.json          text loader (what OMP uses for files < 8 MiB)
#   NAME.oracle-stream.json   only when the stream loader differs beyond random ids
#   NAME.oracle-rewrite.json  migration fixtures (and fresh sessions) where OMP would write
#                             the file back: the text it writes (ensureOnDisk)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=$(dirname "$here")
ORACLE=${ORACLE:-$HOME/.cache/memidx-omp-oracle/omp-branch}
RAW=${RAW:-/tmp/omp-oracle-raw}
JOBS=${JOBS:-6}
mkdir -p "$RAW"
cd "$dir"
if [ $# -gt 0 ]; then names=("$@"); else names=(); for f in *.jsonl; do names+=("${f%.jsonl}"); done; fi

rewrite_wanted() {
  case "$1" in version-*|v1-*|v2-*|v3-*|second-session-line-v1|title-slot-only|empty-file) return 0 ;; esac
  return 1
}

jobs_file=$RAW/jobs.txt
: > "$jobs_file"
for n in "${names[@]}"; do
  rm -f "$RAW/$n".*.json "$RAW/$n".*.err
  printf '%s\t%s\t%s\n' "$n" text1 "" >> "$jobs_file"
  printf '%s\t%s\t%s\n' "$n" text2 "" >> "$jobs_file"
  printf '%s\t%s\t%s\n' "$n" stream --stream >> "$jobs_file"
  if rewrite_wanted "$n"; then printf '%s\t%s\t%s\n' "$n" rewrite --rewrite >> "$jobs_file"; fi
done
export ORACLE RAW dir
# shellcheck disable=SC2016
tr '\t' '\n' < "$jobs_file" | xargs -d '\n' -n 3 -P "$JOBS" sh -c '
  n=$1 kind=$2 flag=$3
  "$ORACLE" "$dir/$n.jsonl" --json $flag > "$RAW/$n.$kind.json" 2> "$RAW/$n.$kind.err" || echo "exit $? for $n $kind" >&2
' sh
node "$here/normalize.mjs" "$dir" "$RAW" "${names[@]}"
