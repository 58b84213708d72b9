import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { once } from "node:events";
import { compareCodeUnits } from "@skill/core";
import type { ChildOutput } from "../protocol.js";
import { Random } from "../random.js";

export interface McpHttpInput {
  /** The server's command line after `node`: `mcp-http-server.js <tree> ours|ours-default|sdk`. */
  readonly server: readonly string[];
  /** Clients at once; each opens a session, lists every page, then reads `reads` skill files. */
  readonly clients: number;
  readonly reads: number;
  /** Sessions opened and left idle for the memory measure. */
  readonly idle: number;
  readonly seed: number;
}

type File = { readonly uri: string; readonly digest: string };
type Entry = { readonly frontmatter: { name: string; description: string }; readonly resources: File[] };

const VERSION = "2025-11-25";
const tally = { requests: 0, errors: 0 };

/** A bare Streamable HTTP session (fetch and JSON-RPC, no SDK client): the server is what is measured. */
async function session(url: URL) {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": VERSION,
  };
  const post = (message: object) => fetch(url, { method: "POST", headers, body: JSON.stringify(message) });
  /** A request's result (the first `data:` line of an event stream, or the JSON body); an error answer throws. */
  const call = async (method: string, params: object): Promise<Record<string, unknown>> => {
    const response = await post({ jsonrpc: "2.0", id: ++tally.requests, method, params });
    headers["mcp-session-id"] ??= response.headers.get("mcp-session-id") ?? "";
    const text = await response.text();
    const answer = JSON.parse(/^data: (\{.*)$/m.exec(text)?.[1] ?? text);
    if (answer.result) return answer.result;
    throw new Error(`${method}: ${answer.error?.message ?? `HTTP ${response.status}`}`);
  };
  const clientInfo = { name: "bench", version: "0" };
  await call("initialize", { protocolVersion: VERSION, capabilities: {}, clientInfo });
  await post({ jsonrpc: "2.0", method: "notifications/initialized" });
  return call;
}

/** One client: a session, every page of `skills/list`, then seeded reads (SKILL.md half the time), digests checked. */
async function client(url: URL, reads: number, random: Random): Promise<Entry[]> {
  const call = await session(url);
  const entries: Entry[] = [];
  let cursor: unknown;
  do {
    const page = await call("skills/list", cursor === undefined ? {} : { cursor });
    entries.push(...(page.skills as Entry[]));
    cursor = page.nextCursor;
  } while (cursor);
  entries.sort((a, b) => compareCodeUnits(a.frontmatter.name, b.frontmatter.name));
  for (let i = 0; i < reads && entries.length > 0; i++) {
    const files = [...random.pick(entries).resources].sort((a, b) => compareCodeUnits(a.uri, b.uri));
    const file = random.chance(0.5) ? files.find((f) => f.uri.endsWith("/SKILL.md")) : random.pick(files);
    const read = await call("resources/read", { uri: file?.uri }).catch(() => ({ contents: [] }));
    const [content] = read.contents as { text?: string; blob?: string }[];
    const bytes = content?.blob ? Buffer.from(content.blob, "base64") : Buffer.from(content?.text ?? "");
    if (`sha256:${createHash("sha256").update(bytes).digest("hex")}` !== file?.digest) tally.errors++;
  }
  return entries;
}

/** `clients` clients at once; the listing the first one saw. */
async function load(url: URL, { clients, reads, seed }: McpHttpInput): Promise<Entry[]> {
  const failed = (): Entry[] => {
    tally.errors++;
    return [];
  };
  const all = Array.from({ length: clients }, (_, c) =>
    client(url, reads, new Random(seed + c)).catch(failed),
  );
  return (await Promise.all(all))[0] ?? [];
}

type Memory = { heapUsed: number; cpuMs: number };
const memory = async (url: URL) => (await (await fetch(new URL("/memory", url))).json()) as Memory;

/**
 * Skills over Streamable HTTP: one server process (ours or the SDK's) warmed by an untimed round,
 * then a timed round of `clients` clients at once; then `idle` sessions opened and left open, and
 * the server's heap (after a full GC) compared with before.
 */
export async function run(input: McpHttpInput): Promise<ChildOutput> {
  const server = spawn(process.execPath, ["--expose-gc", ...input.server], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    let line = "";
    for await (const chunk of server.stdout) {
      line += chunk;
      if (line.includes("\n")) break;
    }
    if (!line.includes("\n")) {
      const code = server.exitCode ?? (await once(server, "exit"))[0];
      throw new Error(`the MCP HTTP server exited (${code}) before it listened`);
    }
    const url = new URL(line.trim());
    await load(url, input);
    Object.assign(tally, { requests: 0, errors: 0 });
    const [before, start] = [await memory(url), performance.now()];
    const entries = await load(url, input);
    const [wallMs, { requests, errors }] = [performance.now() - start, { ...tally }];
    const idle = await memory(url);
    await Promise.all(Array.from({ length: input.idle }, () => session(url)));
    const idleHeapKB = ((await memory(url)).heapUsed - idle.heapUsed) / input.idle / 1024;
    const samples = { rps: requests / (wallMs / 1000), cpuMs: idle.cpuMs - before.cpuMs, errors, idleHeapKB };
    const pairs = entries.map(({ frontmatter: { name, description } }) => ({ name, description }));
    return { found: entries.length, pairs, failed: errors, wallMs, samples };
  } finally {
    server.kill();
  }
}
