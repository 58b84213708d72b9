import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SkillService } from "@skill/core";
import { DEFAULT_MAX_DIRS, discoverySources } from "@skill/discovery";
import { afterAll, describe, expect, it } from "vitest";
import { generateTree } from "./tree.js";

// The L tree's folders and SKILL.md files, as a scan sees them (its bundled files and noise
// would add about 1.1 GB and change no folder count).
const base = mkdtempSync(join(tmpdir(), "skill-bench-bound-"));
afterAll(() => rmSync(base, { recursive: true, force: true }), 120_000);

describe("discovery's folder bound and the L tree", { tags: ["slow"] }, () => {
  it(`cuts no root of the 10,000-skill tree (its largest layout root holds about 16,000 folders, under ${DEFAULT_MAX_DIRS})`, {
    timeout: 300_000,
  }, async () => {
    const manifest = generateTree(join(base, "L"), { skills: 10_000, skeleton: true });
    const sources = discoverySources({
      cwd: manifest.cwd,
      home: manifest.home,
      paths: manifest.paths,
      env: {},
    });
    const service = new SkillService({ sources });
    const report = await service.discoverAndLoad();
    expect(report.diagnostics.filter((d) => d.code === "scan-truncated")).toEqual([]);
    expect(report.loaded).toBe(manifest.skills);
  });
});
