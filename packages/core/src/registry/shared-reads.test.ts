import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SkillError } from "../spec/errors.js";
import type { LoadReport } from "../spec/report.js";
import type { SharedReads, SkillServiceOptions } from "../spec/service-options.js";
import type { SkillSource } from "../spec/skill-source.js";
import type { LoadRules } from "../spec/types.js";
import { SkillService } from "./service.js";
import { sharedReads } from "./shared-reads.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "skill-shared-reads-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function skill(folder: string, text: string): Promise<string> {
  await mkdir(join(dir, folder), { recursive: true });
  const path = join(dir, folder, "SKILL.md");
  await writeFile(path, text);
  return path;
}

function sourceOf(paths: readonly string[]): SkillSource {
  return {
    id: "project",
    scan: async () => ({ entries: paths.map((location) => ({ location })), dirs: [dir] }),
  };
}

/** What a load gave, without object identity: winners, failures and findings. */
async function loaded(paths: readonly string[], rules: LoadRules, reads?: SharedReads) {
  const options: SkillServiceOptions = {
    sources: [sourceOf(paths)],
    ...rules,
    ...(reads ? { sharedReads: reads } : {}),
  };
  const service = new SkillService(options);
  const report: LoadReport = await service.discoverAndLoad();
  return {
    skills: service
      .all()
      .map((s) => ({ name: s.name, description: s.description, displayName: s.displayName })),
    failed: report.failed.map((f) => ({ path: f.path, code: f.error.code, message: f.error.message })),
    diagnostics: report.diagnostics,
  };
}

const RULE_SETS: readonly LoadRules[] = [
  {},
  { lenient: false },
  { nameFallback: "folder", identity: "folder", requireDescription: false, descriptionFallback: "body" },
  { rejectBom: true, rejectLongFields: true, brokenYaml: "ignore" },
];

describe("sharedReads", () => {
  it("gives every rule set what it gives alone", async () => {
    const paths = [
      await skill("pdf", "---\nname: pdf\ndescription: Fill in PDF forms\n---\n# PDF\n"),
      await skill("unnamed", "---\ndescription: No name here\n---\nBody\n"),
      await skill("colon", "---\nname: colon\ndescription: Use it: now\n---\n"),
      await skill("bom", "\ufeff---\nname: bom\ndescription: Marked\n---\n"),
      await skill("long", `---\nname: long\ndescription: ${"x".repeat(1500)}\n---\n`),
      await skill("nodesc", "---\nname: nodesc\n---\nFirst line of the body\n"),
      await skill("broken", "---\nname: [broken\ndescription: x\n---\n"),
      await skill("plain", "# No frontmatter\n"),
      join(dir, "missing", "SKILL.md"),
      // The same text in two files: each file's findings name that file.
      await skill("twin-a", `---\nname: Twin\ndescription: ${"y".repeat(1100)}\n---\n`),
      await skill("twin-b", `---\nname: Twin\ndescription: ${"y".repeat(1100)}\n---\n`),
    ];
    const reads = sharedReads();
    for (const rules of RULE_SETS) {
      expect(await loaded(paths, rules, reads)).toEqual(await loaded(paths, rules));
    }
  });

  it("remembers each file as first read, for its whole life", async () => {
    const path = await skill("pdf", "---\nname: pdf\ndescription: First\n---\n");
    const reads = sharedReads();
    expect((await loaded([path], {}, reads)).skills[0]?.description).toBe("First");
    await writeFile(path, "---\nname: pdf\ndescription: Second, and longer\n---\n");
    expect((await loaded([path], { lenient: false }, reads)).skills[0]?.description).toBe("First");
    expect((await loaded([path], { lenient: false })).skills[0]?.description).toBe("Second, and longer");
  });

  it("refuses a value it did not make", () => {
    const fake = { kind: "shared-reads" } as SharedReads;
    expect(() => new SkillService({ sharedReads: fake })).toThrow(SkillError);
    expect(() => new SkillService({ sharedReads: fake })).toThrow(/Invalid option 'sharedReads'/);
  });
});
