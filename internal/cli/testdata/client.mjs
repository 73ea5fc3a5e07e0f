// A memidx serve client with Node's built-ins only (README, "Serve protocol").
// node client.mjs MEMIDX [GLOBAL FLAGS…] QUERY
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const [bin, ...flags] = process.argv.slice(2), query = flags.pop();
const child = spawn(bin, [...flags, "serve", "--stdio"], { stdio: ["pipe", "pipe", "inherit"] });
const pending = new Map();
let lastId = 0;
createInterface({ input: child.stdout }).on("line", (line) => {
  const msg = JSON.parse(line);
  if (msg.method === "memory.progress") return console.error("progress", JSON.stringify(msg.params));
  const { resolve, reject } = pending.get(msg.id);
  pending.delete(msg.id);
  if (msg.error) reject(Object.assign(new Error(msg.error.message), msg.error));
  else resolve(msg.result);
});
const call = (method, params) => new Promise((resolve, reject) => {
  const id = ++lastId;
  pending.set(id, { resolve, reject });
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
});

const init = await call("initialize", {});
await call("memory.rebuild", { scope: "global" });                // warm the index, with memory.progress
const page = await call("memory.recall", { query, scope: "global" });
const detail = await call("tools.call", page.hits[0].follow);      // a hit's follow, unchanged
let walked = 0;
for (let next = { ref: "memory.walk", args: { session: detail.session, pageSize: 2 } }; next; ) {
  const p = await call(next.ref, next.args);                       // pages until next is null
  walked += p.entries.length;
  next = p.next;
}
const bad = await call("memory.recall", { query: "(", queryMode: "regex" }).catch((e) => e);
console.log(JSON.stringify({ server: init.serverInfo, methods: init.methods.length, hits: page.total,
  expanded: detail.entries.length, walked, badCode: bad.code, badData: bad.data?.code }));
child.stdin.end();
