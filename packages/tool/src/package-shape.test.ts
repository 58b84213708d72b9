import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { McpServer } from "@modelcontextprotocol/server";
import { SkillService } from "@skill/core";
import { describe, expect, it } from "vitest";
import { countingSource } from "./__fixtures__/skills.js";

// Runs against the built package (build before testing), as a consumer would load it.
const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const require = createRequire(import.meta.url);
type Api = typeof import("./index.js");
type AiSdk = typeof import("./ai-sdk.js");
type Mcp = typeof import("./mcp.js");

async function exercise(api: Api, ai: AiSdk, mcp: Mcp): Promise<void> {
  const service = new SkillService({
    sources: [countingSource("project:/p", [{ name: "pdf", description: "Read PDF files." }])],
  });
  await service.discoverAndLoad();
  const tools = api.skillTools(service, { agent: { name: "build" } });
  expect(tools.definitions.map((d) => d.name)).toEqual([api.SKILL_TOOL]);
  expect((await tools.call(api.SKILL_TOOL, { name: "pdf" })).text).toContain('<skill_content name="pdf">');
  expect(await tools.call(api.SEARCH_TOOL, {})).toMatchObject({ isError: true });
  expect([api.DEFAULT_TOOL_BUDGET, api.DEFAULT_SEARCH_LIMIT, api.MAX_SEARCH_LIMIT]).toEqual([8000, 8, 20]);
  expect(Object.keys(ai.aiSdkTools(tools))).toEqual(["skill"]);
  const server = new McpServer({ name: "shape", version: "1.0.0" });
  mcp.registerSkillTools(server, tools);
}

describe("built package", { tags: ["built"] }, () => {
  it("works through require() of the CJS entries", async () => {
    await exercise(
      require(`${dist}index.cjs`) as Api,
      require(`${dist}ai-sdk.cjs`) as AiSdk,
      require(`${dist}mcp.cjs`) as Mcp,
    );
  });

  it("works through import() of the ESM entries", async () => {
    await exercise(
      (await import(`${dist}index.js`)) as Api,
      (await import(`${dist}ai-sdk.js`)) as AiSdk,
      (await import(`${dist}mcp.js`)) as Mcp,
    );
  });

  it("exports exactly the public names", async () => {
    const entries: [string, string[]][] = [
      [
        "index",
        [
          "DEFAULT_SEARCH_LIMIT",
          "DEFAULT_TOOL_BUDGET",
          "MAX_SEARCH_LIMIT",
          "SEARCH_TOOL",
          "SKILL_TOOL",
          "parseAllowedTools",
          "skillTools",
        ],
      ],
      ["ai-sdk", ["aiSdkTools", "skillPrepareStep"]],
      ["mcp", ["registerSkillTools"]],
    ];
    for (const [entry, names] of entries) {
      expect(Object.keys(await import(`${dist}${entry}.js`)).sort()).toEqual(names);
      expect(Object.keys(require(`${dist}${entry}.cjs`)).sort()).toEqual(names);
    }
  });
});
