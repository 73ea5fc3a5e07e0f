// Post-processes raw oracle outputs (see run_oracle.sh) into the committed
// NAME.oracle*.json files, and prints a markdown summary table to RAW/table.md.
//
//   node normalize.mjs FIXTURE_DIR RAW_DIR NAME...
//
// Normalization: the absolute fixture path becomes the bare file name, and the
// oracle's per-run sandbox directory (/tmp/omp-oracle-XXXXXX, the cwd of a fresh
// session) becomes "<oracle-sandbox>". Output is JSON.stringify(x, null, 2) + "\n".
import fs from "node:fs";
import path from "node:path";

const [dir, raw, ...names] = process.argv.slice(2);
const manifest = JSON.parse(fs.readFileSync(path.join(dir, "fixtures.json"), "utf8"));

function readRaw(name, kind) {
  const f = path.join(raw, `${name}.${kind}.json`);
  if (!fs.existsSync(f)) return undefined;
  const txt = fs.readFileSync(f, "utf8").trim();
  if (!txt) return { __rawError: fs.readFileSync(path.join(raw, `${name}.${kind}.err`), "utf8") };
  return JSON.parse(txt);
}

function norm(v, abs, base) {
  if (typeof v === "string") {
    return v.split(abs).join(base).replace(/\/tmp\/omp-oracle-[A-Za-z0-9]+/g, "<oracle-sandbox>");
  }
  if (Array.isArray(v)) return v.map(x => norm(x, abs, base));
  if (v && typeof v === "object") {
    const o = {};
    for (const [k, x] of Object.entries(v)) o[k] = norm(x, abs, base);
    return o;
  }
  return v;
}

// paths (a.b.0.c) where two values differ
function diffPaths(a, b, p = "", out = []) {
  if (typeof a !== typeof b || Array.isArray(a) !== Array.isArray(b) || a === null || b === null || typeof a !== "object") {
    if (JSON.stringify(a) !== JSON.stringify(b)) out.push(p);
    return out;
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) diffPaths(a[k], b[k], p ? `${p}.${k}` : k, out);
  return out;
}

const write = (f, v) => fs.writeFileSync(path.join(dir, f), JSON.stringify(v, null, 2) + "\n");
const summary = {};
for (const name of names) {
  const abs = path.join(path.resolve(dir), `${name}.jsonl`);
  const base = `${name}.jsonl`;
  const t1 = norm(readRaw(name, "text1"), abs, base);
  const t2 = norm(readRaw(name, "text2"), abs, base);
  const st = norm(readRaw(name, "stream"), abs, base);
  const rw = readRaw(name, "rewrite");
  const random = diffPaths(t1, t2);
  const ignore = new Set([...random, "loaderPath"]);
  const streamDiff = diffPaths(t1, st).filter(p => !ignore.has(p));
  write(`${name}.oracle.json`, t1);
  const sf = path.join(dir, `${name}.oracle-stream.json`);
  if (streamDiff.length) write(`${name}.oracle-stream.json`, st);
  else if (fs.existsSync(sf)) fs.unlinkSync(sf);
  const rf = path.join(dir, `${name}.oracle-rewrite.json`);
  if (fs.existsSync(rf)) fs.unlinkSync(rf);
  if (rw && rw.rewrittenFile && rw.rewrittenFile.changed !== false) {
    const r = norm(rw, abs, base);
    write(`${name}.oracle-rewrite.json`, { ompVersion: r.ompVersion, file: r.file, error: r.error, rewrittenFile: r.rewrittenFile });
  }
  summary[name] = { random, streamDiff, ...facts(t1) };
  if (streamDiff.length) summary[name].stream = facts(st);
}
fs.writeFileSync(path.join(raw, "summary.json"), JSON.stringify(summary, null, 2));

function facts(o) {
  if (!o || o.__rawError) return { crash: o?.__rawError ?? "no output" };
  const f = {};
  const l = o.load ?? {};
  if (l.error) f.loadError = l.error.message;
  f.parsedValues = l.parsedValues;
  f.malformed = l.malformedRecords;
  f.invalidHeader = l.invalidHeader;
  f.slot = l.titleSlot ? `${JSON.stringify(l.titleSlot.title)}/${l.titleSlot.source ?? "-"}` : null;
  f.versionBefore = l.headerVersionBeforeMigration;
  f.migrated = l.migrationApplied;
  if (o.error) f.error = `${o.error.name}: ${o.error.message}`;
  if (o.entries) {
    f.records = o.entries.length;
    f.version = o.version;
    f.fresh = o.freshSession;
    f.leafIndex = o.leafIndex;
    f.branch = o.activeBranchIndexes;
    f.header = { title: o.header?.title, titleSource: o.header?.titleSource };
  }
  return f;
}
