import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const DIST = fileURLToPath(new URL("../../dist/index.js", import.meta.url));

// Counts the bytes every read of a SKILL.md returns (sync and promise entry points), then loads.
const SCRIPT = `
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { join } from "node:path";
const fds = new Set();
let bytes = 0;
const openSync = fs.openSync;
fs.openSync = function (p, ...rest) { const fd = openSync.call(this, p, ...rest); if (String(p).endsWith("SKILL.md")) fds.add(fd); return fd; };
const readSync = fs.readSync;
fs.readSync = function (fd, ...rest) { const n = readSync.call(this, fd, ...rest); if (fds.has(fd)) bytes += n; return n; };
const closeSync = fs.closeSync;
fs.closeSync = function (fd) { fds.delete(fd); return closeSync.call(this, fd); };
syncBuiltinESMExports();
const { SkillService } = await import(process.env.CORE_DIST);
const root = process.env.TREE;
const source = {
  id: "tree",
  async scan() {
    return { entries: [{ location: join(root, process.env.SKILL, "SKILL.md") }], dirs: [root] };
  },
};
const service = new SkillService({ sources: [source] });
const report = await service.discoverAndLoad();
const skill = service.get(process.env.SKILL);
const read = (await service.read(process.env.SKILL)).content.length;
console.log(JSON.stringify({ loaded: report.loaded, bytes, summary: skill?.summary, read }));
`;

let root: string;

function load(skill: string): { loaded: number; bytes: number; summary?: string; read: number } {
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", SCRIPT], {
    env: { CORE_DIST: DIST, TREE: root, SKILL: skill, PATH: process.env.PATH ?? "" },
    encoding: "utf8",
    timeout: 60_000,
  });
  if (child.status !== 0) throw new Error(`child failed (${child.status}): ${child.stderr}`);
  return JSON.parse(child.stdout.trim());
}

const FRONT = (name: string) => `---\nname: ${name}\ndescription: A big skill.\n---\n`;
const FILLER = `${"Reference text that the model reads only once the skill is loaded. ".repeat(1_000)}\n`;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "skill-core-prefix-"));
  const skills: Record<string, string> = {
    // The summary within the first 4 KiB: the load reads no further.
    short: `${FRONT("short")}# Short\n\nFill in PDF forms.\n\n${FILLER}`,
    // A code block fills the first 4 KiB: the first paragraph lies beyond, so the whole file is read.
    late: `${FRONT("late")}# Late\n\n\`\`\`\n${"code line\n".repeat(600)}\`\`\`\n\nMerge PDF files.\n\n${FILLER}`,
  };
  for (const [name, text] of Object.entries(skills)) {
    await mkdir(join(root, name));
    await writeFile(join(root, name, "SKILL.md"), text);
  }
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe("a load reads a prefix of SKILL.md", { tags: ["slow"] }, () => {
  it("4 KiB when they hold the frontmatter and the summary; the whole file on read()", () => {
    const run = load("short");
    expect(run.loaded).toBe(1);
    expect(run.summary).toBe("Short: Fill in PDF forms.");
    // 4 KiB for the load, then the whole file (about 68 KB) for read().
    expect(run.read).toBeGreaterThan(60_000);
    expect(run.bytes).toBeLessThan(run.read + 4_096 + 200);
    expect(run.bytes).toBeGreaterThanOrEqual(run.read + 4_096 - 200);
  });

  it("the whole file when the summary lies beyond the prefix", () => {
    const run = load("late");
    expect(run.summary).toBe("Late: Merge PDF files.");
    expect(run.bytes).toBeGreaterThan(4_096 + 2 * run.read - 200);
  });
});
