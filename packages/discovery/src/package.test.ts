// The published shape: run `pnpm --filter @skill/discovery build` first. Both builds are
// loaded the way consumers load them and exercised through real calls.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { removeTempDirs, tempWorld, writeSkill } from "@skill/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import type * as Api from "./index.js";

afterEach(removeTempDirs);

const cjsPath = fileURLToPath(new URL("../dist/index.cjs", import.meta.url));
const esmPath = fileURLToPath(new URL("../dist/index.js", import.meta.url));

const API = [
  "DEFAULT_IGNORE",
  "DEFAULT_MAX_DIRS",
  "DISCOVERY_PRESETS",
  "SKILL_FILE",
  "VISIBILITY_REASONS",
  "agentProfile",
  "classifyShadowed",
  "compareAgents",
  "discoveryRoots",
  "discoverySources",
  "findWorktreeRoot",
  "foldersBetween",
  "isClaudeCodeDisabled",
  "isExternalDisabled",
  "scanSkillFiles",
  "watchSkillFiles",
  "watchSkills",
];

async function loadBuilds(): Promise<[string, typeof Api][]> {
  expect(existsSync(cjsPath) && existsSync(esmPath), "run `pnpm --filter @skill/discovery build` first").toBe(
    true,
  );
  const cjs = createRequire(import.meta.url)(cjsPath) as typeof Api;
  const esm = (await import(esmPath)) as typeof Api;
  return [
    ["cjs", cjs],
    ["esm", esm],
  ];
}

describe("the built package", { tags: ["built"] }, () => {
  it("exports the same public names from dist/index.cjs and dist/index.js", async () => {
    for (const [, api] of await loadBuilds()) expect(Object.keys(api).sort()).toEqual(API);
  });

  it("scans, builds sources and watches through each build", { timeout: 60_000 }, async () => {
    for (const [kind, api] of await loadBuilds()) {
      const { home, project } = await tempWorld();
      const file = await writeSkill(join(project, ".agents", "skills", "pdf"));
      expect(await api.scanSkillFiles(join(project, ".agents")), kind).toEqual([file]);
      const sources = api.discoverySources({ cwd: project, home, env: {} });
      const scans = await Promise.all(sources.map((s) => s.scan({})));
      expect(
        scans.flatMap((s) => s.entries.map((e) => e.location)),
        kind,
      ).toEqual([file]);
      expect(api.isExternalDisabled({ OPENCODE_DISABLE_EXTERNAL_SKILLS: "true" }), kind).toBe(true);
      const watcher = api.watchSkillFiles({ cwd: project, home, env: {} }, () => {});
      await watcher.ready;
      await watcher.close();
    }
  });
});
