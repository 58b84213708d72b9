import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { memoryLogger, removeTempDirs, skillText, tempDir } from "@skill/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { scanSkillFiles } from "./scan.js";

afterEach(removeTempDirs);

/** `count` skill folders under `<base>/store`, and `<base>/root` holding either copies' links or nothing. */
function skillStore(base: string, count: number): string[] {
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const name = `skill-${String(i).padStart(5, "0")}`;
    mkdirSync(join(base, "store", name), { recursive: true });
    writeFileSync(join(base, "store", name, "SKILL.md"), skillText(name));
    names.push(name);
  }
  return names;
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await work();
  return { ms: performance.now() - start, value };
}

describe("scanSkillFiles on hostile layouts", () => {
  it("scans 5,000 symlinked skill folders in near-linear time (within 5× of 5,000 plain ones, plus slack)", {
    tags: ["slow"],
    timeout: 120_000,
  }, async () => {
    const base = await tempDir();
    const names = skillStore(base, 5_000);
    const root = join(base, "root");
    mkdirSync(root);
    for (const name of names) symlinkSync(join(base, "store", name), join(root, name));

    await scanSkillFiles(join(base, "store")); // warm the dentry cache
    const plain = await timed(() => scanSkillFiles(join(base, "store")));
    const linked = await timed(() => scanSkillFiles(root));
    expect(linked.value).toHaveLength(5_000);
    expect(linked.value[0]).toBe(join(root, names[0] as string, "SKILL.md"));
    // Each link costs a stat and a realpath more than a plain folder (about 3× here); a scan
    // that compares every link with every earlier one is 50-100× slower at this size.
    expect(linked.ms).toBeLessThan(15 * plain.ms + 500);
  });

  it("names a folder whose name is not valid UTF-8 as such, instead of saying it vanished", async () => {
    const root = await tempDir();
    mkdirSync(join(root, "good"));
    writeFileSync(join(root, "good", "SKILL.md"), skillText("good"));
    const bad = Buffer.concat([Buffer.from(`${root}/bad-`), Buffer.from([0xff, 0xfe])]);
    mkdirSync(bad);
    writeFileSync(Buffer.concat([bad, Buffer.from("/SKILL.md")]), skillText("bad"));
    const logger = memoryLogger();
    expect(await scanSkillFiles(root, { logger })).toEqual([join(root, "good", "SKILL.md")]);
    expect(logger.warnings).toHaveLength(1);
    const warning = logger.warnings[0];
    expect(warning?.fields).toMatchObject({ code: "folder-name-not-utf8" });
    expect(warning?.message).toContain("not valid UTF-8");
    expect(warning?.message).not.toContain("vanished");
  });
});

describe("scans are bounded: links back up are not followed (link-to-ancestor)", () => {
  /** `base/home` (a skill the user keeps), `base/work/root/a/one`, `base/shared/linked` (a skill elsewhere). */
  async function world() {
    const base = await tempDir();
    const home = join(base, "home");
    const root = join(base, "work", "root");
    mkdirSync(join(home, "secret"), { recursive: true });
    writeFileSync(join(home, "secret", "SKILL.md"), skillText("secret"));
    mkdirSync(join(root, "a", "one"), { recursive: true });
    writeFileSync(join(root, "a", "one", "SKILL.md"), skillText("one"));
    mkdirSync(join(base, "shared", "linked"), { recursive: true });
    writeFileSync(join(base, "shared", "linked", "SKILL.md"), skillText("linked"));
    return { base, home, root };
  }

  it("skips links to the filesystem root, the home folder and above it, and the scan root and above it; follows the rest", async () => {
    const { base, home, root } = await world();
    symlinkSync("/", join(root, "all"));
    symlinkSync(home, join(root, "home"));
    symlinkSync(base, join(root, "a", "above-home"));
    symlinkSync(root, join(root, "a", "itself"));
    symlinkSync(join(base, "work"), join(root, "a", "above-root"));
    symlinkSync(join(base, "shared", "linked"), join(root, "linked"));
    const skipped: string[] = [];
    const logger = memoryLogger();
    const files = await scanSkillFiles(root, {
      home,
      logger,
      onSkip: (s) => skipped.push(`${s.reason} ${s.path.slice(root.length + 1)}`),
    });
    expect(files).toEqual([join(root, "a", "one", "SKILL.md"), join(root, "linked", "SKILL.md")]);
    expect(skipped.sort()).toEqual([
      "link-to-ancestor a/above-home",
      "link-to-ancestor a/above-root",
      "link-to-ancestor a/itself",
      "link-to-ancestor all",
      "link-to-ancestor home",
    ]);
    const messages = logger.warnings.map((w) => w.message).sort();
    expect(messages).toContain(
      `Not following symlink ${join(root, "all")}: it points to /, the filesystem root; skills there are not looked for`,
    );
    expect(messages).toContain(
      `Not following symlink ${join(root, "home")}: it points to ${home}, the home folder; skills there are not looked for`,
    );
    expect(messages.join("\n")).toContain(`it points to ${base}, a folder holding the home folder`);
    expect(messages.join("\n")).toContain(`it points to ${root}, the skill folder it is in`);
    expect(logger.warnings.map((w) => w.fields)).toEqual(
      logger.warnings.map(() => expect.objectContaining({ code: "link-to-ancestor" })),
    );
  });

  it("judges the home folder by its real path (a home reached through a link is still the home)", async () => {
    const { base, home, root } = await world();
    symlinkSync(home, join(base, "home-link"));
    symlinkSync(home, join(root, "home"));
    const skipped: string[] = [];
    const files = await scanSkillFiles(root, {
      home: join(base, "home-link"),
      onSkip: (s) => skipped.push(s.reason),
    });
    expect(files).toEqual([join(root, "a", "one", "SKILL.md")]);
    expect(skipped).toEqual(["link-to-ancestor"]);
  });
});
