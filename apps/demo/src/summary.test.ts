// @module-tag slow: every test here runs the built `skill` CLI in a child process.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type PackServer, sandbox, servePack, skill, skillMd } from "../test/remote-pack.js";

let box: Awaited<ReturnType<typeof sandbox>>;
const servers: PackServer[] = [];
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await box.cleanup();
});

/** A collection: `good` skills with an unknown field each (a warning), and `bad` that cannot be listed. */
async function collection(good: number, bad: number): Promise<string> {
  const dir = join(box.root, "collection");
  for (let i = 0; i < good; i++) {
    await mkdir(join(dir, `s${i}`), { recursive: true });
    await writeFile(
      join(dir, `s${i}`, "SKILL.md"),
      `---\nname: s${i}\ndescription: Skill ${i}\nversion: 1\n---\nbody\n`,
    );
  }
  for (let i = 0; i < bad; i++) {
    await mkdir(join(dir, `broken${i}`), { recursive: true });
    await writeFile(join(dir, `broken${i}`, "SKILL.md"), "no frontmatter here\n");
  }
  return dir;
}

describe("skill pack on a big collection", () => {
  it("says the outcome first, counts many warnings by rule, and packs the rest with --skip-invalid", async () => {
    const dir = await collection(30, 2);
    const refused = await skill([...box.base, "pack", dir], box.root);
    expect(refused.code).toBe(1);
    expect(refused.stderr.split("\n")[0]).toContain(
      "nothing written: 2 skills cannot be listed (fix them, or pass --skip-invalid",
    );
    expect(refused.stderr).toContain("30 warnings (--verbose lists each): 30 unknown-field:version");

    const packed = await skill([...box.base, "pack", "--skip-invalid", dir], box.root);
    expect(packed.code).toBe(0);
    expect(packed.stdout.split("\n")[0]).toMatch(
      /wrote .*index\.json: 30 skills; 2 left out \(--skip-invalid\), 30 warnings/,
    );
    expect(packed.stderr).toContain("left out: Failed to parse frontmatter");
    const index = JSON.parse(await readFile(join(dir, "index.json"), "utf8"));
    expect(index.skills).toHaveLength(30);

    const quiet = await skill([...box.base, "pack", "--skip-invalid", "--quiet", dir], box.root);
    expect(quiet.code).toBe(0);
    expect(quiet.stdout.trim().split("\n")).toHaveLength(1);
    expect(quiet.stderr).not.toContain("warnings");
  }, 60_000);
});

describe("skill pull of a big pack", () => {
  it("sums up the new skills of a first pull, and --quiet says the outcome only", async () => {
    const skills: Record<string, string> = {};
    for (let i = 0; i < 15; i++)
      skills[`s${i}`] = skillMd(`s${i}`, `Skill ${i}`, `# s${i}\n\nRun \`curl https://example.com/${i}\`.\n`);
    const server = await servePack(skills);
    servers.push(server);
    const first = await skill([...box.base, "pull", server.index], box.root);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("15 new skills: 15 name hosts (--verbose lists each");
    expect(first.stdout).not.toContain("s3 (new)");
    const quiet = await skill([...box.base, "pull", "--quiet", server.index], box.root);
    expect(quiet.stdout.trim().split("\n")).toEqual([
      expect.stringContaining("15 skills"),
      expect.stringContaining("cache:"),
    ]);
  }, 60_000);
});
