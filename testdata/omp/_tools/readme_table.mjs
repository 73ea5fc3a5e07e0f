// Prints the fixture table of testdata/omp/README.md from fixtures.json and the
// committed NAME.oracle*.json files.   node readme_table.mjs [FIXTURE_DIR]
import fs from "node:fs";
import path from "node:path";

const dir = process.argv[2] ?? path.dirname(path.dirname(new URL(import.meta.url).pathname));
const manifest = JSON.parse(fs.readFileSync(path.join(dir, "fixtures.json"), "utf8"));
const read = f => (fs.existsSync(path.join(dir, f)) ? JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")) : undefined);

function ranges(xs) {
  const out = [];
  for (let i = 0; i < xs.length; ) {
    let j = i;
    while (j + 1 < xs.length && xs[j + 1] === xs[j] + 1) j++;
    out.push(j - i >= 2 ? `${xs[i]}–${xs[j]}` : j === i ? `${xs[i]}` : `${xs[i]},${xs[j]}`);
    i = j + 1;
  }
  return `[${out.join(",")}]`;
}

const esc = s => String(s).replaceAll("|", "\\|").replaceAll("\n", " ");

function facts(o, other) {
  const l = o.load ?? {};
  const bits = [];
  if (o.error) {
    const m = o.error.message.startsWith("Cannot resume session") ? "refused: header missing or malformed" : `throws ${o.error.name}: ${o.error.message}`;
    bits.push(`**${esc(m)}**`);
  }
  if (l.error) bits.push("(thrown while loading/migrating: `load.error` set)");
  if (l.parsedValues !== undefined) bits.push(`${l.parsedValues} value${l.parsedValues === 1 ? "" : "s"}, ${l.malformedRecords} malformed`);
  if (l.titleSlot) bits.push(`slot ${JSON.stringify(l.titleSlot.title)}${l.titleSlot.source ? "/" + l.titleSlot.source : ""}`);
  if (o.entries) {
    if (o.freshSession) bits.push("fresh session (random header)");
    bits.push(`${o.entries.length} records`);
    if (l.migrationApplied) bits.push(`migrated from ${JSON.stringify(l.headerVersionBeforeMigration)} → ${JSON.stringify(o.version)}`);
    else if (o.version !== 3) bits.push(`version ${JSON.stringify(o.version)}`);
    bits.push(`leaf ${o.leafIndex ?? (o.leafId === undefined ? "none (leafId undefined)" : "none (leafId null)")}${o.leafId === "" ? ' (id "")' : ""}`);
    bits.push(`branch ${ranges(o.activeBranchIndexes)}`);
    if (o.header?.title !== undefined || o.header?.titleSource !== undefined)
      bits.push(`title ${JSON.stringify(o.header.title ?? null)}/${o.header.titleSource ?? "-"}`);
  }
  if (other) bits.push(other);
  return bits.join("; ");
}

const rows = [];
for (const [name, m] of Object.entries(manifest)) {
  const o = read(`${name}.oracle.json`);
  if (!o) { rows.push(`| \`${name}\` | ${m.section} | ${esc(m.rule)} | (no oracle output) |`); continue; }
  const extra = [];
  const st = read(`${name}.oracle-stream.json`);
  if (st) extra.push(`**stream differs**: ${facts(st)}`);
  if (fs.existsSync(path.join(dir, `${name}.oracle-rewrite.json`))) extra.push("rewrite saved");
  rows.push(`| \`${name}\` | ${m.section} | ${esc(m.rule)} | ${facts(o, extra.join("; "))} |`);
}
console.log("| Fixture (`.jsonl`) | Spec | Rule checked | OMP 18.2.3 (text loader) |");
console.log("|---|---|---|---|");
console.log(rows.join("\n"));
