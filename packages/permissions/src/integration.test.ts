import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type AgentInfo, SkillService, type SkillSource } from "@skill/core";
import { fmt, formatCatalog } from "@skill/format";
import { removeTempDirs, tempDir } from "@skill/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skillErrorFrom } from "./__fixtures__/errors.js";
import { createPermissionPolicy } from "./policy.js";

// Goes through the real @skill/core service and the built @skill/format, as the CLI does.
let root: string;
let source: SkillSource;
const NAMES = ["beta-tool", "internal-docs", "internal-secrets", "pdf", "release-notes"];

beforeAll(async () => {
  root = await tempDir("skill-permissions-");
  for (const name of NAMES) {
    await mkdir(join(root, name));
    await writeFile(
      join(root, name, "SKILL.md"),
      `---\nname: ${name}\ndescription: Use when the task needs ${name}.\n---\n# ${name}\n`,
    );
  }
  source = {
    id: "temp",
    async scan() {
      const files = (await readdir(root)).map((d) => join(root, d, "SKILL.md")).sort();
      return { entries: files.map((location) => ({ location })), dirs: [root] };
    },
  };
});

afterAll(removeTempDirs);

const build: AgentInfo = {
  name: "build",
  permission: { skill: { "*": "allow", "internal-*": "deny", "beta-*": "ask" } },
};

async function service(policy = createPermissionPolicy()): Promise<SkillService> {
  const s = new SkillService({ sources: [source], permission: policy });
  const report = await s.discoverAndLoad();
  expect(report).toMatchObject({ loaded: NAMES.length, failed: [] });
  return s;
}

function listedIn(text: string): string[] {
  return NAMES.filter((n) => text.includes(n));
}

describe("permissions through SkillService and @skill/format", () => {
  it("hides denied skills from all(agent) and every catalog; all() still has them", async () => {
    const s = await service();
    const visible = s.all(build);
    expect(visible.map((k) => k.name)).toEqual(["beta-tool", "pdf", "release-notes"]);
    expect(s.all().map((k) => k.name)).toEqual(NAMES);

    for (const style of ["xml", "markdown", "json"] as const) {
      const catalog = formatCatalog(visible, { style });
      expect(listedIn(catalog.text)).toEqual(["beta-tool", "pdf", "release-notes"]);
      expect(catalog.text).not.toContain("internal-");
      expect(catalog.included).toEqual(["beta-tool", "pdf", "release-notes"]);
    }
    for (const verbose of [true, false]) expect(fmt(visible, { verbose })).not.toContain("internal-");
    expect(formatCatalog(s.all()).text).toContain("internal-secrets");
  });

  it("keeps an ask skill listed", async () => {
    const s = await service();
    expect(createPermissionPolicy().evaluate(build, "skill", "beta-tool")).toBe("ask");
    expect(s.all(build).map((k) => k.name)).toContain("beta-tool");
    expect(formatCatalog(s.all(build)).text).toContain("<name>beta-tool</name>");
  });

  it("applies config rules to every agent, and the agent's own rules over them", async () => {
    const policy = createPermissionPolicy({ config: { skill: { "internal-*": "deny" } } });
    const s = await service(policy);
    expect(s.all({ name: "plan" }).map((k) => k.name)).toEqual(["beta-tool", "pdf", "release-notes"]);
    const docs: AgentInfo = { name: "docs", permission: { skill: { "internal-docs": "allow" } } };
    expect(s.all(docs).map((k) => k.name)).toEqual(["beta-tool", "internal-docs", "pdf", "release-notes"]);
    expect(policy.explain(docs, "skill", "internal-secrets")).toMatchObject({
      action: "deny",
      layer: "config",
    });
    expect(policy.explain(docs, "skill", "internal-docs")).toMatchObject({ action: "allow", layer: "agent" });
  });

  it("lists nothing for an agent whose skill permission is deny", async () => {
    const s = await service();
    const locked: AgentInfo = { name: "locked", permission: { skill: "deny" } };
    expect(s.all(locked)).toEqual([]);
    expect(formatCatalog(s.all(locked)).text).toBe("");
  });

  it("fails the listing, not open, when an agent's rules are invalid", async () => {
    const s = await service();
    const typo = { name: "build", permission: { skill: { "internal-*": "dney" } } } as unknown as AgentInfo;
    expect(skillErrorFrom(() => s.all(typo)).field).toBe("agent.build.permission.skill.internal-*");
  });
});
