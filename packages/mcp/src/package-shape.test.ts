import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { McpServer } from "@modelcontextprotocol/server";
import { SkillService } from "@skill/core";
import { describe, expect, it } from "vitest";
import { connect } from "./__fixtures__/harness.js";

// Runs against the built package (build before testing), as a consumer would load it.
const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const require = createRequire(import.meta.url);
type Api = typeof import("./index.js");

const text = "---\nname: hello\ndescription: Says hello\n---\nHello.\n";

async function exercise(api: Api): Promise<void> {
  expect(api.SKILLS_EXTENSION_ID).toBe("io.modelcontextprotocol/skills");
  // A served registry needs file skills; a memory skill is not served, so the list is empty…
  const service = new SkillService();
  const server = new McpServer({ name: "shape", version: "1.0.0" });
  api.registerSkills(server, service, { prefix: "shape" });
  const { client, close } = await connect(server);
  const scan = await api.mcpSource(client, { id: "mcp:shape" }).scan({});
  expect(scan).toEqual({ entries: [], dirs: [], diagnostics: [] });
  await close();
  // …and a hand-fed client shows the source's reading and checking of an answer.
  const fake = {
    async request(request: { method: string }) {
      if (request.method === "skills/list") return { skills: [{ uri: "skill://s/hello/SKILL.md" }] };
      return { contents: [{ uri: "skill://s/hello/SKILL.md", text }] };
    },
  };
  const loaded = new SkillService({ sources: [api.mcpSource(fake)] });
  const report = await loaded.discoverAndLoad();
  expect(loaded.all().map((s) => s.location)).toEqual(["skill://s/hello/SKILL.md"]);
  expect(report.diagnostics.map((d) => d.code)).toEqual(["mcp-no-resources"]);
  expect(api.SKILL_LIMITS).toEqual({ files: 512, bytes: 16 * 1024 * 1024 });
  expect(api.PROTOCOL_VERSIONS.slice(0, 2)).toEqual(["2026-07-28", "2025-11-25"]);
}

type StdioApi = typeof import("./stdio.js");

function exerciseStdio(api: StdioApi): void {
  expect(typeof api.mcpStdioSource).toBe("function");
  expect(typeof api.serveStdio).toBe("function");
}

describe("built package", { tags: ["built"] }, () => {
  it("works through require() of the CJS entry", async () => {
    await exercise(require(`${dist}index.cjs`) as Api);
  });

  it("works through import() of the ESM entry", async () => {
    await exercise((await import(`${dist}index.js`)) as Api);
  });

  it("serves the stdio helpers at @skill/mcp/stdio, CJS and ESM", async () => {
    exerciseStdio(require(`${dist}stdio.cjs`) as StdioApi);
    exerciseStdio((await import(`${dist}stdio.js`)) as StdioApi);
    const stdioNames = ["mcpStdioSource", "serveStdio"];
    expect(Object.keys(await import(`${dist}stdio.js`)).sort()).toEqual(stdioNames);
    expect(Object.keys(require(`${dist}stdio.cjs`)).sort()).toEqual(stdioNames);
  });

  it("exports exactly the public names", async () => {
    const names = [
      "DEFAULT_MAX_SKILLS",
      "DEFAULT_TIMEOUT_MS",
      "PROTOCOL_VERSIONS",
      "SKILLS_EXTENSION_ID",
      "SKILL_LIMITS",
      "createSkillsServer",
      "mcpSource",
      "registerSkills",
    ];
    expect(Object.keys(await import(`${dist}index.js`)).sort()).toEqual(names);
    expect(Object.keys(require(`${dist}index.cjs`)).sort()).toEqual(names);
  });
});
