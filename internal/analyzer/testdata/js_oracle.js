// js_oracle.js reads a JSON array of strings on stdin and writes, for each,
// [lower, normalizePhrase, tokenizeLexical] as a JSON array on stdout — the
// reference functions of gen_js_table.js. Used by TestDifferentialNode.
"use strict";

const tokenizeLexical = (text) =>
  Array.from(text.normalize("NFKC").matchAll(/[\p{L}\p{N}_]+/gu), (m) => m[0].toLowerCase());

const chunks = [];
process.stdin.on("data", (c) => chunks.push(c));
process.stdin.on("end", () => {
  const inputs = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const out = inputs.map((s) => [s.toLowerCase(), s.normalize("NFKC").toLowerCase(), tokenizeLexical(s)]);
  process.stdout.write(JSON.stringify({ unicode: process.versions.unicode, results: out }));
});
