// The official MCP TypeScript client (Client + StdioClientTransport) against
// `memidx mcp` (TestMCPNodeClient). It prints a transcript on stderr and one
// JSON summary line on stdout; any failed check exits 1.
// node client.mjs MEMIDX COLD_INDEX_DIR [GLOBAL FLAGS…]
import { appendFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import Ajv from "ajv";

const [bin, coldIndex, ...flags] = process.argv.slice(2);
const log = (...a) => console.error(...a);
const check = (ok, what) => {
  if (!ok) throw new Error("check failed: " + what);
};
const ajv = new Ajv({ strict: false });
const validators = new Map();
let validated = 0;
const errors = [];

async function connect(tag, extraFlags = []) {
  const transport = new StdioClientTransport({
    command: bin,
    args: [...flags, ...extraFlags, "mcp", "--progress-after", "1ms", "--progress-every", "5ms"],
    stderr: "inherit",
  });
  let negotiated;
  transport.setProtocolVersion = (v) => { negotiated = v; };
  const client = new Client({ name: "memidx-test", version: "1.0.0" });
  client.onerror = (e) => errors.push(`${tag}: ${e}`);
  await client.connect(transport);
  const { tools } = await client.listTools(); // also arms the client's own outputSchema validation
  for (const t of tools) validators.set(t.name, ajv.compile(t.outputSchema));
  return { client, tools, negotiated: () => negotiated };
}

// call calls a tool; the client validates structuredContent against the
// tool's outputSchema itself, and so does this script, with Ajv.
async function call(client, name, args, options) {
  const res = await client.callTool({ name, arguments: args }, undefined, options);
  const v = validators.get(name);
  check(res.structuredContent && typeof res.structuredContent === "object", `${name}: structuredContent is an object`);
  check(v(res.structuredContent), `${name}: structuredContent valid: ${JSON.stringify(v.errors)}`);
  check(res.content.length === 1 && res.content[0].type === "text", `${name}: one text content`);
  validated++;
  return res;
}
const short = (s, n = 240) => (s.length > n ? s.slice(0, n) + "…" : s);
const show = (name, args, res) =>
  log(`> ${name} ${short(JSON.stringify(args), 200)}\n< isError=${!!res.isError}\n${short(res.content[0].text, 600)}\n`);

// 1. initialize and list tools; progress on a call that waits on indexing.
const { client, tools, negotiated } = await connect("warm");
log(`initialize: server ${JSON.stringify(client.getServerVersion())}, protocol ${negotiated()}`);
log(`tools/list: ${tools.map((t) => t.name).join(", ")}`);
const progress = [];
const recallArgs = { query: "zorblax", scope: "global" };
const recall = await call(client, "memory_recall", recallArgs, { onprogress: (p) => progress.push(p) });
show("memory_recall", recallArgs, recall);
const hit = recall.structuredContent.hits[0];
check(hit && hit.snippet.includes("zorblax"), "the planted fact is found");
check(progress.length > 0, "progress while the index is built");
check(progress.every((p, i) => i === 0 || p.progress > progress[i - 1].progress), "progress increases");
log(`progress: ${progress.length} notifications, ${JSON.stringify(progress[0])} … ${JSON.stringify(progress.at(-1))}`);

// 2. follow the hit through memory_call, unchanged.
const follow = await call(client, "memory_call", hit.follow);
show("memory_call", hit.follow, follow);
check(follow.structuredContent.entries[0].text.includes("zorblax"), "the follow expands the hit");

// 3. expand with context.
const expandArgs = { ...hit.follow.args, before: 1, after: 1 };
const expanded = await call(client, "memory_expand", expandArgs);
show("memory_expand", expandArgs, expanded);
check(expanded.structuredContent.entries.length === 3, "context around the hit");

// 4. sessions.
const sessions = await call(client, "memory_sessions", { scope: "global" });
show("memory_sessions", { scope: "global" }, sessions);
const huge = sessions.structuredContent.sessions.find((s) => s.id === "huge");
check(huge, "the megabyte session is listed");

// 5. walk the megabyte session to the end: bounded pages, chunks with textRange.
let res = await call(client, "memory_walk", { session: huge.id });
show("memory_walk", { session: huge.id }, res);
const texts = [];
let pages = 1, chunks = 0, largest = 0;
for (;;) {
  largest = Math.max(largest, JSON.stringify(res).length);
  for (const [i, e] of res.structuredContent.entries.entries()) {
    if (e.textRange.start > 0) { check(i === 0, "a chunk continues only a page's first entry"); texts[texts.length - 1] += e.text; chunks++; }
    else texts.push(e.text);
  }
  const next = res.structuredContent.next;
  if (next === null) break;
  check(next.ref === "memory.walk", "a walk page's next names memory.walk");
  res = await call(client, "memory_call", next);
  pages++;
}
check(texts.length === huge.entryCount, `every entry walked (${texts.length} of ${huge.entryCount})`);
const walkedBytes = texts.reduce((n, t) => n + t.length, 0);
check(walkedBytes > 3_000_000, "megabytes walked");
check(largest < 1_100_000, "every walk result within about 1 MiB");
log(`walk: ${texts.length} entries, ${walkedBytes} characters, ${pages} pages, ${chunks} continued chunks, largest result ${largest} bytes`);

// 6. an invalid regex: an isError result with its code.
const badArgs = { query: "(", queryMode: "regex", scope: "global" };
const bad = await call(client, "memory_recall", badArgs);
show("memory_recall", badArgs, bad);
check(bad.isError && bad.structuredContent.error.code === "invalid_regex", "invalid_regex is an isError result");

// 7. a stale pointer: the session changes after the hit was found.
appendFileSync(hit.follow.args.session,
  JSON.stringify({ type: "message", id: "late", parentId: "planted-3", timestamp: "2026-09-01T11:00:00.000Z",
    message: { role: "user", content: "appended later" } }) + "\n");
const stale = await call(client, "memory_call", hit.follow);
show("memory_call", hit.follow, stale);
check(stale.isError && stale.structuredContent.error.code === "stale_pointer", "stale_pointer is an isError result");

// 8. an unknown tool is a protocol error.
const unknown = await client.callTool({ name: "memory_forget", arguments: {} }).then(() => null, (e) => e);
check(unknown && unknown.code === -32602, "an unknown tool is a protocol error");
await client.close();

// 9. cancel: a second server on a cold index; the first call waits on
// indexing and is aborted; the server goes on answering.
const cold = await connect("cold", ["--index-dir", coldIndex]);
const ac = new AbortController();
const cancelProgress = [];
const pending = cold.client.callTool({ name: "memory_recall", arguments: { query: "zorblax", scope: "global" } }, undefined,
  { signal: ac.signal, onprogress: (p) => { cancelProgress.push(p); ac.abort("enough"); } });
const aborted = await pending.then(() => null, (e) => e);
check(aborted !== null, "the cancelled call has no successful answer");
const after = await call(cold.client, "memory_recall", { query: "zorblax", scope: "global" });
check(after.structuredContent.hits.length === 1, "the server answers after a cancel");
log(`cancel: aborted after ${cancelProgress.length} progress notification(s): ${short(String(aborted), 120)}`);
await new Promise((r) => setTimeout(r, 300)); // a late progress or answer would arrive as an error
await cold.client.close();
// The SDK answers a cancelled id with error -32800 (the spec says it
// should not answer; the client drops it). Anything else is stray: a
// progress after an answer or a cancel, or a successful answer to it.
// A progress notification sent before the server read the cancel crosses
// it (a few, on a loaded machine); a server that kept sending would send
// about sixty in the 300 ms waited, every 5 ms.
const cancelledAnswer = (e) => /^cold: .*unknown message ID: .*"error":\{"code":-32800/.test(e);
const crossing = (e) => /^cold: .*progress notification for an unknown token: .*"progressToken":2\}/.test(e);
const stray = errors.filter((e) => !cancelledAnswer(e) && !crossing(e));
const crossed = errors.filter(crossing).length;
log(`after cancel: ${errors.filter(cancelledAnswer).length} RequestCancelled error answer(s), ${crossed} crossing progress, ${stray.length} stray message(s)`);
check(crossed <= 10, "progress ends with the cancel");
check(stray.length === 0, "no stray message: " + stray.join("; "));

console.log(JSON.stringify({ protocol: negotiated(), tools: tools.map((t) => t.name), validated, walked: texts.length, pages, chunks,
  progress: progress.length, codes: [bad.structuredContent.error.code, stale.structuredContent.error.code] }));
