import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

// Runs against the built package (build before testing), as a consumer would load it.
const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const require = createRequire(import.meta.url);

const NAMES = [
  "AGENT_TARGETS",
  "agentTarget",
  "applyPlan",
  "checkGitArgument",
  "checkInstalled",
  "detectAgents",
  "discardPlan",
  "fileChanges",
  "gitBinary",
  "isGitSpec",
  "isSiteSpec",
  "planAdd",
  "planUpdate",
  "removeSkills",
  "restore",
];

describe("built package", { tags: ["built"] }, () => {
  it("exports exactly the public names, through import() and require()", async () => {
    expect(Object.keys(await import(`${dist}index.js`)).sort()).toEqual(NAMES);
    expect(Object.keys(require(`${dist}index.cjs`)).sort()).toEqual(NAMES);
  });

  it("plans through the CommonJS entry (p-limit, ESM-only, is loaded lazily)", async () => {
    const api = require(`${dist}index.cjs`) as typeof import("./index.js");
    const dir = await mkdtemp(join(tmpdir(), "skill-install-cjs-"));
    try {
      await writeFile(join(dir, "SKILL.md"), "---\nname: solo\ndescription: One skill.\n---\n");
      const plan = await api.planAdd(dir, { cwd: dir, home: dir, scope: "project", agents: ["codex"] });
      expect(plan.skills.map((s) => s.name)).toEqual(["solo"]);
      await api.discardPlan(plan);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("runs the README's example as it is written", { tags: ["slow"] }, async () => {
    const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
    const code = /```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
    expect(code).toContain("planAdd");
    const dir = await mkdtemp(join(tmpdir(), "skill-install-readme-"));
    try {
      const file = join(dir, "example.mjs");
      await writeFile(
        file,
        code.replace('"@skill/install"', JSON.stringify(pathToFileURL(`${dist}index.js`).href)),
      );
      const out = execFileSync(process.execPath, [file], {
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
        encoding: "utf8",
      });
      expect(out).toContain("pdf for claude-code: link");
      expect(out).toContain("pdf for codex: canonical");
      expect(out).toMatch(/pdf → .*project\/\.agents\/skills\/pdf/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
