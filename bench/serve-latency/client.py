#!/usr/bin/env python3
# Latency of memory.recall through `memidx serve --stdio`, measured as a host
# sees it: request written to response read. Usage:
#   client.py MEMIDX AGENT_DIR INDEX_DIR
# Prints p50 and p99 over 60 calls (after 10 warm-up calls) of a rare term
# and of a rare + common term (the `memidx gen` archives plant zqxaaabic).
import json, subprocess, sys, time
binary, agent, ix = sys.argv[1:4]
p = subprocess.Popen([binary, '--agent-dir', agent, '--index-dir', ix, 'serve', '--stdio'], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=-1)
def call(i, q):
    req = json.dumps({"jsonrpc": "2.0", "id": i, "method": "memory.recall", "params": {"query": q, "scope": "global"}}) + "\n"
    t = time.perf_counter()
    p.stdin.write(req.encode()); p.stdin.flush()
    while True:
        line = p.stdout.readline()
        m = json.loads(line)
        if m.get("id") == i:
            return (time.perf_counter() - t) * 1000, m
n = 0
for q in ["zqxaaabic", "zqxaaabic error"]:
    ds = []
    for k in range(70):
        n += 1
        d, m = call(n, q)
        assert "result" in m and m["result"]["total"] > 0, m
        if k >= 10:
            ds.append(d)
    ds.sort()
    print("%s %r p50 %.2f ms p99 %.2f ms" % (agent, q, ds[len(ds)//2], ds[int(len(ds)*0.99)]))
p.stdin.close(); p.wait()
