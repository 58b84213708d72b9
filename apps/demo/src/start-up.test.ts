// @module-tag slow: every test here runs the built `skill` CLI in a child process.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { removeTempDirs, skillText, tempWorld, writeTree } from "@skill/test-utils";
import { afterAll, describe, expect, it } from "vitest";
import { CLI, runNode } from "../test/run-node.js";

// What a `skill list` process loads: the built CLI, run with a preload that records Node's
// built-in modules and every Intl.Segmenter made, written to a file when the process exits.

const PRELOAD = `
const { writeFileSync } = require("node:fs");
let segmenters = 0;
const Segmenter = Intl.Segmenter;
Intl.Segmenter = class extends Segmenter {
  constructor(...args) {
    super(...args);
    segmenters++;
  }
};
process.on("exit", () => {
  const builtins = process.moduleLoadList.filter((m) => m.startsWith("NativeModule ")).map((m) => m.slice(13));
  writeFileSync(process.env.SKILL_TEST_LOADED, JSON.stringify({ builtins, segmenters }));
});
`;

afterAll(removeTempDirs);

async function listLoads(descriptions: readonly string[]) {
  const { base, home, project } = await tempWorld();
  await writeTree(
    project,
    Object.fromEntries(
      descriptions.map((d, i) => [`.agents/skills/s${i}/SKILL.md`, skillText(`s${i}`, d)] as const),
    ),
  );
  const preload = join(base, "preload.cjs");
  const loaded = join(base, "loaded.json");
  await writeFile(preload, PRELOAD);
  const result = await runNode("--require", [preload, CLI, "list"], {
    cwd: project,
    home,
    // The table a terminal gets: what measures widths.
    env: { SKILL_TEST_LOADED: loaded, SKILL_FORCE_TTY: "100" },
  });
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(result.stdout).toContain(`${descriptions.length} skills`);
  return {
    stdout: result.stdout,
    ...(JSON.parse(await readFile(loaded, "utf8")) as { builtins: string[]; segmenters: number }),
  };
}

describe("skill list at start-up", () => {
  it("loads neither zlib, child_process nor crypto, and makes no Intl.Segmenter for plain text", async () => {
    const { builtins, segmenters } = await listLoads([
      "Plain ASCII text.",
      "Café, naïve — “quoted” … and Latin-1 ±×÷.",
    ]);
    expect(builtins).toContain("fs"); // the preload saw the CLI's modules
    expect(builtins).not.toContain("zlib");
    expect(builtins).not.toContain("child_process");
    expect(builtins).not.toContain("crypto");
    expect(segmenters).toBe(0);
  }, 60_000);

  it("reads frontmatter that needs js-yaml (loaded on first use) and reports YAML errors", async () => {
    const { home, project } = await tempWorld();
    await writeTree(project, {
      ".agents/skills/deep/SKILL.md":
        "---\nname: deep\ndescription: &d Deep metadata.\nmetadata:\n  a:\n    b: c\n---\n",
      ".agents/skills/bad/SKILL.md": "---\nname: bad\ndescription: [unclosed\n---\n",
    });
    const result = await runNode(CLI, ["list", "--json"], { cwd: project, home });
    expect(result.code).toBe(0);
    const listed = JSON.parse(result.stdout) as {
      skills: { name: string; description: string }[];
      failed: { code: string; message: string }[];
    };
    expect(listed.skills.map((s) => [s.name, s.description])).toEqual([["deep", "Deep metadata."]]);
    expect(listed.failed).toMatchObject([{ message: expect.stringContaining("within a flow collection") }]);
  }, 60_000);

  it("loads string-width's Intl.Segmenter when a description needs it, and measures it", async () => {
    const { stdout, segmenters } = await listLoads(["日本語の説明", "Plain."]);
    expect(segmenters).toBeGreaterThan(0);
    const line = stdout.split("\n").find((l) => l.includes("日本語の説明"));
    const plain = stdout.split("\n").find((l) => l.includes("Plain."));
    // Both rows pad their description to the same column: CJK counted as two cells each.
    expect(line?.indexOf("project:")).toBe((plain?.indexOf("project:") ?? 0) - 6);
  }, 60_000);
});
