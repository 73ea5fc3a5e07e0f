// Latency of a warm rare-term recall through `memidx serve --stdio` and
// through `memidx mcp`, from one Node harness: the same line client writes
// the request and times it until the answer's line is read and parsed.
// Not run by CI (it needs a generated archive and minutes):
//   memidx gen --out DIR --sessions 10000
//   memidx --agent-dir A --session-dir DIR/sessions --index-dir IX rebuild --scope global
//   node latency.mjs MEMIDX [--calls N] [--runs N] [--query Q] -- GLOBAL FLAGS…
// Prints each run's median and p99 per server, runs alternating, and the
// medians of the runs' medians.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const argv = process.argv.slice(2);
const bin = argv.shift();
const opt = { calls: 1000, runs: 5, warm: 50, query: "zqxaaabic" };
while (argv.length && argv[0] !== "--") {
  const k = argv.shift().replace(/^--/, "");
  opt[k] = k === "query" ? argv.shift() : Number(argv.shift());
}
const flags = argv.slice(1);

// lineClient starts a server and returns call(msg) → the answer to msg.id.
function lineClient(args) {
  const child = spawn(bin, [...flags, ...args], { stdio: ["pipe", "pipe", "inherit"] });
  const waiting = new Map();
  createInterface({ input: child.stdout, crlfDelay: Infinity }).on("line", (line) => {
    const msg = JSON.parse(line);
    const w = waiting.get(msg.id);
    if (w) { waiting.delete(msg.id); w(msg); }
  });
  let id = 0;
  const call = (method, params) => new Promise((resolve) => {
    const i = ++id;
    waiting.set(i, resolve);
    child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: i, method, params }) + "\n");
  });
  const close = () => new Promise((r) => { child.on("exit", r); child.stdin.end(); });
  return { call, close, child };
}

const servers = {
  serve: {
    args: ["serve", "--stdio"],
    open: async () => {},
    recall: (c) => c.call("memory.recall", { query: opt.query, scope: "global" }),
    total: (m) => m.result.total,
  },
  mcp: {
    args: ["mcp"],
    open: async (c) => {
      await c.call("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "latency", version: "1" } });
      c.child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
    },
    recall: (c) => c.call("tools/call", { name: "memory_recall", arguments: { query: opt.query, scope: "global" } }),
    total: (m) => m.result.structuredContent.total,
  },
};

async function run(name) {
  const s = servers[name];
  const c = lineClient(s.args);
  await s.open(c);
  for (let i = 0; i < opt.warm; i++) await s.recall(c);
  const ms = [];
  for (let i = 0; i < opt.calls; i++) {
    const t = process.hrtime.bigint();
    const m = await s.recall(c);
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (!(s.total(m) > 0)) throw new Error(`${name}: no hit for ${opt.query}: ${JSON.stringify(m).slice(0, 300)}`);
  }
  await c.close();
  ms.sort((a, b) => a - b);
  return { p50: ms[Math.floor(ms.length / 2)], p99: ms[Math.floor(ms.length * 0.99)] };
}

const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results = { serve: [], mcp: [] };
for (let r = 0; r < opt.runs; r++) {
  for (const name of r % 2 ? ["mcp", "serve"] : ["serve", "mcp"]) {
    const x = await run(name);
    results[name].push(x);
    console.log(`run ${r + 1} ${name.padEnd(5)} p50 ${x.p50.toFixed(3)} ms  p99 ${x.p99.toFixed(3)} ms`);
  }
}
const summary = {};
for (const name of Object.keys(results)) {
  summary[name] = { p50: med(results[name].map((x) => x.p50)), p99: med(results[name].map((x) => x.p99)) };
}
const diff = summary.mcp.p50 - summary.serve.p50;
console.log(`median of ${opt.runs} runs of ${opt.calls} calls: serve ${summary.serve.p50.toFixed(3)} ms, mcp ${summary.mcp.p50.toFixed(3)} ms, mcp - serve ${diff.toFixed(3)} ms`);
console.log(JSON.stringify({ query: opt.query, calls: opt.calls, runs: opt.runs, summary, diffMs: diff }));
