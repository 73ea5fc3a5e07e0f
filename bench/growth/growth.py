#!/usr/bin/env python3
"""The cost-growth table: one row of docs/BENCHMARKS.md per archive.

Usage: growth.py MEMIDX WORKDIR ARCHIVE... [--rare TERM] [--common TERM]

Each ARCHIVE is an agent directory made by `memidx gen` (sessions/ inside).
For each it measures, on a fresh index under WORKDIR (never inside the
archive):
  - rebuild --scope global: wall and CPU seconds, MB/s, peak RSS;
  - index file / source bytes;
  - the stat floor, `find sessions -type f -printf '%s %T@ %i'`;
  - a one-shot recall alone (--no-server) of a rare term and of the rare
    term with a common one: median time, ratio to the floor, peak RSS;
  - `rg -c -F` of the rare term over the same files;
  - `serve --stdio` as a host sees it (request written to answer read),
    p50/p99 of 60 calls after 10 warm-ups, and the server's peak RSS;
    then the p50 of 20 calls each made just after a turn was appended to
    the newest session (put back after), as a host's own session grows,
    and the server's peak RSS after those; and both again for a host whose
    live session (--live-session) is that newest one, as OMP's is;
  - the one-shot recall answered by a running `serve --socket`.
Needs hyperfine and rg (apt-get install hyperfine ripgrep) and GNU time.
Prints one JSON object per archive and a Markdown table at the end.
"""
import json, os, shutil, subprocess, sys, tempfile, time


def args():
    a = sys.argv[1:]
    opts = {"--rare": "zqxaaaaaa", "--common": "error", "--runs": "10"}
    pos = []
    while a:
        x = a.pop(0)
        if x in opts:
            opts[x] = a.pop(0)
        else:
            pos.append(x)
    if len(pos) < 3:
        sys.exit(__doc__)
    return pos[0], pos[1], pos[2:], opts


def timed(cmd):
    """Run cmd under GNU time; return (stdout, wall s, cpu s, peak RSS bytes)."""
    with tempfile.NamedTemporaryFile("r") as f:
        out = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", f.name] + cmd,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
        wall, user, sys_, kb = f.read().split()[-4:]
    return out, float(wall), float(user) + float(sys_), int(kb) * 1024


def hyperfine(cmds, runs):
    """Median seconds of each shell command, run in turn by hyperfine."""
    with tempfile.NamedTemporaryFile("r", suffix=".json") as f:
        subprocess.run(["hyperfine", "-N", "--warmup", "2", "--runs", runs, "--export-json", f.name] + cmds,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        return [r["median"] for r in json.load(f)["results"]]


def serve_latency(base, terms, grown=None, live=False):
    """p50/p99 ms per query and the server's peak RSS, through serve --stdio.

    With grown (a session file), also the p50 of a call of the first term
    made 50 ms after a turn was appended to that file, as a host's own
    session grows between its calls (out["grown"]); the file's bytes and
    times are put back after. With live, the server is a host's whose live
    session is grown (--live-session), as OMP's is.
    """
    flags = ["--live-session", grown] if live else []
    p = subprocess.Popen(base + ["serve", "--stdio", "--no-socket"] + flags, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, bufsize=-1)
    n = 0

    def call(q):
        nonlocal n
        n += 1
        req = {"jsonrpc": "2.0", "id": n, "method": "memory.recall",
               "params": {"query": q, "scope": "global"}}
        t = time.perf_counter()
        p.stdin.write((json.dumps(req) + "\n").encode())
        p.stdin.flush()
        while True:
            m = json.loads(p.stdout.readline())
            if m.get("id") == n:
                break
        assert m.get("result", {}).get("total", 0) > 0, m
        return (time.perf_counter() - t) * 1000

    def hwm():
        with open("/proc/%d/status" % p.pid) as f:
            return int([l for l in f if l.startswith("VmHWM")][0].split()[1]) * 1024

    out = {}
    for q in terms:
        ds = sorted([call(q) for _ in range(70)][10:])
        out[q] = (ds[len(ds) // 2], ds[int(len(ds) * 0.99)])
    quiet = hwm()
    if grown:
        st, orig = os.stat(grown), open(grown, "rb").read()
        ds = []
        try:
            for k in range(20):
                with open(grown, "ab") as f:
                    f.write(('{"type":"message","id":"grow%04d","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z",'
                             '"message":{"role":"user","content":"one more turn %d"}}\n' % (k, k)).encode())
                time.sleep(0.05)
                ds.append(call(terms[0]))
        finally:
            with open(grown, "wb") as f:
                f.write(orig)
            os.utime(grown, ns=(st.st_atime_ns, st.st_mtime_ns))
        ds.sort()
        out["grown"] = (ds[len(ds) // 2], ds[-1])
        out["grownRSS"] = hwm()
    p.stdin.close()
    p.wait()
    return out, quiet


def newest_session(sessions):
    """The session file written last: an agent's own, growing."""
    best = (0, None)
    for d in os.scandir(sessions):
        if d.is_dir():
            for f in os.scandir(d.path):
                if f.name.endswith(".jsonl") and f.is_file():
                    best = max(best, (f.stat().st_mtime_ns, f.path))
    return best[1]


def with_socket_server(base, fn):
    """Run fn while a `serve --socket` of the same index answers shells."""
    p = subprocess.Popen(base + ["serve", "--socket"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):  # wait until the socket answers
            if subprocess.run(base + ["sessions", "--scope", "global", "--limit", "1"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0 \
                    and os.path.exists(os.path.join(base[-1], "memidx.sock")):
                break
            time.sleep(0.1)
        return fn()
    finally:
        p.terminate()
        p.wait()


def measure(memidx, work, archive, o):
    name = os.path.basename(os.path.normpath(archive))
    ix = os.path.join(work, name)
    shutil.rmtree(ix, ignore_errors=True)
    os.makedirs(ix)
    base = [memidx, "--agent-dir", archive, "--index-dir", ix]
    out, wall, cpu, rss = timed(base + ["rebuild", "--scope", "global"])
    src = json.loads(out)["bytesRead"]
    files = json.loads(out)["seen"]
    rare, two = o["--rare"], o["--rare"] + " " + o["--common"]
    sessions = os.path.join(archive, "sessions")
    q = lambda t: " ".join([memidx, "--agent-dir", archive, "--index-dir", ix, "--no-server",
                            "recall", "'%s'" % t, "--scope", "global"])
    floor, r_rare, r_two, rg = hyperfine([
        "find %s -type f -printf '%%s %%T@ %%i\\n'" % sessions, q(rare), q(two),
        "rg -c -F %s %s" % (rare, sessions)], o["--runs"])
    _, _, _, rss_one = timed(base + ["--no-server", "recall", rare, "--scope", "global"])
    lat, serve_rss = serve_latency(base, [rare, two], newest_session(sessions))
    live, _ = serve_latency(base, [rare], newest_session(sessions), live=True)
    sock = with_socket_server(base, lambda: hyperfine(
        [q(rare).replace(" --no-server", ""), q(two).replace(" --no-server", "")], o["--runs"]))
    row = dict(archive=name, files=files, sourceBytes=src,
               rebuildSeconds=wall, rebuildCPUSeconds=cpu, rebuildMBps=src / wall / 1e6, rebuildRSS=rss,
               indexRatio=os.path.getsize(os.path.join(ix, "index.db")) / src,
               floorMs=floor * 1e3, recallRareMs=r_rare * 1e3, recallTwoMs=r_two * 1e3,
               recallRSS=rss_one, rgMs=rg * 1e3,
               serveRare=lat[rare], serveTwo=lat[two], serveRSS=serve_rss, serveGrown=lat["grown"], serveGrownRSS=lat["grownRSS"],
               serveLiveRare=live[rare], serveLiveGrown=live["grown"],
               socketRareMs=sock[0] * 1e3, socketTwoMs=sock[1] * 1e3)
    print(json.dumps(row), flush=True)
    return row


def table(rows):
    mb = lambda b: "%.0f MiB" % (b / 2**20)
    print("| archive | files | source | index ÷ source | rebuild | rebuild RSS | floor | one-shot rare / two | ÷ floor | one-shot RSS | `rg -c -F` | serve p50 (p99) rare / two | serve RSS | serve after a session grew, p50 (max), peak RSS | a host with a live session: rare p50 (p99), after it grew p50 (max) | with a server: rare / two |")
    print("|" + "---|" * 16)
    for r in rows:
        print("| %s | %d | %.2f GB | %.3f | %.0f s (%.0f MB/s) | %s | %.0f ms | %.0f / %.0f ms | %.2f / %.2f× | %s | %.0f ms | %.2f (%.2f) / %.2f (%.2f) ms | %s | %.1f (%.1f) ms, %s | %.2f (%.2f) ms, %.1f (%.1f) ms | %.1f / %.1f ms |" % (
            r["archive"], r["files"], r["sourceBytes"] / 1e9, r["indexRatio"],
            r["rebuildSeconds"], r["rebuildMBps"], mb(r["rebuildRSS"]), r["floorMs"],
            r["recallRareMs"], r["recallTwoMs"], r["recallRareMs"] / r["floorMs"], r["recallTwoMs"] / r["floorMs"],
            mb(r["recallRSS"]), r["rgMs"], r["serveRare"][0], r["serveRare"][1], r["serveTwo"][0], r["serveTwo"][1],
            mb(r["serveRSS"]), r["serveGrown"][0], r["serveGrown"][1], mb(r["serveGrownRSS"]),
            r["serveLiveRare"][0], r["serveLiveRare"][1], r["serveLiveGrown"][0], r["serveLiveGrown"][1],
            r["socketRareMs"], r["socketTwoMs"]))


if __name__ == "__main__":
    memidx, work, archives, o = args()
    table([measure(memidx, work, a, o) for a in archives])
