#!/usr/bin/env node
// The server under test of the conformance suite, over Streamable HTTP (the suite's server
// mode needs a URL): the skills `skill serve-mcp --cwd <project> --home <home>` would
// discover there, served by the same code `skill serve-mcp` runs (createSkillsServer of the
// built @skill/mcp, one server per request as the SDK's createMcpHandler asks), for clients
// of protocol 2026-07-28 and of the 2025 line.
//
//   node serve-http.mjs <project> <home> <port>      prints "listening <url>" when ready
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const [project, home, port = "0"] = process.argv.slice(2);
if (!project || !home) {
  process.stderr.write("usage: node serve-http.mjs <project> <home> [port]\n");
  process.exit(2);
}

// Resolve everything as the packages themselves do: the built workspace packages, and the SDK
// @skill/mcp was built against.
const fromMcp = createRequire(join(root, "packages/mcp/package.json"));
const load = (path) => import(pathToFileURL(path).href);
const { SkillService } = await load(join(root, "packages/core/dist/index.js"));
const { discoverySources } = await load(join(root, "packages/discovery/dist/index.js"));
const { createSkillsServer } = await load(join(root, "packages/mcp/dist/index.js"));
const { createMcpHandler } = await load(fromMcp.resolve("@modelcontextprotocol/server"));

const service = new SkillService({
  sources: discoverySources({ cwd: resolve(project), home: resolve(home) }),
});
const report = await service.discoverAndLoad();
process.stderr.write(`serve-http: ${report.loaded} skills from ${resolve(project)}\n`);

const handler = createMcpHandler(() => createSkillsServer(service, { name: "skill", version: "0.0.0" }));

/** A node request as a web Request, the body read whole (MCP bodies are small JSON). */
async function toWebRequest(req, url) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(key, v);
    else if (value !== undefined) headers.set(key, value);
  }
  const body =
    chunks.length > 0 && req.method !== "GET" && req.method !== "HEAD" ? Buffer.concat(chunks) : undefined;
  return new Request(url, { method: req.method, headers, ...(body ? { body } : {}) });
}

const http = createServer(async (req, res) => {
  try {
    const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "127.0.0.1"}`);
    const response = await handler.fetch(await toWebRequest(req, url));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) {
      for await (const chunk of response.body) res.write(chunk);
    }
    res.end();
  } catch (error) {
    process.stderr.write(`serve-http: ${error?.stack ?? error}\n`);
    if (!res.headersSent) res.writeHead(500);
    res.end();
  }
});
http.listen(Number(port), "127.0.0.1", () => {
  const address = http.address();
  process.stdout.write(`listening http://127.0.0.1:${address.port}/mcp\n`);
});
