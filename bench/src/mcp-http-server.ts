// `node --expose-gc mcp-http-server.js <tree> ours|ours-default|sdk`: serves a generated tree over
// Streamable HTTP on 127.0.0.1 (2025-11-25), a new MCP server per session as the SDK's HTTP entry
// builds them, and prints its URL. `ours`: `createSkillsServer` over a registry of the tree with
// `recheckMs: 2000` (`ours-default`: without); `sdk`: the SDK's own skills catalog over the same
// folders. `GET /memory`: the heap after a full GC, and the CPU time so far.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname } from "node:path";
import { Readable } from "node:stream";
import type { ReadableStream } from "node:stream/web";
import {
  McpServer,
  WebStandardStreamableHTTPServerTransport as Transport,
} from "@modelcontextprotocol/server";
import { type SkillFiles, SkillsExtension } from "@modelcontextprotocol/server/ext/skills";
import { nodeSkillFiles } from "@modelcontextprotocol/server/ext/skills/node";
import { SkillService } from "@skill/core";
import { discoverySources } from "@skill/discovery";
import { createSkillsServer } from "@skill/mcp";
import { layoutOf } from "./layout.js";

/** Skills per `skills/list` page for both (the SDK's default): the same requests per listing. */
const PAGE_SIZE = 100;

/** The skill folders by name as one folder, `node_modules` left out as ours leaves it out. */
function skillFolders(folders: ReadonlyMap<string, string>): SkillFiles {
  const files = new Map([...folders].map(([name, dir]) => [name, nodeSkillFiles(dir)]));
  const inside = (path: string) => {
    const [name = "", ...rest] = path.split("/");
    const of = files.get(name);
    if (!of) throw new Error(`no skill folder ${name}`);
    return [of, rest.join("/")] as const;
  };
  return {
    async list(dir) {
      if (dir === "") return [...files.keys()].map((name) => ({ name, kind: "directory" as const }));
      const [of, rest] = inside(dir);
      return (await of.list(rest)).filter((entry) => entry.name !== "node_modules");
    },
    read: (path) => inside(path)[0].read(inside(path)[1]),
  };
}

async function serverFactory(
  tree: string,
  kind: string,
): Promise<() => McpServer | ReturnType<typeof createSkillsServer>> {
  const service = new SkillService({ sources: discoverySources(layoutOf(tree)) });
  await service.discoverAndLoad();
  const recheckMs = kind === "ours" ? 2_000 : 0;
  if (kind !== "sdk") return () => createSkillsServer(service, { pageSize: PAGE_SIZE, recheckMs });
  const folders = new Map(service.all().map((s) => [s.name, dirname(s.location)]));
  const catalog = await SkillsExtension.load(skillFolders(folders), {
    prefix: "skills",
    pageSize: PAGE_SIZE,
  });
  return () => {
    const mcp = new McpServer({ name: "sdk", version: "0.0.0" });
    catalog.attach(mcp);
    return mcp;
  };
}

const [tree = "", kind = ""] = process.argv.slice(2);
if (!["ours", "ours-default", "sdk"].includes(kind))
  throw new Error("usage: node mcp-http-server.js <tree> ours|ours-default|sdk");
const factory = await serverFactory(tree, kind);
const sessions = new Map<string, Transport>();

/** The session a request names, or a new one (with its own server) for a request that names none. */
async function sessionOf(id: string | null): Promise<Transport | undefined> {
  if (id) return sessions.get(id);
  const transport: Transport = new Transport({
    sessionIdGenerator: randomUUID,
    onsessioninitialized: (sid) => void sessions.set(sid, transport),
    onsessionclosed: (sid) => void sessions.delete(sid),
  });
  await factory().connect(transport);
  return transport;
}

/** Node's request as a Web `Request` to its session's transport, and the `Response` back. */
async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.url === "/memory") {
    globalThis.gc?.();
    const { user, system } = process.cpuUsage();
    return void res.end(
      JSON.stringify({ heapUsed: process.memoryUsage().heapUsed, cpuMs: (user + system) / 1000 }),
    );
  }
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2)
    headers.append(`${req.rawHeaders[i]}`, `${req.rawHeaders[i + 1]}`);
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = req.method === "POST" ? Buffer.concat(chunks) : null;
  const request = new Request(`http://127.0.0.1${req.url}`, { method: req.method ?? "GET", headers, body });
  const transport = await sessionOf(headers.get("mcp-session-id"));
  const response = transport ? await transport.handleRequest(request) : new Response(null, { status: 404 });
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body) Readable.fromWeb(response.body as ReadableStream).pipe(res);
  else res.end();
}

const http = createServer((req, res) => {
  answer(req, res).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    if (!res.headersSent) res.writeHead(500);
    res.end();
  });
});
process.on("SIGTERM", () => process.exit(0));
http.listen(0, "127.0.0.1", () => {
  process.stdout.write(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp\n`);
});
