#!/usr/bin/env python3
"""Writes the hand-made OMP session fixtures of testdata/omp/ byte for byte.

    python3 testdata/omp/_tools/make_fixtures.py [OUTDIR]

OUTDIR defaults to testdata/omp (the parent of this script's directory).
Each fixture exercises one read rule of spec/omp-session-format.md; the
expected results are not computed here: they are the outputs of OMP 18.2.3's
own loader (see run_oracle.sh), saved next to each fixture as
<name>.oracle.json. Also writes fixtures.json (name -> section, rule).

Deterministic: running it twice gives the same bytes.
"""
import hashlib
import json
import os
import sys
from datetime import datetime, timedelta, timezone

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FIXTURES = {}  # name -> (bytes, section, rule)
MISSING = object()


def j(o):
    """One record the way OMP writes it: JSON.stringify, no spaces, raw UTF-8."""
    return json.dumps(o, separators=(",", ":"), ensure_ascii=False)


def fixture(name, section, rule, data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    assert name not in FIXTURES, name
    FIXTURES[name] = (data, section, rule)


class Session:
    """Builds records with increasing timestamps; ids are chosen by the caller."""

    def __init__(self, name, start="2026-09-01T10:00:00"):
        self.name = name
        self.t = datetime.fromisoformat(start).replace(tzinfo=timezone.utc)
        self.t0 = self.t  # headers are stamped with the session start
        h = hashlib.sha1(name.encode()).hexdigest()
        # UUIDv7-shaped, stable per fixture name
        self.sid = f"0198f2a4-{h[0:4]}-7{h[4:7]}-8{h[7:10]}-{h[10:22]}"
        self.call = 0

    def tick(self, secs=3):
        self.t += timedelta(seconds=secs)
        return self.t

    def iso(self, t=None):
        t = t or self.t
        return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"

    def ms(self, t=None):
        t = t or self.t
        return int(t.timestamp() * 1000)

    # ---- header and slot
    def header(self, version=3, sid=MISSING, **extra):
        h = {"type": "session"}
        if version is not MISSING:
            h["version"] = version
        if sid is not MISSING:
            if sid is not None:
                h["id"] = sid
        else:
            h["id"] = self.sid
        h["timestamp"] = self.iso(self.t0)
        h["cwd"] = "/home/dev/proj"
        h.update(extra)
        return h

    def v1_header(self, **extra):
        h = {"type": "session", "id": self.sid, "timestamp": self.iso(self.t0), "cwd": "/home/dev/proj",
             "provider": "anthropic", "modelId": "claude-sonnet-4-5", "thinkingLevel": "off"}
        h.update(extra)
        return h

    # ---- entries
    def entry(self, type_, id_=MISSING, parent=MISSING, secs=3, **fields):
        self.tick(secs)
        e = {"type": type_}
        if id_ is not MISSING:
            e["id"] = id_
        if parent is not MISSING:
            e["parentId"] = parent
        e["timestamp"] = self.iso()
        e.update(fields)
        return e

    def user(self, id_, parent, text, **kw):
        e = self.entry("message", id_, parent, **kw)
        e["message"] = {"role": "user", "content": text, "timestamp": self.ms()}
        return e

    def usage(self, inp=1200, out=80, cost=True):
        u = {"input": inp, "output": out, "cacheRead": 0, "cacheWrite": 0, "totalTokens": inp + out}
        if cost:
            ci, co = round(inp * 3e-6, 6), round(out * 15e-6, 6)
            u["cost"] = {"input": ci, "output": co, "cacheRead": 0, "cacheWrite": 0, "total": round(ci + co, 6)}
        return u

    def assistant(self, id_, parent, text=None, tool=None, usage=MISSING, **kw):
        """tool = (name, arguments) adds a toolCall block; returns the entry."""
        e = self.entry("message", id_, parent, **kw)
        content = []
        if text is not None:
            content.append({"type": "text", "text": text})
        if tool is not None:
            self.call += 1
            content.append({"type": "toolCall", "id": f"toolu_{self.call:02d}", "name": tool[0], "arguments": tool[1]})
        m = {"role": "assistant", "content": content, "api": "anthropic-messages", "provider": "anthropic",
             "model": "claude-sonnet-4-5"}
        if usage is MISSING:
            m["usage"] = self.usage()
        elif usage is not None:
            m["usage"] = usage
        m["stopReason"] = "toolUse" if tool else "stop"
        m["timestamp"] = self.ms()
        e["message"] = m
        return e

    def tool_result(self, id_, parent, tool_name, text, is_error=False, details=MISSING, **kw):
        e = self.entry("message", id_, parent, **kw)
        m = {"role": "toolResult", "toolCallId": f"toolu_{self.call:02d}", "toolName": tool_name,
             "content": [{"type": "text", "text": text}]}
        if details is not MISSING:
            m["details"] = details
        m["isError"] = is_error
        m["timestamp"] = self.ms()
        e["message"] = m
        return e

    def exchange(self, ids, parent, topic=0):
        """user -> assistant(toolCall) -> toolResult -> assistant(text): 4 records, ids[0..3]."""
        q, path, out, answer = TOPICS[topic % len(TOPICS)]
        a, b, c, d = ids
        return [
            self.user(a, parent, q),
            self.assistant(b, a, "Let me look.", tool=("read", {"path": path})),
            self.tool_result(c, b, "read", out, details={"lineCount": out.count("\n") + 1}),
            self.assistant(d, c, answer),
        ]


TOPICS = [
    ("Why does TestWorker fail on CI?", "worker_test.go",
     "func TestWorker(t *testing.T) {\n\ttime.Sleep(10 * time.Millisecond)\n}",
     "It sleeps instead of waiting on a channel; CI machines are slower."),
    ("What does parseConfig return on an empty file?", "config.go",
     "func parseConfig(b []byte) (*Config, error) {\n\tif len(b) == 0 {\n\t\treturn &Config{}, nil\n\t}",
     "An empty Config and a nil error."),
    ("List the HTTP routes.", "routes.go",
     "r.Get(\"/health\", health)\nr.Post(\"/jobs\", createJob)",
     "Two routes: GET /health and POST /jobs."),
]


def lines(*recs, eol="\n", final=True):
    """Join records (dicts become compact JSON, str/bytes are used verbatim)."""
    parts = []
    for r in recs:
        if isinstance(r, (dict, list)) or r is None or isinstance(r, (int, float, bool)):
            parts.append(j(r))
        else:
            parts.append(r)
    s = eol.join(parts)
    if final:
        s += eol
    return s


def slot(title, source=MISSING, updated="2026-09-01T10:30:00.000Z", total=256, eol="\n", v=1, extra_after=""):
    """A title slot line padded to `total` bytes including `eol`."""
    o = {"type": "title", "v": v, "title": title}
    if source is not MISSING:
        o["source"] = source
    o["updatedAt"] = updated
    o["pad"] = ""
    base = len(j(o).encode()) + len(extra_after.encode()) + len(eol.encode())
    o["pad"] = " " * max(0, total - base)
    line = j(o) + extra_after + eol
    if total and not extra_after:
        assert len(line.encode()) == total or base > total, (len(line.encode()), total)
    return line


def basic(s, parent=None, ids=("e0000001", "e0000002", "e0000003", "e0000004"), topic=0):
    return s.exchange(ids, parent, topic)


# =====================================================================
# §2.2 title slot
# =====================================================================

s = Session("title-slot-v3")
fixture("title-slot-v3", "§2.2", "valid 256-byte slot (source user) before a v3 header; slot title overrides header title",
        slot("Fix flaky TestWorker", "user") + lines(s.header(title="Old title", titleSource="auto"), *basic(s)))

s = Session("no-title-slot-v3")
fixture("no-title-slot-v3", "§2.2, §2.3", "plain v3 file without a slot; header title/titleSource kept as written",
        lines(s.header(title="Config parsing", titleSource="auto"), *basic(s, topic=1)))

s = Session("title-slot-source-auto")
fixture("title-slot-source-auto", "§2.2", "slot with source auto",
        slot("Routes overview", "auto") + lines(s.header(), *basic(s, topic=2)))

s = Session("title-slot-source-absent")
fixture("title-slot-source-absent", "§2.2", "slot without source: header.titleSource is deleted, title set from slot",
        slot("Routes overview") + lines(s.header(title="Header title", titleSource="user"), *basic(s, topic=2)))

s = Session("title-slot-empty-title")
fixture("title-slot-empty-title", "§2.2", "slot with title \"\": header.title is deleted",
        slot("", "auto") + lines(s.header(title="Header title", titleSource="user"), *basic(s)))

s = Session("title-slot-short-line")
fixture("title-slot-short-line", "§2.2", "valid slot that is not 256 bytes (no pad): byte length is not checked",
        slot("Short slot", "user", total=0) + lines(s.header(), *basic(s)))

s = Session("title-slot-crlf")
fixture("title-slot-crlf", "§2.2", "slot line ending in \\r\\n (256 bytes incl. \\r\\n); rest of file uses \\n",
        slot("CRLF slot", "user", eol="\r\n") + lines(s.header(), *basic(s)))

s = Session("title-slot-leading-whitespace")
fixture("title-slot-leading-whitespace", "§2.2", "two spaces before the slot object on line 1 (whitespace around the value allowed)",
        "  " + slot("Indented slot", "user", total=254) + lines(s.header(), *basic(s)))

s = Session("title-slot-invalid-v2")
fixture("title-slot-invalid-v2", "§2.2, §2.5", "title-shaped first line with \"v\":2 is not a slot: record 0, header check fails",
        slot("Bad version", "user", v=2) + lines(s.header(), *basic(s)))

s = Session("title-slot-invalid-v-string")
fixture("title-slot-invalid-v-string", "§2.2, §2.5", "title-shaped first line with \"v\":\"1\" (string) is not a slot",
        slot("String v", "user", v="1") + lines(s.header(), *basic(s)))

s = Session("title-slot-invalid-source-null")
fixture("title-slot-invalid-source-null", "§2.2, §2.5", "title-shaped first line with \"source\":null is not a slot",
        slot("Null source", None) + lines(s.header(), *basic(s)))

s = Session("title-slot-invalid-source-other")
fixture("title-slot-invalid-source-other", "§2.2, §2.5", "title-shaped first line with \"source\":\"agent\" (not auto/user) is not a slot",
        slot("Other source", "agent") + lines(s.header(), *basic(s)))

s = Session("title-slot-invalid-trailing-text")
fixture("title-slot-invalid-trailing-text", "§2.2, §2.5", "text after the slot object on line 1 disqualifies it",
        slot("Trailing text", "user", extra_after=" x") + lines(s.header(), *basic(s)))

s = Session("title-slot-invalid-missing-pad")
o = {"type": "title", "v": 1, "title": "No pad", "source": "user", "updatedAt": "2026-09-01T10:30:00.000Z"}
fixture("title-slot-invalid-missing-pad", "§2.2, §2.5", "title-shaped first line without the pad key is not a slot",
        lines(o, s.header(), *basic(s)))

s = Session("title-slot-no-newline")
fixture("title-slot-no-newline", "§2.2", "file is only a valid-looking slot line with no \\n at all: not a slot",
        slot("Only a slot", "user", eol="").encode())

s = Session("title-slot-only")
fixture("title-slot-only", "§2.2, §2.5", "file is only a valid 256-byte slot line (with \\n): empty body",
        slot("Only a slot", "user"))

s = Session("title-slot-header-only")
fixture("title-slot-header-only", "§2.2, §2.5", "slot + header, no entries",
        slot("Nothing yet", "auto") + lines(s.header()))

s = Session("title-slot-after-bom")
fixture("title-slot-after-bom", "§2.2, §2.4", "UTF-8 BOM, then a valid slot, then header and entries",
        b"\xef\xbb\xbf" + (slot("BOM then slot", "user") + lines(s.header(), *basic(s))).encode())

s = Session("title-record-not-first-line")
e = basic(s)
fixture("title-record-not-first-line", "§2.2, §5", "a title-slot-shaped object on line 3 (after header) is an ordinary record with type title",
        lines(s.header(), e[0], slot("Late slot", "user", eol=""), *e[1:]))

s = Session("title-slot-no-header")
fixture("title-slot-no-header", "§2.2, §2.5", "valid slot followed directly by entries (no session header)",
        slot("Headless", "user") + lines(*basic(s)))

# =====================================================================
# §2.4 physical parsing
# =====================================================================

s = Session("bom")
fixture("bom", "§2.4", "UTF-8 BOM before the header", b"\xef\xbb\xbf" + lines(s.header(), *basic(s)).encode())

s = Session("crlf-line-endings")
fixture("crlf-line-endings", "§2.4", "every line ends in \\r\\n", lines(s.header(), *basic(s, topic=1), eol="\r\n"))

s = Session("blank-and-whitespace-lines")
e = basic(s, topic=2)
fixture("blank-and-whitespace-lines", "§2.4", "empty lines, space/tab-only lines and indented records are skipped/accepted, not malformed",
        "\n  \n" + lines(s.header()) + "\n\t\n" + lines(e[0]) + "   \n\n" + "\t  " + lines(e[1]) + " \t \n"
        + lines(e[2]) + "\r\n\n" + lines(e[3]) + "\n\n  \n")

fixture("empty-file", "§2.5", "0-byte file: OMP starts a fresh session (random id, sandbox cwd)", b"")
fixture("whitespace-only-file", "§2.5", "only blank and whitespace lines: fresh session", " \n\n\t\r\n   \n")

s = Session("header-only")
fixture("header-only", "§2.5", "header line only: no records, null leaf", lines(s.header()))

s = Session("two-values-one-line")
e = basic(s)
fixture("two-values-one-line", "§2.4", "line 3 holds two objects {…}{…}: the first is kept, the second (e0000003) silently lost (not malformed), so e0000004 has an unknown parent",
        lines(s.header(), e[0], j(e[1]) + j(e[2]), e[3]))

s = Session("value-then-junk-same-line")
e = basic(s, topic=1)
fixture("value-then-junk-same-line", "§2.4", "a complete object followed by ' junk' on the same line: object kept, junk ignored",
        lines(s.header(), j(e[0]) + " junk", e[1], j(e[2]) + " ]]]} trailing", e[3]))

s = Session("junk-before-value")
e = basic(s, topic=2)
fixture("junk-before-value", "§2.4", "a line starting with junk 'xx{…}' is dropped whole and counted malformed",
        lines(s.header(), e[0], e[1], e[2], "xx" + j(s.user("e0000005", "e0000004", "Thanks!")), e[3]))

s = Session("not-json-line")
e = basic(s)
fixture("not-json-line", "§2.4", "a 'not json' line between records: dropped, malformed",
        lines(s.header(), e[0], "not json", e[1], e[2], "Error: disk full", e[3]))

s = Session("pretty-printed-value")
e = basic(s, topic=1)
fixture("pretty-printed-value", "§2.4", "one record pretty-printed over several lines (2-space indent) is one record",
        lines(s.header(), e[0], json.dumps(e[1], indent=2, ensure_ascii=False), e[2], e[3]))

s = Session("pretty-printed-header")
e = basic(s, topic=2)
fixture("pretty-printed-header", "§2.4, §2.5", "the session header itself spans several lines",
        lines(json.dumps(s.header(), indent=2), *e))

s = Session("torn-line-syntax-error-resumes")
e = basic(s)
torn = j(e[1]).split('"timestamp"')[0]  # '{"type":"message","id":"e0000002","parentId":"e0000001",'
fixture("torn-line-syntax-error-resumes", "§2.4", "torn line ending after ',' followed by more lines: the next '{' is a syntax error, torn line dropped (malformed), parsing resumes with the next line",
        lines(s.header(), e[0], torn, e[1], e[2], e[3]))

s = Session("torn-line-inside-string")
e = basic(s)
full = j(e[2])
torn = full[: full.index("time.Sleep")]  # cut inside the text string
fixture("torn-line-inside-string", "§2.4", "torn line cut inside a string (raw newline in string = syntax error): dropped, next line kept",
        lines(s.header(), e[0], e[1], torn, e[2], e[3]))

s = Session("torn-line-open-array-then-one-line")
e = basic(s)
full = j(e[1])
torn = full[: full.index('"content":[') + len('"content":[')]
fixture("torn-line-open-array-then-one-line", "§2.4, first section", "torn line ending in '\"content\":[' followed by exactly one complete object line at EOF: both dropped",
        lines(s.header(), e[0], torn, e[1]))

s = Session("torn-line-open-key-then-one-line")
e = basic(s)
full = j(e[1])
torn = full[: full.index('"message":') + len('"message":')]
fixture("torn-line-open-key-then-one-line", "§2.4, first section", "torn line ending in '\"message\":' followed by exactly one complete object line at EOF: both dropped",
        lines(s.header(), e[0], torn, e[1]))

s = Session("torn-line-open-key-then-two-lines")
e = basic(s)
full = j(e[1])
torn = full[: full.index('"message":') + len('"message":')]
fixture("torn-line-open-key-then-two-lines", "§2.4", "torn line ending in '\"message\":' followed by two complete object lines: the second object makes it a syntax error",
        lines(s.header(), e[0], torn, e[1], e[2], e[3]))

s = Session("torn-line-open-array-then-two-lines")
e = basic(s)
full = j(e[1])
torn = full[: full.index('"content":[') + len('"content":[')]
fixture("torn-line-open-array-then-two-lines", "§2.4", "torn line ending in '\"content\":[' followed by two complete object lines",
        lines(s.header(), e[0], torn, e[1], e[2]))

s = Session("torn-last-line-no-newline")
e = basic(s)
full = j(e[3])
fixture("torn-last-line-no-newline", "§2.4", "last line cut mid-record with no final \\n: dropped, malformed",
        lines(s.header(), e[0], e[1], e[2]) + full[: len(full) // 2])

s = Session("torn-last-line-with-newline")
e = basic(s)
full = j(e[3])
fixture("torn-last-line-with-newline", "§2.4", "last line cut mid-record but followed by \\n",
        lines(s.header(), e[0], e[1], e[2]) + full[: len(full) // 2] + "\n")

s = Session("complete-last-line-no-newline")
e = basic(s)
fixture("complete-last-line-no-newline", "§2.4", "complete last record without a final \\n is kept (and is the leaf)",
        lines(s.header(), *e, final=False))

s = Session("trailing-partial-value-continues")
e = basic(s)
nxt = j(s.user("e0000005", "e0000004", "And the second test?"))
head, tail = nxt.split('"timestamp"', 1)
fixture("trailing-partial-value-continues", "§2.4", "after a complete object, the same line starts a second object that continues on the next line; the continuation line starts with a string",
        lines(s.header(), e[0], e[1], e[2], j(e[3]) + head, '"timestamp"' + tail))

s = Session("closing-brace-line")
e = basic(s)
fixture("closing-brace-line", "§2.4", "lines holding only '}' or ']' or ',' are syntax errors (malformed)",
        lines(s.header(), e[0], "}", e[1], "]", e[2], ",", e[3]))

# =====================================================================
# non-object values (first section, §2.4)
# =====================================================================

s = Session("non-object-values")
e = basic(s)
fixture("non-object-values", "first section, §2.4", "lines 42, \"s\", true, [1,2], {} between entries are kept as records with no type/id",
        lines(s.header(), e[0], "42", e[1], '"a string line"', "true", e[2], "[1,2]", "{}", e[3]))

for nm, val in [("number", "42"), ("string", '"done"'), ("true", "true"), ("array", '[1,"two",{"three":3}]'),
                ("empty-object", "{}")]:
    s = Session("leaf-non-object-" + nm)
    fixture("leaf-non-object-" + nm, "first section, §7.1", f"last line is the non-object value {val}: it is the leaf (no id)",
            lines(s.header(), *basic(s), val))

for nm, val in [("null", "null"), ("false", "false"), ("zero", "0"), ("empty-string", '""')]:
    s = Session("falsy-value-line-" + nm)
    e = basic(s)
    fixture("falsy-value-line-" + nm, "first section, §2.4", f"a line holding only {val} between entries",
            lines(s.header(), e[0], e[1], val, e[2], e[3]))

# =====================================================================
# §2.5 header
# =====================================================================

s = Session("no-header")
fixture("no-header", "§2.5", "no session line at all; first record is a message", lines(*basic(s)))

s = Session("header-without-id")
fixture("header-without-id", "§2.5", "header has no id", lines(s.header(sid=None), *basic(s)))

s = Session("header-numeric-id")
fixture("header-numeric-id", "§2.5", "header id is the number 12345", lines(s.header(sid=12345), *basic(s)))

s = Session("header-empty-string-id")
fixture("header-empty-string-id", "§2.5", "header id is \"\" (a string, but empty)", lines(s.header(sid=""), *basic(s)))

s = Session("header-after-garbage")
fixture("header-after-garbage", "§2.5", "two garbage lines before the header: skipped, counted malformed, header still found",
        lines("garbage line", "{\"type\":\"session\",", s.header(), *basic(s)))

s = Session("header-after-record")
e = basic(s)
fixture("header-after-record", "§2.5", "a message record precedes the header", lines(e[0], s.header(), *e[1:]))

s = Session("header-after-non-object")
fixture("header-after-non-object", "§2.5", "a non-object value (42) precedes the header", lines("42", s.header(), *basic(s)))

s = Session("torn-header-only")
fixture("torn-header-only", "§2.5", "the only content is a torn header without \\n",
        j(s.header())[:40])

s = Session("only-malformed-lines")
fixture("only-malformed-lines", "§2.5", "every line is malformed (no parsed value)", "not json\nxx{}\n}\n")

s = Session("header-type-not-session")
fixture("header-type-not-session", "§2.5", "first record has type \"Session\" (wrong case)",
        lines(dict(s.header(), type="Session"), *basic(s)))

# second session lines
s = Session("second-session-line-middle")
e = basic(s)
fixture("second-session-line-middle", "§2.5, first section", "a second session line in the middle of a v3 file (kept as a parentless record)",
        lines(s.header(), e[0], e[1], s.header(sid="0198f2a4-ffff-7fff-8fff-ffffffffffff"), e[2], e[3]))

s = Session("second-session-line-last")
e = basic(s)
fixture("second-session-line-last", "§2.5, §7.1", "a second session line as the last line: it is the leaf (its id = the other session id)",
        lines(s.header(), *e, s.header(sid="0198f2a4-ffff-7fff-8fff-ffffffffffff")))

s = Session("second-session-line-same-id-last")
e = basic(s)
fixture("second-session-line-same-id-last", "§2.5, §7.1", "the header line repeated as the last line (same session id): leaf is the session id",
        lines(s.header(), *e, s.header()))

s = Session("second-session-line-v1")
e = [s.user(MISSING, MISSING, "Why does TestWorker fail on CI?"),
     s.assistant(MISSING, MISSING, "It sleeps instead of waiting on a channel.")]
fixture("second-session-line-v1", "§4, first section", "a v1 file with a second session line (no version) in the middle and more entries after",
        lines(s.v1_header(), e[0], s.v1_header(id="ffae836b-0000-4000-8000-000000000002"),
              e[1], s.user(MISSING, MISSING, "Thanks.")))

# =====================================================================
# §3/§4 versions and migration
# =====================================================================


def v1_body(s):
    return [
        s.user(MISSING, MISSING, "Why does TestWorker fail on CI?"),
        s.assistant(MISSING, MISSING, "Let me look.", tool=("read", {"path": "worker_test.go"})),
        s.tool_result(MISSING, MISSING, "read", "func TestWorker(t *testing.T) {\n\ttime.Sleep(10 * time.Millisecond)\n}"),
        s.entry("thinking_level_change", thinkingLevel="high"),
        s.assistant(MISSING, MISSING, "It sleeps instead of waiting on a channel."),
    ]


s = Session("version-missing-v1")
fixture("version-missing-v1", "§3, §4", "pi v1 file: header without version, entries without id/parentId -> random ids, linear chain",
        lines(s.v1_header(), *v1_body(s)))

for nm, ver in [("null", None), ("1", 1), ("0", 0), ("false", False), ("true", True), ("string-empty", ""),
                ("string-abc", "abc"), ("object", {}), ("2", 2), ("string-2", "2"), ("2-5", 2.5), ("3", 3),
                ("string-3", "3"), ("array-3", [3]), ("3-0-float", MISSING), ("4", 4), ("99", 99), ("negative", -1)]:
    s = Session("version-" + nm)
    if nm == "3-0-float":
        hdr = lines(s.header()).replace('"version":3', '"version":3.0')
    else:
        hdr = lines(s.header(version=ver))
    # ids present so that a skipped migration still gives a chain; hookMessage shows whether v2->v3 ran
    e = basic(s)
    hook = s.entry("message", "e0000005", "e0000004",
                   message={"role": "hookMessage", "customType": "lint-hint", "content": "Run the linter.",
                            "display": True, "timestamp": s.ms()})
    tail = s.user("e0000006", "e0000005", "ok")
    ver_txt = "version " + (hdr.split('"version":', 1)[1].split(',"id"')[0])
    fixture("version-" + nm, "§3, §4", f"header {ver_txt}; v3-shaped entries (with ids) plus a hookMessage",
            hdr + lines(*e, hook, tail))

s = Session("v1-existing-ids-overwritten")
e = basic(s)
# a branch: e0000005 is a child of e0000002 (a sibling of e0000003); v1 ignores all that
b = s.user("e0000005", "e0000002", "Actually, skip the file read.")
lab = s.entry("label", "e0000006", "e0000004", targetId="e0000002", label="start")
fixture("v1-existing-ids-overwritten", "§4", "v1 header (no version) but entries carry ids/parentIds forming a branch: all overwritten, one chain in file order",
        lines(s.v1_header(), *e, b, lab))


def v1_compaction(name, idx, rule, extra_ids=False):
    s = Session(name)
    body = v1_body(s)
    if extra_ids:
        for k, r in enumerate(body):
            r["id"] = f"orig{k + 1:04d}"
    comp = s.entry("compaction", summary="## Goal\nFix flaky TestWorker.\n## Done\nFound the sleep.",
                   firstKeptEntryIndex=idx, tokensBefore=48213)
    after = [s.user(MISSING, MISSING, "Now fix it."), s.assistant(MISSING, MISSING, "Replaced the sleep with a done channel.")]
    if extra_ids:
        for k, r in enumerate(after):
            r["id"] = f"orig{k + 7:04d}"
    fixture(name, "§4", rule, lines(s.v1_header(), *body[:3], comp, *body[3:], *after))


# records: 0 header, 1 user, 2 assistant, 3 toolResult, 4 compaction, 5 tlc, 6 assistant, 7 user, 8 assistant
v1_compaction("v1-compaction-index-backward", 2, "v1 compaction firstKeptEntryIndex 2 (before it): firstKeptEntryId = new id of record 2")
v1_compaction("v1-compaction-index-self", 4, "v1 compaction firstKeptEntryIndex 4 = its own index: its own new id")
v1_compaction("v1-compaction-index-header", 0, "v1 compaction firstKeptEntryIndex 0 = the header: no firstKeptEntryId")
v1_compaction("v1-compaction-index-forward", 7, "v1 compaction firstKeptEntryIndex 7 (after it, record has no id yet): no firstKeptEntryId")
v1_compaction("v1-compaction-index-forward-with-id", 7, "v1 compaction firstKeptEntryIndex 7 where record 7 carries an original id: firstKeptEntryId = that stale original id", extra_ids=True)
v1_compaction("v1-compaction-index-out-of-range", 99, "v1 compaction firstKeptEntryIndex 99 (out of range): no firstKeptEntryId")
v1_compaction("v1-compaction-index-negative", -1, "v1 compaction firstKeptEntryIndex -1: no firstKeptEntryId")
v1_compaction("v1-compaction-index-fractional", 2.5, "v1 compaction firstKeptEntryIndex 2.5: no firstKeptEntryId")
v1_compaction("v1-compaction-index-string", "5", "v1 compaction firstKeptEntryIndex \"5\" (string): index kept, no firstKeptEntryId")

s = Session("v1-non-object-values")
body = v1_body(s)
fixture("v1-non-object-values", "§4, first section", "v1 file with {} and [1,2] lines between messages: they get random ids and join the v1 chain",
        lines(s.v1_header(), body[0], "{}", body[1], "[1,2]", body[2]))

s = Session("v1-number-line")
body = v1_body(s)
fixture("v1-number-line", "§4, first section", "v1 file with a bare 42 line (assigning .id to a number primitive)",
        lines(s.v1_header(), body[0], "42", body[1]))

s = Session("v1-title-slot")
fixture("v1-title-slot", "§2.2, §4", "title slot in front of a v1 header",
        slot("Old pi session", "auto") + lines(s.v1_header(), *v1_body(s)))

s = Session("v2-hookmessage-to-custom")
e = basic(s)
hook = s.entry("message", "e0000005", "e0000004",
               message={"role": "hookMessage", "customType": "lint-hint", "content": "Run golangci-lint before committing.",
                        "display": True, "timestamp": s.ms()})
fixture("v2-hookmessage-to-custom", "§4, §6.1", "v2 file with a hookMessage message: migrated to role custom (see .oracle-rewrite.json)",
        lines(s.header(version=2), *e, hook, s.user("e0000006", "e0000005", "Done, lint is clean.")))

s = Session("v3-hookmessage-stays")
e = basic(s)
hook = s.entry("message", "e0000005", "e0000004",
               message={"role": "hookMessage", "customType": "lint-hint", "content": "Run golangci-lint before committing.",
                        "display": True, "timestamp": s.ms()})
fixture("v3-hookmessage-stays", "§4, §6.1", "v3 file with a hookMessage message: not migrated (see .oracle-rewrite.json)",
        lines(s.header(version=3), *e, hook, s.user("e0000006", "e0000005", "Done, lint is clean.")))

s = Session("v2-pi-shapes-unchanged")
e = basic(s)
mc = s.entry("model_change", "e0000005", "e0000004", provider="anthropic", modelId="claude-opus-4-5")
bs = s.entry("branch_summary", "e0000006", "e0000002", fromId="e0000002", summary="Read the test file.", fromHook=False)
fixture("v2-pi-shapes-unchanged", "§4", "v2 pi-dialect records (model_change provider/modelId, branch_summary fromHook): only version changes",
        lines(s.header(version=2), *e, mc, bs))

# =====================================================================
# §7.1 leaf rules
# =====================================================================

s = Session("leaf-label")
e = basic(s)
fixture("leaf-label", "§7.1, §7.5", "last record is a label entry targeting an earlier entry",
        lines(s.header(), *e, s.entry("label", "e0000005", "e0000004", targetId="e0000002", label="read-step")))

s = Session("leaf-custom-session-exit")
e = basic(s)
fixture("leaf-custom-session-exit", "§7.1", "last record is custom session_exit",
        lines(s.header(), *e, s.entry("custom", "e0000005", "e0000004", customType="session_exit",
                                      data={"reason": "sighup", "kind": "signal", "recordedAt": s.iso()})))

s = Session("leaf-model-usage-other-branch")
e = basic(s)
fixture("leaf-model-usage-other-branch", "§7.1, §7.2", "last record is a model_usage attached to an earlier entry (e0000001): leaf is on that short branch",
        lines(s.header(), *e, s.entry("model_usage", "e0000005", "e0000001", purpose="title", role="tiny",
                                      api="openai-completions", provider="local", model="tiny-title",
                                      usage=s.usage(300, 8), stopReason="stop")))

s = Session("leaf-entry-without-id")
e = basic(s)
fixture("leaf-entry-without-id", "§7.1, §7.6", "last record has no id key (but a parentId): leaf undefined, empty branch",
        lines(s.header(), *e, s.user(MISSING, "e0000004", "One more question.")))

s = Session("leaf-entry-empty-id")
e = basic(s)
fixture("leaf-entry-empty-id", "§7.1", "last record has id \"\": empty active branch",
        lines(s.header(), *e, s.user("", "e0000004", "One more question.")))

s = Session("leaf-entry-null-id")
e = basic(s)
fixture("leaf-entry-null-id", "§7.1", "last record has id null",
        lines(s.header(), *e, s.user(None, "e0000004", "One more question.")))

s = Session("leaf-numeric-id")
e = basic(s)
fixture("leaf-numeric-id", "§7.1, §7.3", "last record has id 7 (a number) and a valid string parentId",
        lines(s.header(), *e, s.user(7, "e0000004", "One more question.")))

# =====================================================================
# §7.3 ids and parents
# =====================================================================

s = Session("duplicate-ids")
e = basic(s)
dup = s.assistant("e0000002", "e0000001", "Second answer with a reused id.")
fixture("duplicate-ids", "§7.1, §7.3, §7.4", "e0000002 appears twice; the later one (a different assistant turn) wins in the id map",
        lines(s.header(), *e, dup, s.user("e0000005", "e0000002", "Which one am I under?")))

s = Session("duplicate-id-after-own-child")
a = s.user("e0000001", None, "Why does TestWorker fail on CI?")
b = s.assistant("e0000002", "e0000001", "Let me look.", tool=("read", {"path": "worker_test.go"}))
c = s.tool_result("e0000003", "e0000002", "read", "func TestWorker(t *testing.T) {}")
d = s.user("e0000002", "e0000003", "(duplicate id e0000002, child of its own child)")
fixture("duplicate-id-after-own-child", "§7.1, §7.3", "the later duplicate of e0000002 is a child of e0000003, itself a child of the first e0000002; leaf = the duplicate",
        lines(s.header(), a, b, c, d))

s = Session("duplicate-id-leaf-chain")
a = s.user("e0000001", None, "First question.")
b = s.assistant("e0000002", "e0000001", "First answer.")
c = s.user("e0000003", "e0000002", "Second question.")
b2 = s.assistant("e0000002", None, "A root that reuses e0000002.")
d = s.assistant("e0000004", "e0000003", "Second answer.")
fixture("duplicate-id-leaf-chain", "§7.3", "leaf's ancestor e0000002 is redefined later as a root: the walk resolves the parent to the later duplicate",
        lines(s.header(), a, b, c, b2, d))

s = Session("ids-typed-number-vs-string")
a = s.user("1", None, "String id \"1\".")
b = s.user(1, "1", "Numeric id 1 under \"1\".")
c = s.assistant("e0000003", 1, "Child of numeric parentId 1.")
fixture("ids-typed-number-vs-string", "first section, §7.3", "ids \"1\" and 1 both present; leaf has parentId 1 (number)",
        lines(s.header(), a, b, c))

s = Session("ids-number-parent-string-only")
a = s.user("1", None, "String id \"1\".")
c = s.assistant("e0000002", 1, "Child of numeric parentId 1, but only \"1\" exists.")
fixture("ids-number-parent-string-only", "first section, §7.3", "only id \"1\" exists; leaf has parentId 1 (number)",
        lines(s.header(), a, c))

s = Session("parentid-empty-string")
e = basic(s)
e[2]["parentId"] = ""
fixture("parentid-empty-string", "§7.3", "a middle record has parentId \"\": the walk stops there (it is a root)",
        lines(s.header(), *e))

s = Session("parentid-missing-key")
e = basic(s)
del e[2]["parentId"]
fixture("parentid-missing-key", "§7.3", "a middle record has no parentId key: root", lines(s.header(), *e))

s = Session("parentid-null-mid")
e = basic(s)
e[2]["parentId"] = None
fixture("parentid-null-mid", "§7.3", "a middle record has parentId null: root", lines(s.header(), *e))

s = Session("parentid-self")
e = basic(s)
e[2]["parentId"] = e[2]["id"]
fixture("parentid-self", "§7.3, §7.4", "a middle record's parentId is its own id", lines(s.header(), *e))

s = Session("parentid-dangling")
e = basic(s)
e[2]["parentId"] = "deadbeef"
fixture("parentid-dangling", "§7.3", "a middle record points at an unknown id: the path starts there", lines(s.header(), *e))

s = Session("parentid-header-id")
e = basic(s)
e[0]["parentId"] = s.sid
e[2]["parentId"] = s.sid
fixture("parentid-header-id", "§7.3", "records point at the header's session id (which is not a record)", lines(s.header(), *e))

s = Session("parent-cycle-two")
a = s.user("e0000001", "e0000002", "A: parent is B.")
b = s.assistant("e0000002", "e0000001", "B: parent is A.")
c = s.user("e0000003", "e0000002", "C: child of B.")
fixture("parent-cycle-two", "§7.3", "a->b->a cycle under the leaf c", lines(s.header(), a, b, c))

s = Session("parent-cycle-long")
a = s.user("e0000001", "e0000004", "A: parent is D.")
b = s.assistant("e0000002", "e0000001", "B: parent is A.")
c = s.user("e0000003", "e0000002", "C: parent is B.")
d = s.assistant("e0000004", "e0000003", "D: parent is C (closes the cycle).")
x = s.user("e0000005", "e0000003", "E: child of C.")
fixture("parent-cycle-long", "§7.3", "a->d->c->b->a four-cycle; leaf e0000005 hangs off c", lines(s.header(), a, b, c, d, x))

s = Session("parent-cycle-leaf-in-cycle")
a = s.user("e0000001", None, "Root.")
b = s.assistant("e0000002", "e0000003", "B: parent is C.")
c = s.user("e0000003", "e0000002", "C: parent is B (leaf inside the cycle).")
fixture("parent-cycle-leaf-in-cycle", "§7.3", "the leaf itself is part of a 2-cycle", lines(s.header(), a, b, c))

s = Session("parentid-number-type")
e = basic(s)
e[3]["parentId"] = 3
fixture("parentid-number-type", "§7.3", "leaf has parentId 3 (number) while ids are strings: unknown parent", lines(s.header(), *e))

# =====================================================================
# branches, labels
# =====================================================================

s = Session("branches-leaf-on-abandoned-branch")
e = basic(s)
bs = s.entry("branch_summary", "e0000005", "e0000002", fromId="e0000002", summary="Tried reading the test.",
             details={"readFiles": ["worker_test.go"], "modifiedFiles": []})
n1 = s.user("e0000006", "e0000005", "Look at worker.go instead.")
n2 = s.assistant("e0000007", "e0000006", "worker.go has no sleep; the test does.")
bash = s.entry("message", "e0000008", "e0000004",
               message={"role": "bashExecution", "command": "go test ./...", "output": "ok  \texample.com/proj\t0.4s\n",
                        "exitCode": 0, "cancelled": False, "truncated": False, "timestamp": s.ms()})
fixture("branches-leaf-on-abandoned-branch", "§7.2", "two branches below e0000002; the last line (a bashExecution) hangs on the abandoned branch, so the leaf is there",
        lines(s.header(), *e, bs, n1, n2, bash))

s = Session("branch-summary-switches-branch")
e = basic(s)
n1 = s.user("e0000005", "e0000004", "Raise the sleep to 100ms.")
n2 = s.assistant("e0000006", "e0000005", "Raised it; still flaky 1/20.")
bs = s.entry("branch_summary", "e0000007", "e0000004", fromId="e0000004",
             summary="Raising the sleep did not help.", details={"readFiles": [], "modifiedFiles": ["worker_test.go"]})
n3 = s.user("e0000008", "e0000007", "Use a done channel instead.")
n4 = s.assistant("e0000009", "e0000008", "Done; 50/50 passes.")
fixture("branch-summary-switches-branch", "§7.2, §5.2", "branch_summary moves the leaf to a new branch below e0000004; abandoned branch e0000005-e0000006",
        lines(s.header(), *e, n1, n2, bs, n3, n4))

s = Session("branch-summary-empty-marker")
e = basic(s)
n1 = s.user("e0000005", "e0000004", "Delete that answer.")
bs = s.entry("branch_summary", "e0000006", "e0000004", fromId="e0000004", summary="",
             details={"kind": "discarded-entry-branch", "discardedEntryId": "e0000005"})
fixture("branch-summary-empty-marker", "§7.2, §9", "empty-summary branch_summary marker (discarded-entry-branch) makes e0000004's branch the leaf",
        lines(s.header(), *e, n1, bs))

s = Session("branch-summary-root")
e = basic(s)
bs = s.entry("branch_summary", "e0000005", None, fromId="root", summary="Started over from the beginning.")
n1 = s.user("e0000006", "e0000005", "List the HTTP routes.")
fixture("branch-summary-root", "§5.2", "branch_summary with parentId null and fromId \"root\" (navigated to before the first entry)",
        lines(s.header(), *e, bs, n1))

s = Session("labels")
e = basic(s)
l1 = s.entry("label", "e0000005", "e0000004", targetId="e0000002", label="read-step")
l2 = s.entry("label", "e0000006", "e0000005", targetId="e0000004", label="answer")
l3 = s.entry("label", "e0000007", "e0000006", targetId="e0000002", label="renamed")
l4 = s.entry("label", "e0000008", "e0000007", targetId="e0000004")
l5 = s.entry("label", "e0000009", "e0000008", targetId="e0000001", label="")
l6 = s.entry("label", "e000000a", "e0000009", targetId="nosuchid", label="dangling")
n1 = s.user("e000000b", "e000000a", "Thanks.")
fixture("labels", "§7.5, §5.2", "label set, re-set, cleared (missing label, empty label), label on an unknown target; labels are tree nodes",
        lines(s.header(), *e, l1, l2, l3, l4, l5, l6, n1))

s = Session("every-entry-type")
recs = [
    s.entry("session_init", "e0000001", None, systemPrompt="You are omp...", task="Fix the flaky test", tools=["read", "edit", "bash"]),
    s.entry("model_change", "e0000002", "e0000001", model="anthropic/claude-sonnet-4-5", role="default", resolvedModelIsFallback=False),
    s.entry("thinking_level_change", "e0000003", "e0000002", thinkingLevel="high", configured="high"),
    s.entry("service_tier_change", "e0000004", "e0000003", serviceTier={"anthropic": "priority"}),
    s.entry("mode_change", "e0000005", "e0000004", mode="none"),
    s.entry("ttsr_injection", "e0000006", "e0000005", injectedRules=["no-sleep-in-tests"]),
    s.entry("credential_pin", "e0000007", "e0000006", provider="anthropic", hash="9f2c0d3b5e8a4c1f7b6d2e9a0c3f5b8d1e4a7c0f3b6d9e2a5c8f1b4d7e0a3c6f"),
]
e = basic(s, ids=("e0000008", "e0000009", "e000000a", "e000000b"), parent="e0000007")
tail = [
    s.entry("custom_message", "e000000c", "e000000b", customType="com.example.lint-hint", content="Run golangci-lint.", display=True, attribution="agent"),
    s.entry("custom", "e000000d", "e000000c", customType="tool_execution_start", data={"toolCallId": "toolu_09", "toolName": "bash", "startedAt": s.iso()}),
    s.entry("compaction", "e000000e", "e000000d", summary="## Goal\nFix TestWorker.", shortSummary="Fix TestWorker", firstKeptEntryId="e000000b", tokensBefore=48213, method="soft"),
    s.entry("title_change", "e000000f", "e000000e", title="Fix flaky test", source="auto", previousTitle=""),
    s.entry("reset_boundary", "e0000010", "e000000f"),
    s.entry("session_info", "e0000011", "e0000010", name="pi display name"),
    s.entry("some_future_type", "e0000012", "e0000011", payload={"x": 1}),
]
fixture("every-entry-type", "§5.2, §5.3", "one entry of every known type plus session_info and an unknown type, one chain",
        lines(s.header(), *recs, *e, *tail))

# =====================================================================
# records that make OMP's open throw (first section, §7.1, §6.4)
# =====================================================================

s = Session("message-without-message-v3")
e = basic(s)
fixture("message-without-message-v3", "first section, §7.1", "v3 message record with no message key",
        lines(s.header(), e[0], e[1], s.entry("message", "e0000005", "e0000002"), *e[2:]))

s = Session("message-without-message-v2")
e = basic(s)
fixture("message-without-message-v2", "first section, §4", "v2 file with a message record with no message key (v2->v3 reads its role)",
        lines(s.header(version=2), e[0], e[1], s.entry("message", "e0000005", "e0000002"), *e[2:]))

s = Session("message-null-message")
e = basic(s)
fixture("message-null-message", "first section", "v3 message record with \"message\":null",
        lines(s.header(), e[0], e[1], s.entry("message", "e0000005", "e0000002", message=None), *e[2:]))

s = Session("message-string-message")
e = basic(s)
fixture("message-string-message", "first section", "v3 message record with \"message\":\"hello\" (not an object)",
        lines(s.header(), e[0], e[1], s.entry("message", "e0000005", "e0000002", message="hello"), *e[2:]))

s = Session("message-without-role")
e = basic(s)
fixture("message-without-role", "§6.1", "v3 message record whose message object has no role",
        lines(s.header(), e[0], e[1], s.entry("message", "e0000005", "e0000002", message={"content": "orphan text", "timestamp": s.ms()}), *e[2:]))

s = Session("assistant-usage-without-cost")
e = basic(s)
e[3]["message"]["usage"] = s.usage(cost=False)
fixture("assistant-usage-without-cost", "first section, §6.4", "assistant message whose usage has no cost", lines(s.header(), *e))

s = Session("assistant-usage-cost-null")
e = basic(s)
e[3]["message"]["usage"]["cost"] = None
fixture("assistant-usage-cost-null", "first section, §6.4", "assistant usage with \"cost\":null", lines(s.header(), *e))

s = Session("assistant-usage-cost-without-total")
e = basic(s)
del e[3]["message"]["usage"]["cost"]["total"]
fixture("assistant-usage-cost-without-total", "§6.4", "assistant usage.cost without total", lines(s.header(), *e))

s = Session("assistant-without-usage")
e = basic(s)
del e[3]["message"]["usage"]
fixture("assistant-without-usage", "first section, §6.4", "assistant message with no usage at all (fine)", lines(s.header(), *e))

s = Session("assistant-usage-null")
e = basic(s)
e[3]["message"]["usage"] = None
fixture("assistant-usage-null", "first section, §6.4", "assistant message with \"usage\":null", lines(s.header(), *e))

s = Session("model-usage-without-cost")
e = basic(s)
fixture("model-usage-without-cost", "first section, §5.2", "model_usage record whose usage has no cost",
        lines(s.header(), *e, s.entry("model_usage", "e0000005", "e0000004", purpose="title", api="openai-completions",
                                      provider="local", model="tiny-title", usage=s.usage(300, 8, cost=False), stopReason="stop")))

s = Session("model-usage-without-usage")
e = basic(s)
fixture("model-usage-without-usage", "§5.2", "model_usage record with no usage key",
        lines(s.header(), *e, s.entry("model_usage", "e0000005", "e0000004", purpose="title", api="openai-completions",
                                      provider="local", model="tiny-title", stopReason="stop")))

s = Session("task-result-usage-without-cost")
e = basic(s)
t1 = s.assistant("e0000005", "e0000004", "Delegating.", tool=("task", {"agent": "explore", "task": "Find all sleeps"}))
t2 = s.tool_result("e0000006", "e0000005", "task", "Found 3 sleeps in tests.",
                   details={"usage": s.usage(5000, 300, cost=False)})
fixture("task-result-usage-without-cost", "first section, §7.1", "toolResult of tool task whose details.usage has no cost",
        lines(s.header(), *e, t1, t2))

s = Session("task-result-usage-with-cost")
e = basic(s)
t1 = s.assistant("e0000005", "e0000004", "Delegating.", tool=("task", {"agent": "explore", "task": "Find all sleeps"}))
t2 = s.tool_result("e0000006", "e0000005", "task", "Found 3 sleeps in tests.", details={"usage": s.usage(5000, 300)})
fixture("task-result-usage-with-cost", "§7.1", "toolResult of tool task with a full details.usage (control case)",
        lines(s.header(), *e, t1, t2))

s = Session("other-tool-usage-without-cost")
e = basic(s)
t1 = s.assistant("e0000005", "e0000004", "Running bash.", tool=("bash", {"command": "go test ./..."}))
t2 = s.tool_result("e0000006", "e0000005", "bash", "ok", details={"usage": s.usage(5000, 300, cost=False)})
fixture("other-tool-usage-without-cost", "§7.1", "toolResult of a non-task tool with details.usage lacking cost (not summed)",
        lines(s.header(), *e, t1, t2))

s = Session("user-usage-without-cost")
e = basic(s)
e[0]["message"]["usage"] = s.usage(cost=False)
fixture("user-usage-without-cost", "§7.1", "a user message carrying a usage object without cost (only assistant usage is summed)",
        lines(s.header(), *e))

# =====================================================================
# content
# =====================================================================

s = Session("unicode-heavy")
uq = s.user("e0000001", None, "日本語のテストが失敗します 🧪🔥 — why? Ünïcödé, עברית, العربية, 👩‍💻")
ua = s.assistant("e0000002", "e0000001", "Let me look at テスト.go 🔍", tool=("read", {"path": "テスト/ワーカー_test.go"}))
ut = s.tool_result("e0000003", "e0000002", "read", "// コメント: 待機\nfunc Test日本語(t *testing.T) { t.Log(\"✅ 𝄞 \u0000\") }")
uz = s.assistant("e0000004", "e0000003", "PLACEHOLDER_ESCAPES")
txt = lines(s.header(title="ユニコード 🧪", titleSource="user"), uq, ua, ut, uz)
# escapes Python would not emit: lone surrogate, U+2028/2029 escaped and raw, \/ and \u00e9
txt = txt.replace('"PLACEHOLDER_ESCAPES"',
                  '"lone \\ud800 surrogate, pair \\ud83d\\ude00, escaped \\u2028 and \\u2029, slash \\/, \\u00e9, low \\udc00 alone"')
fixture("unicode-heavy", "§2.4, §6", "CJK, RTL, emoji (ZWJ), astral chars, escaped NUL; lone surrogate escapes \\ud800/\\udc00, escaped U+2028/U+2029, \\/", txt)

s = Session("raw-line-separators")
e = basic(s)
e[3]["message"]["content"][0]["text"] = "raw U+2028 [\u2028] and U+2029 [\u2029] and NEL [\u0085] inside a string"
e[0]["message"]["content"] = "a raw CR [\r] inside a string, escaped by JSON"
fixture("raw-line-separators", "§2.4", "raw (unescaped) U+2028, U+2029 and U+0085 inside JSON strings: not line breaks for OMP",
        lines(s.header(), *e))

s = Session("unicode-ids")
a = s.user("ид-1", None, "Ids may be any string.")
b = s.assistant("🧪", "ид-1", "Emoji id.")
c = s.user("e\u0301", "🧪", "Combining-accent id (e + U+0301).")
d = s.assistant("é", "e\u0301", "Precomposed é id: different string from e+U+0301.")
fixture("unicode-ids", "§5.1, §7.3", "non-ASCII ids (Cyrillic, emoji, NFD vs NFC é): compared as exact strings", lines(s.header(), a, b, c, d))

s = Session("large-multiline-value")
e = basic(s)
long_text = "\n".join(f"Step {i}: checked worker_{i:03d}.go — no sleep found; moving on to the next file in the package." for i in range(60))
big = s.assistant("e0000005", "e0000004", long_text, tool=("bash", {"command": "grep -rn 'time.Sleep' ./..."}))
big_txt = json.dumps(big, indent=2, ensure_ascii=False)
assert len(big_txt) > 6000
res = s.tool_result("e0000006", "e0000005", "bash", "worker_test.go:12:\ttime.Sleep(10 * time.Millisecond)", details={"exitCode": 0})
fixture("large-multiline-value", "§2.4", "a ~7 KB assistant record pretty-printed over ~40 lines, between normal lines",
        lines(s.header(), *e, big_txt, res))

s = Session("large-single-line-value")
e = basic(s)
big = s.tool_result("e0000005", "e0000004", "read", "x" * 70000 + "\nEND")
fixture("large-single-line-value", "§2.4", "one ~70 KB line (a big tool result) followed by a normal line",
        lines(s.header(), *e, big, s.user("e0000006", "e0000005", "That is a long file.")))

# =====================================================================
# added after the first oracle run: text-vs-stream and Go-reader pitfalls
# =====================================================================

for nm, val in [("string", '"a string line"'), ("true", "true")]:
    s = Session("v1-" + nm + "-line")
    body = v1_body(s)
    fixture("v1-" + nm + "-line", "§4, first section", f"v1 file with a bare {val} line (assigning .id to a primitive)",
            lines(s.v1_header(), body[0], val, body[1]))

s = Session("torn-last-line-structural-cut")
e = basic(s)
full = j(e[3])
fixture("torn-last-line-structural-cut", "§2.4", "last line cut right after '\"content\":[' with no final \\n (incomplete, not a syntax error)",
        lines(s.header(), e[0], e[1], e[2]) + full[: full.index('"content":[') + len('"content":[')])

s = Session("torn-last-line-structural-cut-newline")
e = basic(s)
full = j(e[3])
fixture("torn-last-line-structural-cut-newline", "§2.4", "last line cut right after '\"content\":[' followed by \\n",
        lines(s.header(), e[0], e[1], e[2], full[: full.index('"content":[') + len('"content":[')]))

s = Session("title-slot-leading-nbsp")
fixture("title-slot-leading-nbsp", "§2.2", "U+00A0 (NBSP, 2 bytes) before the slot object on line 1",
        "\u00a0" + slot("NBSP before slot", "user", total=254) + lines(s.header(), *basic(s)))

s = Session("title-slot-trailing-nbsp")
fixture("title-slot-trailing-nbsp", "§2.2", "U+00A0 (NBSP) after the slot object, before the \\n",
        slot("NBSP after slot", "user", total=256, eol="\u00a0\n") + lines(s.header(), *basic(s)))

s = Session("title-slot-long-line")
fixture("title-slot-long-line", "§2.2", "valid slot line of 300 bytes (more than 256): byte length not checked",
        slot("Long slot", "auto", total=300) + lines(s.header(), *basic(s)))

s = Session("title-slot-extra-keys")
o = {"type": "title", "v": 1, "title": "Extra keys", "source": "user", "updatedAt": "2026-09-01T10:30:00.000Z",
     "future": {"x": 1}, "pad": "    "}
fixture("title-slot-extra-keys", "§2.2", "slot object with an unknown extra key",
        lines(o, s.header(), *basic(s)))

s = Session("double-bom")
fixture("double-bom", "§2.4", "two UTF-8 BOMs before the header (no slot)",
        b"\xef\xbb\xbf\xef\xbb\xbf" + lines(s.header(), *basic(s)).encode())

s = Session("title-slot-after-double-bom")
fixture("title-slot-after-double-bom", "§2.2, §2.4", "two UTF-8 BOMs, then a valid slot, header and entries",
        b"\xef\xbb\xbf\xef\xbb\xbf" + (slot("Double BOM slot", "user") + lines(s.header(), *basic(s))).encode())

s = Session("bom-before-second-line")
e = basic(s)
fixture("bom-before-second-line", "§2.4", "a U+FEFF (BOM bytes) at the start of line 3, not of the file",
        (lines(s.header(), e[0]) + "\ufeff" + lines(e[1], e[2], e[3])))

s = Session("invalid-utf8")
e = basic(s)
e[1]["id"] = "e00000@2"
e[2]["parentId"] = "e00000@2"
e[3]["message"]["content"][0]["text"] = "bad bytes: [@] [@@] end"
raw = lines(s.header(), *e).encode()
raw = raw.replace(b'"id":"e00000@2"', b'"id":"e00000\xff2"').replace(b'"parentId":"e00000@2"', b'"parentId":"e00000\xfe2"').replace(b"[@]", b"[\xc3]").replace(b"[@@]", b"[\xed\xa0\x80]")
fixture("invalid-utf8", "§2.4", "invalid UTF-8 bytes: id \"e00000\\xff2\" referenced by parentId \"e00000\\xfe2\" (both decode to U+FFFD), a truncated 2-byte sequence and a CESU surrogate in text", raw)

s = Session("unicode-whitespace-lines")
e = basic(s)
fixture("unicode-whitespace-lines", "§2.4", "lines holding only NBSP, form feed, vertical tab, U+FEFF, U+2028, U+3000 between records",
        lines(s.header(), e[0], "\u00a0", e[1], "\f", "\v", e[2], "\ufeff", "\u2028", "\u3000", e[3]))

s = Session("cr-only-line-endings")
fixture("cr-only-line-endings", "§2.4", "records separated by bare \\r (old Mac line ends), final \\n",
        lines(s.header(), *basic(s), eol="\r", final=False) + "\n")

s = Session("raw-tab-in-string")
e = basic(s)
fixture("raw-tab-in-string", "§2.4", "a raw (unescaped) TAB character inside a JSON string (invalid JSON)",
        lines(s.header(), e[0], e[1], e[2]).replace("\\t", "\t") + lines(e[3]))

s = Session("raw-nul-line")
e = basic(s)
fixture("raw-nul-line", "§2.4", "a line holding a single raw NUL byte, and a raw NUL inside a string",
        lines(s.header(), e[0], "\x00", e[1], e[2]) + lines(e[3]).replace("Let", "L\x00et").replace("It sleeps", "It\x00sleeps"))

s = Session("duplicate-json-keys")
e = basic(s)
d = j(e[3]).replace('"id":"e0000004","parentId":"e0000003"', '"id":"dupA","parentId":"nowhere","id":"e0000004","parentId":"e0000003"')
fixture("duplicate-json-keys", "§2.4, §7.3", "a record with the keys id and parentId each written twice: the last occurrence wins (JSON.parse)",
        lines(s.header(), e[0], e[1], e[2], d))

s = Session("ids-number-formats")
a = s.user("e0000001", None, "Root.")
b = '{"type":"message","id":1.0,"parentId":"e0000001","timestamp":"2026-09-01T10:00:06.000Z","message":{"role":"user","content":"id written as 1.0","timestamp":1788256806000}}'
c = '{"type":"message","id":1e2,"parentId":1,"timestamp":"2026-09-01T10:00:09.000Z","message":{"role":"user","content":"id 1e2, parentId 1","timestamp":1788256809000}}'
d = '{"type":"message","id":"e0000004","parentId":100,"timestamp":"2026-09-01T10:00:12.000Z","message":{"role":"user","content":"parentId 100","timestamp":1788256812000}}'
fixture("ids-number-formats", "first section, §7.3", "numeric ids written 1.0 and 1e2, referenced as 1 and 100: compared as numbers, not as text",
        lines(s.header(), a, b, c, d))

s = Session("ids-number-precision")
a = s.user("e0000001", None, "Root.")
b = '{"type":"message","id":9007199254740993,"parentId":"e0000001","timestamp":"2026-09-01T10:00:06.000Z","message":{"role":"user","content":"id 2^53+1","timestamp":1788256806000}}'
c = '{"type":"message","id":"e0000003","parentId":9007199254740992,"timestamp":"2026-09-01T10:00:09.000Z","message":{"role":"user","content":"parentId 2^53","timestamp":1788256809000}}'
fixture("ids-number-precision", "first section, §7.3", "numeric id 9007199254740993 referenced as 9007199254740992 (equal as float64)",
        lines(s.header(), a, b, c))

s = Session("ids-escaped-equal")
a = s.user("e0000001", None, "Root.")
b = s.assistant("e0000002", "e0000001", "Id spelled plainly.")
c = j(s.user("e0000003", "e0000002", "parentId spelled with \\u escapes.")).replace('"parentId":"e0000002"', '"parentId":"\\u0065\\u0030000002"')
fixture("ids-escaped-equal", "§7.3", "parentId written as \"\\u0065\\u0030000002\" (= \"e0000002\"): ids compare after unescaping",
        lines(s.header(), a, b, c))

s = Session("parentid-zero")
a = s.user("e0000001", None, "Root.")
b = s.assistant(0, "e0000001", "Numeric id 0.")
c = s.user("e0000003", 0, "parentId 0 (a falsy number).")
fixture("parentid-zero", "§7.3", "a record with id 0 (number) exists; the leaf's parentId is 0",
        lines(s.header(), a, b, c))

s = Session("leaf-id-zero")
a = s.user("e0000001", None, "Root.")
b = s.assistant("e0000002", "e0000001", "Answer.")
c = s.user(0, "e0000002", "Last record has id 0 (number).")
fixture("leaf-id-zero", "§7.1, §7.3", "the last record has id 0 (a falsy number)", lines(s.header(), a, b, c))

s = Session("leaf-id-false")
a = s.user("e0000001", None, "Root.")
b = s.assistant("e0000002", "e0000001", "Answer.")
c = s.user(False, "e0000002", "Last record has id false.")
fixture("leaf-id-false", "§7.1, §7.3", "the last record has id false", lines(s.header(), a, b, c))

s = Session("parentid-missing-resolves-idless")
a = s.user("e0000001", None, "Root.")
b = s.user(MISSING, "e0000001", "A record without an id key.")
c = s.assistant("e0000003", MISSING, "No parentId key: does the walk attach to the id-less record?")
fixture("parentid-missing-resolves-idless", "§7.3, §7.4", "an id-less record exists; the leaf has no parentId key",
        lines(s.header(), a, b, c))

s = Session("ids-lone-surrogates")
a = j(s.user("@A", None, "id is a lone high surrogate \\ud800.")).replace('"@A"', '"\\ud800"')
b = j(s.user("@B", None, "id is a lone low surrogate \\udc00.")).replace('"@B"', '"\\udc00"')
c = j(s.assistant("e0000003", "@A", "parentId is the lone high surrogate.")).replace('"@A"', '"\\ud800"')
fixture("ids-lone-surrogates", "§7.3", "ids \"\\ud800\" and \"\\udc00\" (lone surrogates, distinct JS strings; both U+FFFD after Go's decoding); leaf's parentId is \"\\ud800\"",
        lines(s.header(), a, b, c))

s = Session("nel-line")
e = basic(s)
fixture("nel-line", "§2.4", "a line holding only U+0085 (NEL, not whitespace for JS or JSON) between records",
        lines(s.header(), e[0], e[1], "\u0085", e[2], e[3]))

s = Session("invalid-utf8-truncated-sequence")
a = s.user("e0000001", None, "Root.")
b = s.assistant("e@@X", "e0000001", "id holds a truncated 3-byte sequence E2 82.")
c = s.user("e0000003", "e@X", "parentId holds the single invalid byte FF.")
raw = lines(s.header(), a, b, c).encode()
raw = raw.replace(b'"id":"e@@X"', b'"id":"e\xe2\x82X"').replace(b'"parentId":"e@X"', b'"parentId":"e\xffX"')
fixture("invalid-utf8-truncated-sequence", "§2.4, §7.3", "id \"e\\xe2\\x82X\" (truncated sequence: one U+FFFD for OMP, two for Go) referenced by parentId \"e\\xffX\" (one U+FFFD)", raw)

# =====================================================================
# write
# =====================================================================

os.makedirs(OUT, exist_ok=True)
manifest = {}
for name, (data, section, rule) in FIXTURES.items():
    with open(os.path.join(OUT, name + ".jsonl"), "wb") as f:
        f.write(data)
    manifest[name] = {"section": section, "rule": rule, "bytes": len(data)}
with open(os.path.join(OUT, "fixtures.json"), "w") as f:
    json.dump(manifest, f, indent=2, ensure_ascii=False)
    f.write("\n")
print(f"wrote {len(FIXTURES)} fixtures to {OUT}")
