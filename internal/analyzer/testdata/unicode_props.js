// unicode_props.js prints, for every Unicode scalar value, the properties that
// memidx's tokenizer depends on, as JavaScript (V8 + ICU) sees them. It is
// the input of TestUnicodeDelta (delta_gen_test.go), which diffs it against
// Go's tables and writes ../unicode_delta.go; without node that test is
// skipped.
//
// Usage: node unicode_props.js CCC_REFS
//   CCC_REFS: comma-separated "ccc:hex" pairs, one reference mark (a
//   non-decomposing character) for every canonical combining class value Go
//   knows; used to measure the combining class of each non-starter.
//
// Output (stdout): one header line "#unicode <version>", then one line per
// code point, tab separated:
//   cp  word  lower  nfkd  nfd  nfcSelf  sigma  ccc
// cp is hex; word is 1 when /[\p{L}\p{N}_]/u matches; lower, nfkd and nfd are
// space-separated hex code points or "-" when equal to the code point itself;
// nfcSelf is 1 when NFC(cp) == cp; sigma is C (cased, counts as the cased
// letter in the Final_Sigma context), I (case-ignorable, skipped) or N
// (neither, stops the context scan); ccc is the canonical combining class, or
// "?lo-hi" if it lies strictly between two reference classes.
"use strict";

const refs = (process.argv[2] || "").split(",").filter(Boolean).map((p) => {
  const [c, h] = p.split(":");
  return { ccc: Number(c), ch: String.fromCodePoint(parseInt(h, 16)) };
}).sort((a, b) => a.ccc - b.ccc);
if (refs.length === 0) throw new Error("need CCC_REFS");

const word = /^[\p{L}\p{N}_]$/u;
const hex = (s) => Array.from(s, (x) => x.codePointAt(0).toString(16)).join(" ");
const swapsAfter = (c, ref) => ("a" + c + ref).normalize("NFD") === "a" + ref + c; // ccc(c) > ccc(ref)
const swapsBefore = (c, ref) => ("a" + ref + c).normalize("NFD") === "a" + c + ref; // 0 < ccc(c) < ccc(ref)
const ref1 = refs.find((r) => r.ccc === 1).ch;
const ref230 = refs.find((r) => r.ccc === 230).ch;

function ccc(c) {
  if (!swapsAfter(c, ref1) && !swapsBefore(c, ref230)) return "0";
  let below = 0; // highest reference class strictly below ccc(c)
  for (const r of refs) {
    if (r.ch === c) return String(r.ccc);
    const after = swapsAfter(c, r.ch);
    const before = swapsBefore(c, r.ch);
    if (!after && !before) return String(r.ccc);
    if (after) below = r.ccc;
    else return "?" + below + "-" + r.ccc;
  }
  return "?" + below + "-255";
}

const out = ["#unicode " + process.versions.unicode];
for (let cp = 0; cp <= 0x10ffff; cp++) {
  if (cp >= 0xd800 && cp <= 0xdfff) continue;
  const c = String.fromCodePoint(cp);
  const same = (s) => (s === c ? "-" : hex(s));
  const nfd = c.normalize("NFD");
  const sigma = (c + "\u03a3").toLowerCase().endsWith("\u03c2")
    ? "C"
    : ("A\u03a3" + c + "B").toLowerCase()[1] === "\u03c3" ? "I" : "N";
  out.push([
    cp.toString(16),
    word.test(c) ? 1 : 0,
    same(c.toLowerCase()),
    same(c.normalize("NFKD")),
    same(nfd),
    c.normalize("NFC") === c ? 1 : 0,
    sigma,
    nfd === c ? ccc(c) : "0",
  ].join("\t"));
  if (out.length >= 65536) {
    process.stdout.write(out.join("\n") + "\n");
    out.length = 0;
  }
}
process.stdout.write(out.join("\n") + "\n");
