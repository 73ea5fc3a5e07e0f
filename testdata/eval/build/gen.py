#!/usr/bin/env python3
"""Writes the eval set's OMP v3 session files and questions.jsonl.

The sessions and questions are in content.py; this file only turns them into
the on-disk format (title slot, header, entries with ids, parentIds,
timestamps, usage) and resolves each question's evidence keys to the
(sessionId, entryId) of the entry that carries the key. Output is
deterministic: ids come from a hash of the session name and the entry's
position, so running it again rewrites the same bytes.

Run from the repository root:  python3 testdata/eval/build/gen.py
The set is frozen: see ../README.md before running it again.
"""

import hashlib
import json
import os
import sys
from datetime import datetime, timedelta, timezone

sys.path.insert(0, os.path.dirname(__file__))
import content  # noqa: E402

ROOT = os.path.join(os.path.dirname(__file__), "..")
MODEL = "claude-sonnet-4-5"


def hexof(*parts, n=8):
    return hashlib.sha1("/".join(parts).encode()).hexdigest()[:n]


def uuid7(name):
    h = hexof("session", name, n=32)
    return f"{h[0:8]}-{h[8:12]}-7{h[13:16]}-8{h[17:20]}-{h[20:32]}"


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def ms(t):
    return int(t.timestamp() * 1000)


def title_slot(title, at):
    obj = {"type": "title", "v": 1, "title": title, "source": "auto",
           "updatedAt": at, "pad": ""}
    line = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    obj["pad"] = " " * (255 - len(line.encode()))
    out = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    assert len(out.encode()) == 255, len(out.encode())
    return out


def usage(inp, out):
    ci, co = inp * 3e-6, out * 15e-6
    return {"input": inp, "output": out, "cacheRead": 0, "cacheWrite": 0,
            "totalTokens": inp + out,
            "cost": {"input": round(ci, 6), "output": round(co, 6),
                     "cacheRead": 0, "cacheWrite": 0,
                     "total": round(ci + co, 6)}}


class Writer:
    """Appends entries to one session, each a child of the current leaf."""

    def __init__(self, s):
        self.s = s
        self.sid = uuid7(s["name"])
        self.t = datetime.fromisoformat(s["start"]).replace(tzinfo=timezone.utc)
        self.lines = []
        self.leaf = None
        self.n = 0
        self.keys = {}
        self.pending = []  # tool calls awaiting a result, in order
        self.tokens = 1800

    def tick(self, sec):
        self.t += timedelta(seconds=sec)

    def entry(self, obj, key=None):
        self.n += 1
        eid = hexof(self.s["name"], str(self.n))
        rec = {"type": obj.pop("type"), "id": eid, "parentId": self.leaf,
               "timestamp": iso(self.t)}
        rec.update(obj)
        self.lines.append(rec)
        self.leaf = eid
        if key:
            assert key not in self.keys and key not in ALLKEYS, key
            self.keys[key] = eid
            ALLKEYS[key] = (self.sid, eid)
        return eid

    def message(self, msg, key=None):
        msg["timestamp"] = ms(self.t)
        return self.entry({"type": "message", "message": msg}, key)

    def user(self, text, key=None, blocks=True):
        self.tick(40)
        body = [{"type": "text", "text": text}] if blocks else text
        return self.message({"role": "user", "content": body}, key)

    def assistant(self, text=None, calls=(), thinking=None, key=None):
        self.tick(9)
        parts = []
        if thinking:
            parts.append({"type": "thinking", "thinking": thinking,
                          "thinkingSignature": "sig-" + hexof(thinking, n=12)})
        if text:
            parts.append({"type": "text", "text": text})
        for tool, args in calls:
            cid = "toolu_" + hexof(self.s["name"], "call", str(self.n), tool, n=20)
            parts.append({"type": "toolCall", "id": cid, "name": tool,
                          "arguments": args})
            self.pending.append((cid, tool))
        self.tokens += 400 + len(text or "") // 3
        out = 40 + len(text or "") // 4 + 30 * len(calls)
        return self.message({
            "role": "assistant", "content": parts, "api": "anthropic-messages",
            "provider": "anthropic", "model": MODEL,
            "usage": usage(self.tokens, out),
            "stopReason": "toolUse" if calls else "stop"}, key)

    def result(self, text, error=False, key=None, details=None):
        self.tick(3)
        cid, tool = self.pending.pop(0)
        if details is None:
            details = {"exitCode": 1 if error else 0} if tool == "bash" else {}
        return self.message({
            "role": "toolResult", "toolCallId": cid, "toolName": tool,
            "content": [{"type": "text", "text": text}], "details": details,
            "isError": error}, key)

    def bash_exec(self, command, output, code=0, key=None):
        self.tick(20)
        return self.message({"role": "bashExecution", "command": command,
                             "output": output, "exitCode": code,
                             "cancelled": False, "truncated": False}, key)

    def branch(self, to_key, summary):
        """Goes back to the entry of to_key with a branch summary."""
        self.tick(30)
        self.leaf = self.keys[to_key]
        self.entry({"type": "branch_summary", "fromId": self.leaf,
                    "summary": summary,
                    "details": {"readFiles": [], "modifiedFiles": []},
                    "fromExtension": False})

    def compaction(self, summary, first_kept_key):
        self.tick(5)
        self.entry({"type": "compaction", "summary": summary,
                    "shortSummary": summary.split("\n")[0][:60],
                    "firstKeptEntryId": self.keys[first_kept_key],
                    "tokensBefore": self.tokens})


ALLKEYS = {}


def write_session(s):
    w = Writer(s)
    header_t = w.t
    w.tick(1)
    w.entry({"type": "session_init", "systemPrompt": "You are omp, a coding agent.",
             "task": s["title"], "tools": ["read", "edit", "write", "bash", "grep"]})
    w.entry({"type": "model_change", "model": "anthropic/" + MODEL, "role": "default"})
    w.entry({"type": "thinking_level_change", "thinkingLevel": "medium",
             "configured": "medium"})
    for step in s["steps"]:
        kind, args, kw = step[0], step[1:-1], step[-1]
        getattr(w, kind)(*args, **kw)
    assert not w.pending, (s["name"], w.pending)
    header = {"type": "session", "version": 3, "id": w.sid,
              "timestamp": iso(header_t), "cwd": s["cwd"], "title": s["title"],
              "titleSource": "auto"}
    bucket = s["bucket"]
    stamp = iso(header_t).replace(":", "-").replace(".", "-")
    d = os.path.join(ROOT, "sessions", bucket)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, f"{stamp}_{w.sid}.jsonl")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(title_slot(s["title"], iso(w.t)) + "\n")
        for rec in [header] + w.lines:
            f.write(json.dumps(rec, separators=(",", ":"), ensure_ascii=False) + "\n")
    return w.sid, len(w.lines), os.path.relpath(path, ROOT)


def main():
    rows = []
    for s in content.SESSIONS:
        rows.append(write_session(s))
    with open(os.path.join(ROOT, "questions.jsonl"), "w", encoding="utf-8") as f:
        for q in content.QUESTIONS:
            query, keys = q[0], q[1]
            line = {"query": query,
                    "expected": [{"sessionId": ALLKEYS[k][0], "entryId": ALLKEYS[k][1]}
                                 for k in keys]}
            if len(q) > 2:
                line["note"] = q[2]
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
    for sid, n, path in rows:
        print(f"{n:3d} entries  {path}")
    print(f"{len(content.QUESTIONS)} questions,",
          sum(1 for q in content.QUESTIONS if not q[1]), "must-abstain")


if __name__ == "__main__":
    main()
