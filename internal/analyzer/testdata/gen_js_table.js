// gen_js_table.js writes js_tokens.json: what the TypeScript reference
// computes, in JavaScript, for thousands of inputs, so that the Go analyzer
// can be checked against it without node.
//
// Usage (from analyzer/): node testdata/gen_js_table.js [OUT]
// OUT defaults to testdata/js_tokens.json. The output is deterministic for a
// given node version (its ICU / Unicode version decides the results).
//
// The reference functions (memidx's TypeScript tokenizer):
//   tokenizeLexical(text) = the maximal runs of /[\p{L}\p{N}_]+/u in
//                           text.normalize("NFKC"), each run .toLowerCase()
//   normalizePhrase(s)    = s.normalize("NFKC").toLowerCase()
//   lower(s)              = s.toLowerCase()
//
// File format: {"node", "unicode", "icu", "seed", "cases", "sigma"}.
// Each case has a "name" and its input, either
//   "in": the string, or
//   "r": [lo, hi] — the code points lo..hi (surrogates skipped) joined by
//        "sep" (default "");
// and the expected outputs, each omitted when it equals a default, to keep
// the file small:
//   "low": lower(input)                  — default: the input itself
//   "phr": normalizePhrase(input)        — default: the value of "low"
//   "tok": tokenizeLexical(input)        — default: [the value of "phr"]
// "sigma" records how every code point of planes 0-3 and 14 takes part in
// the Final_Sigma context of toLowerCase: ranges [lo, hi, type] with type
// "C" when (c + "Σ").toLowerCase() ends in "ς" (c counts as the cased
// letter before a final sigma), "I" when c is skipped instead (case-
// ignorable: ("AΣ" + c + "B").toLowerCase() keeps "σ" although c is not
// cased), unlisted code points are "N" (neither: they end the context).
"use strict";

const fs = require("fs");
const path = require("path");

const out = process.argv[2] || path.join(__dirname, "js_tokens.json");
const SEED = 20240611;

const tokenizeLexical = (text) =>
  Array.from(text.normalize("NFKC").matchAll(/[\p{L}\p{N}_]+/gu), (m) => m[0].toLowerCase());
const normalizePhrase = (s) => s.normalize("NFKC").toLowerCase();
const lower = (s) => s.toLowerCase();

const cases = [];
const seen = new Set();

function rangeString(lo, hi, sep) {
  const parts = [];
  for (let cp = lo; cp <= hi; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    parts.push(String.fromCodePoint(cp));
  }
  return parts.join(sep);
}

function record(c, input) {
  const low = lower(input);
  const phr = normalizePhrase(input);
  const tok = tokenizeLexical(input);
  if (low !== input) c.low = low;
  if (phr !== low) c.phr = phr;
  if (!(tok.length === 1 && tok[0] === phr)) c.tok = tok;
  cases.push(c);
  return c;
}

function lit(name, input) {
  if (seen.has(input)) return;
  seen.add(input);
  record({ name, in: input }, input);
}

function range(name, lo, hi, sep) {
  const c = { name, r: [lo, hi] };
  if (sep) c.sep = sep;
  return record(c, rangeString(lo, hi, sep || ""));
}

// 1. Every code point of planes 0, 1, 2, 3 and 14, in chunks of 64
// consecutive code points. A chunk whose code points are not all inert
// (unchanged by NFKC and lowercasing, and either all word characters or all
// not) is repeated with the code points separated by spaces, to check each
// one in isolation too.
const CHUNK = 64;
for (const plane of [0, 1, 2, 3, 14]) {
  for (let lo = plane * 0x10000; lo < (plane + 1) * 0x10000; lo += CHUNK) {
    const hi = lo + CHUNK - 1;
    if (lo >= 0xd800 && hi <= 0xdfff) continue;
    const name = "chunk U+" + lo.toString(16).toUpperCase();
    const c = range(name, lo, hi);
    const input = rangeString(lo, hi, "");
    const inert = c.low === undefined && c.phr === undefined &&
      (c.tok === undefined || c.tok.length === 0);
    if (!inert || /[\p{M}]/u.test(input)) range(name + " spaced", lo, hi, " ");
  }
}

// 2. Hand-written cases for the rules.
const named = {
  "reference example": "CAFÉ café Ωmega雪 snake_case 42",
  "empty": "",
  "spaces": "   \t\n\r  ",
  "ascii": "Hello, World! THIS is a Test_Case with 42 numbers and snake_case_words.",
  "sigma word final": "ΟΔΟΣ",
  "sigma saas": "ΣΑΣ",
  "sigma osos": "ΌΣΟΣ Σ",
  "sigma apostrophe": "ΑΣ's",
  "sigma apostrophe phrase": "ΑΣ'Β",
  "sigma alone": "Σ",
  "sigma after space": " Σ ",
  "sigma digits": "Σ1 1Σ ΑΣ1 Α1Σ ΑΣ_ Α_Σ _Σ Σ_",
  "sigma underscore": "ΑΣ_Β ΑΣ_ _ΑΣ",
  "sigma modifier": "ΑΣʼ ΑʼΣ ʰΣ ΑΣʰ Αʰ Σ ΑΣʰΒ",
  "sigma marks": "ΑΣ\u0301 Α\u0301Σ ΑΣ\u0301Β Σ\u0301",
  "sigma soft hyphen": "ΑΣ\u00adΒ ΑΣ\u00ad Α\u00adΣ",
  "sigma dot": "ΑΣ.Β ΑΣ. Α.Σ",
  "sigma colon": "ΑΣ:Β Α:Σ",
  "sigma middle dot": "ΑΣ·Β Α·Σ",
  "sigma right quote": "ΑΣ’Β Α’Σ",
  "sigma sigma": "ΣΣ ΣΣΣ ΑΣΣ ΣΣΑ",
  "sigma latin": "AΣ aΣ AΣb",
  "sigma ypogegrammeni": "ΑΣ\u0345 Α\u0345Σ",
  "sigma roman numeral": "ⅠΣ Ⅰ Σ",
  "sigma circled": "ⒶΣ ⓐΣ",
  "sigma fullwidth": "ΑΣＡ",
  "sigma final form already": "ας ΑΣ ας",
  "dotted I": "İ İstanbul İİ Iİ iİ",
  "dotted I marks": "İ\u0301 İ\u0323 I\u0307",
  "dotless i": "ı I i ı\u0307",
  "ligatures": "ﬁ ﬂ ﬀ ﬃ ﬄ ﬅ ﬆ Ǆ ǅ ǆ Ĳ ĳ",
  "sharp s": "ß ẞ SS",
  "fullwidth": "ＡＢＣ１２３ ｈｅｌｌｏ＿ｗｏｒｌｄ ＦＵＬＬ",
  "compat digits": "① ② ⑳ ² ³ ¹ ½ ⅓ ⅷ Ⅻ ㈠ ㉑ ⓪ ⁰ ₉",
  "superscripts": "x² H₂O E=mc² aᵇᶜ",
  "kelvin ohm angstrom": "K Ω Å",
  "hangul jamo": "ᄀ ᅡ ᆨ 가 각 각 ㄱㅏ ﾡ",
  "hangul": "한국어 조선말 대한민국",
  "halfwidth kana": "ｶﾞ ﾊﾟ ｱｲｳ",
  "combining e acute": "e\u0301 E\u0301 cafe\u0301 CAFE\u0301",
  "combining stack": "a\u0323\u0301 a\u0301\u0323 ạ\u0302 ê\u0323",
  "combining only": "\u0301 \u0301\u0301 \u0300a",
  "devanagari": "नमस्ते क्षि हिन्दी क़ ऩ",
  "thai": "ภาษาไทย สวัสดี",
  "arabic": "العربية مرحبا ﻻ ﷺ",
  "hebrew": "שָׁלוֹם עברית",
  "cjk": "雪 中文 日本語 漢字かなカナ",
  "cjk compat": "㍿ ㌀ 豈 ⼀ ⺟",
  "emoji": "😀 👍🏽 👨‍👩‍👧 🇺🇸 1️⃣ #️⃣",
  "zwj zwnj": "a\u200db a\u200cb a\u2060b a\ufeffb",
  "nul": "a\u0000b \u0000 A\u0000\u0000B",
  "controls": "a\u0001b\u007fc\u0085d",
  "cyrillic": "ПРИВЕТ мир Ёлка ЁЛКА",
  "armenian": "ԵՐԵՎԱՆ և Եվ",
  "georgian": "ᲐᲑᲒ ა ბ გ",
  "cherokee": "ᏣᎳᎩ ꮳꮃꭹ",
  "deseret": "𐐀𐐁 𐐨𐐩",
  "adlam osage": "𞤀𞤁 𐒰𐒱",
  "greek tonos": "ΆΈΉΊΌΎΏ ΐ ΰ ϐ ϑ ϕ ϖ ϰ ϱ ϵ",
  "title case": "ǅungla ǈ ǋ ǲ",
  "modifier letters": "ʰ ʼ ʹ ˆ ª º ᵃ",
  "numbers": "42 ٤٢ ۴۲ ४२ ৪২ ๔๒ 四十二 Ⅻ ↁ 𐄇 ½",
  "underscore like": "a_b a‿b a⁀b a＿b a﹍b a﹏b",
  "cgj": "a\u034fb e\u034f\u0301",
  "replacement char": "a\ufffdb \ufffd",
  "private use": "\ue000\uf8ff a\ue000b",
  "noncharacters": "\ufdd0\ufffe\uffff",
  "supplementary vs bmp": "\u{10000}\u{1F600}\uffff\ue000",
  "kirat rai": "\u{16D63}\u{16D67}\u{16D67} \u{16D67}\u{16D67} \u{16D63}\u{16D67} \u{16D6A}",
  "gurung khema": "\u{1611E}\u{1611E}\u{1611F} \u{1611E}\u{16129} \u{16121}",
  "tulu tigalari": "\u{11382}\u{113C9} \u{113C2}\u{113C2} \u{11383}",
  "vithkuqi dot": "\u{105D2}\u{0307} \u{105C9} \u{105D2}\u{0323}\u{0307}",
  "garay case": "\u{10D50}\u{10D51} \u{10D70}",
  "outlined": "\u{1CCF0}\u{1CCF1} \u{1CCD6}\u{1CCD7} \u{A7F1}",
  "new latin": "\uA7CB\uA7CC\uA7CE\uA7D2\uA7D4\uA7DA\uA7DC",
  "new marks reorder": "a\u1ADD\u0301 a\u0301\u1ADD a\u1AE6\u0300 e\u1ADD\u0301 e\u0897\u0323",
  "cjk ext j": "\u{323B0}\u{33479}",
  "many marks 30": "e" + "\u0316".repeat(30) + "\u0301",
  "many marks 31": "e" + "\u0316".repeat(31) + "\u0301",
  "many marks 40": "a" + "\u0301".repeat(40) + "b",
  "many marks mixed": "e" + "\u0301\u0316".repeat(20) + "X",
  "many marks kana": "ｶ" + "\uff9e".repeat(35),
  "long token": "A".repeat(300) + "Σ",
};
for (const [name, s] of Object.entries(named)) lit(name, s);

// Final sigma around every kind of neighbour used in the random pool.
const neighbours = ["A", "a", "1", "_", " ", "'", "’", ".", ":", "\u0301", "\u00ad", "ʼ", "ʰ", "ª", "Ⅰ", "①", "雪", "İ", "Σ", "ς", "\u200d", "-", "\u0345"];
for (const x of neighbours) for (const y of neighbours) lit("sigma " + x + "|" + y, x + "Σ" + y + " Α" + x + "Σ" + y + "Β");

// 3. Random mixtures from a seeded PRNG (mulberry32).
let state = SEED >>> 0;
function rand() {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (a) => a[Math.floor(rand() * a.length)];

const pool = [
  "the", "Quick", "BROWN", "fox", "snake_case", "CamelCase", "x", "I", "a", "42", "3.14", "v2", "_", "__init__",
  " ", " ", " ", "  ", "\t", "\n", "\r\n", ",", ".", ";", ":", "'", "\"", "-", "/", "\\", "(", ")", "!", "?", "@", "#", "<", "=", ">", "\u0000",
  "Σ", "σ", "ς", "ΑΣ", "ΌΣΟΣ", "ΣΑΣ", "Ω", "ωmega",
  "İ", "ı", "i\u0307", "ﬁ", "ﬂ", "ǅ", "ß", "ẞ", "K", "Å",
  "ＡＢＣ", "１２３", "ｘ", "＿", "①", "²", "½", "Ⅻ", "ⅷ", "㈠",
  "ᄀ", "ᅡ", "ᆨ", "가", "한국어", "ㄱ", "ㅏ", "ｶ", "ﾞ", "ﾟ",
  "\u0301", "\u0300", "\u0323", "\u0316", "\u0345", "\u0307", "\u034f", "क्षि", "\u093c", "\u094d", "नम",
  "雪", "中文", "カタカナ", "かな", "😀", "👍🏽", "👨‍👩‍👧", "🇺🇸", "\ufe0f", "\u20e3",
  "\u200d", "\u200c", "\u00ad", "\ufeff", "’", "ʼ", "ʰ", "ª", "·",
  "ПРИВЕТ", "мир", "ԵՐԵՎԱՆ", "Ა", "Ꮳ", "𐐀", "𞤀", "\ufffd", "\ue000", "\uffff", "\u{10000}",
  "\u{16D63}", "\u{16D67}", "\u{1611E}", "\u{1611F}", "\u{16129}", "\u{11382}", "\u{113C9}", "\u{113C2}", "\u{105D2}",
  "\u{10D50}", "\u{10D70}", "\u{1CCF5}", "\u{1CCD9}", "\uA7F1", "\uA7CB", "\u1ADD", "\u1AE6", "\u0897", "\u{323B0}",
];
function randomCodePoint() {
  const planes = [0, 0, 0, 0, 1, 1, 2, 3, 14];
  for (;;) {
    const cp = pick(planes) * 0x10000 + Math.floor(rand() * 0x10000);
    if (cp < 0xd800 || cp > 0xdfff) return String.fromCodePoint(cp);
  }
}
for (let n = 0; n < 3000; n++) {
  const len = 1 + Math.floor(rand() * 24);
  let s = "";
  for (let k = 0; k < len; k++) {
    const u = rand();
    if (u < 0.12) s += randomCodePoint();
    else if (u < 0.16) s += pick(["\u0301", "\u0316", "\u0323", "\u1ADD", "\u0897"]).repeat(1 + Math.floor(rand() * 40));
    else s += pick(pool);
  }
  lit("random " + n, s);
}

// 4. The Final_Sigma role of every code point (see the header).
const sigma = [];
for (const plane of [0, 1, 2, 3, 14]) {
  for (let cp = plane * 0x10000; cp < (plane + 1) * 0x10000; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const c = String.fromCodePoint(cp);
    const t = (c + "\u03a3").toLowerCase().endsWith("\u03c2") ? "C"
      : ("A\u03a3" + c + "B").toLowerCase()[1] === "\u03c3" ? "I" : "N";
    if (t === "N") continue;
    const last = sigma[sigma.length - 1];
    if (last && last[1] === cp - 1 && last[2] === t) last[1] = cp;
    else sigma.push([cp, cp, t]);
  }
}

const doc = {
  node: process.version,
  unicode: process.versions.unicode,
  icu: process.versions.icu,
  seed: SEED,
  cases,
  sigma,
};
// One case per line keeps diffs of the committed file readable.
const lines = cases.map((c) => JSON.stringify(c));
const text = "{\"node\":" + JSON.stringify(doc.node) +
  ",\"unicode\":" + JSON.stringify(doc.unicode) +
  ",\"icu\":" + JSON.stringify(doc.icu) +
  ",\"seed\":" + doc.seed +
  ",\n\"sigma\":" + JSON.stringify(sigma) +
  ",\n\"cases\":[\n" + lines.join(",\n") + "\n]}\n";
fs.writeFileSync(out, text);
console.error("wrote " + out + ": " + cases.length + " cases, " + text.length + " chars");
