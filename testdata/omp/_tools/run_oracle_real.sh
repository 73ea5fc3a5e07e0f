#!/usr/bin/env bash
# Regenerates testdata/omp/real/<basename>.oracle.json: OMP 18.2.3's loader run on
# /work/shared/spec/omp-session-example-v3.jsonl and /work/shared/testdata/real/*.jsonl
# (the session files themselves are not copied into this repo).
# Text loader, compact one-line JSON, absolute path -> bare file name. The stream
# loader is also run; a <basename>.oracle-stream.json is written only if it differs
# beyond the fields that are random per run (migrated v1 ids).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(dirname "$here")/real
ORACLE=${ORACLE:-$HOME/.cache/memidx-omp-oracle/omp-branch}
RAW=${RAW:-/tmp/omp-oracle-raw}/real
SHARED=${SHARED:-/work/shared}
mkdir -p "$RAW" "$out"
files=("$SHARED/spec/omp-session-example-v3.jsonl" "$SHARED"/testdata/real/*.jsonl)
for f in "${files[@]}"; do
  b=$(basename "$f" .jsonl)
  ( "$ORACLE" "$f" --json > "$RAW/$b.text1.json"
    "$ORACLE" "$f" --json > "$RAW/$b.text2.json"
    "$ORACLE" "$f" --json --stream > "$RAW/$b.stream.json" ) &
done
wait
node - "$RAW" "$out" "${files[@]}" <<'JS'
const fs = require("fs"), path = require("path");
const [raw, out, ...files] = process.argv.slice(2);
const norm = (v, abs, base) => typeof v === "string" ? v.split(abs).join(base)
  : Array.isArray(v) ? v.map(x => norm(x, abs, base))
  : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, norm(x, abs, base)])) : v;
function diff(a, b, p = "", o = []) {
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") {
    if (JSON.stringify(a) !== JSON.stringify(b)) o.push(p); return o;
  }
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) diff(a[k], b[k], p ? `${p}.${k}` : k, o);
  return o;
}
for (const f of files) {
  const b = path.basename(f, ".jsonl");
  const rd = k => norm(JSON.parse(fs.readFileSync(path.join(raw, `${b}.${k}.json`), "utf8")), f, `${b}.jsonl`);
  const t1 = rd("text1"), t2 = rd("text2"), st = rd("stream");
  const ignore = new Set([...diff(t1, t2), "loaderPath"]);
  const sd = diff(t1, st).filter(p => !ignore.has(p));
  fs.writeFileSync(path.join(out, `${b}.oracle.json`), JSON.stringify(t1) + "\n");
  const sf = path.join(out, `${b}.oracle-stream.json`);
  if (sd.length) fs.writeFileSync(sf, JSON.stringify(st) + "\n"); else if (fs.existsSync(sf)) fs.unlinkSync(sf);
  console.log(`${b}: random fields ${ignore.size - 1}, stream differs: ${sd.length ? sd.join(",") : "no"}`);
}
JS
