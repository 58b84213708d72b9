import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
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
  expect(typeof api.mcpStdioSource).toBe("function");
  expect(typeof api.serveStdio).toBe("function");
}

describe("built package", () => {
  it("works through require() of the CJS entry", async () => {
    await exercise(require(`${dist}index.cjs`) as Api);
  });

  it("works through import() of the ESM entry", async () => {
    await exercise((await import(`${dist}index.js`)) as Api);
  });

  it("exports exactly the public names", async () => {
    const names = [
      "DEFAULT_TIMEOUT_MS",
      "SKILLS_EXTENSION_ID",
      "mcpSource",
      "mcpStdioSource",
      "registerSkills",
      "serveStdio",
    ];
    expect(Object.keys(await import(`${dist}index.js`)).sort()).toEqual(names);
    expect(Object.keys(require(`${dist}index.cjs`)).sort()).toEqual(names);
  });
});
