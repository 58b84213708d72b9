#!/usr/bin/env node
// The client under test of the conformance suite: a host built on @skill/core's SkillService
// with the built @skill/mcp's mcpSource as its one source, over the SDK's v2 client and
// Streamable HTTP. The suite appends the URL of its scenario server and sets
// MCP_CONFORMANCE_SCENARIO (and MCP_CONFORMANCE_PROTOCOL_VERSION with --spec-version).
//
// What a host does: load the registry (skills/list only; SEP-2640 forbids reading a skill
// ahead of need), and, in the scenarios that activate a skill, read it (SKILL.md, verified)
// and only then the supporting file it points to (verified too). A failed verification
// stops the host there, as a model would never see the skill.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const fromMcp = createRequire(join(root, "packages/mcp/package.json"));
const load = (path) => import(pathToFileURL(path).href);
const { SkillService } = await load(join(root, "packages/core/dist/index.js"));
const { mcpSource } = await load(join(root, "packages/mcp/dist/index.js"));
const { Client, StreamableHTTPClientTransport } = await load(fromMcp.resolve("@modelcontextprotocol/client"));

const url = process.argv.at(-1);
// biome-ignore lint/suspicious/noUndeclaredEnvVars: set by the conformance suite, never by turbo
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
// biome-ignore lint/suspicious/noUndeclaredEnvVars: set by the conformance suite, never by turbo
const version = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
const log = (line) => process.stderr.write(`client: ${line}\n`);

// 2025 versions: the initialize handshake; 2026-07-28 and later: server/discover, pinned;
// no version given: negotiate.
const negotiation =
  version === undefined
    ? { mode: "auto" }
    : version >= "2026-07-28"
      ? { mode: { pin: version } }
      : { mode: "legacy" };
const client = new Client(
  { name: "skill-conformance-host", version: "0.0.0" },
  { versionNegotiation: negotiation },
);
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
log(`connected at protocol ${client.getNegotiatedProtocolVersion()} (scenario ${scenario || "none"})`);

const service = new SkillService({
  sources: [mcpSource(client, { id: "mcp:conformance" })],
  logger: { warn: (message) => log(`warn: ${message}`) },
});
const report = await service.discoverAndLoad();
log(
  `loaded ${report.loaded} skill(s): ${service
    .all()
    .map((s) => s.name)
    .join(", ")}`,
);
for (const d of report.diagnostics) log(`diagnostic ${d.code}: ${d.message}`);

if (scenario !== "sep-2640-client-no-prefetch") {
  for (const skill of service.all()) {
    try {
      const read = await service.read(skill.name);
      log(`read ${skill.name}: ${read.body.length} characters of body, verified`);
      for (const file of await service.files(skill.name, undefined, { limit: 100 })) {
        const bytes = await service.readFile(skill.name, file);
        log(`read ${skill.name}/${file}: ${bytes.byteLength} bytes, verified`);
      }
    } catch (error) {
      log(`refused ${skill.name}: ${error?.code ?? ""} ${error?.message ?? error}`);
    }
  }
}
await client.close();
