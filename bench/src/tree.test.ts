// @module-tag slow: generates bench trees of hundreds of skills, several times.
import { mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import { fdir } from "fdir";
import matter from "gray-matter";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readNameAndDescription } from "./approaches/floors.js";
import { treeSkillFiles } from "./layout.js";
import { skillChecksum } from "./protocol.js";
import { ensureTree, generateTree, SKILL_MTIME_S, settleMtimes, type TreeManifest, treeId } from "./tree.js";

let base: string;
let manifest: TreeManifest;

function allSkillFiles(root: string): string[] {
  return new fdir()
    .withFullPaths()
    .filter((p) => p.endsWith(`${sep}SKILL.md`))
    .crawl(root)
    .sync();
}

// Generating trees is disk-bound: generous limits so a loaded machine does not fail them.
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), "skill-bench-tree-"));
  manifest = ensureTree(base, { skills: 60, seed: 3 }).manifest;
}, 60_000);

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

describe("generated trees", () => {
  it("hold every description style, CRLF files, all depths and decoys", () => {
    expect(manifest.skills).toBe(60);
    const files = treeSkillFiles(manifest);
    const texts = files.map((f) => readFileSync(f, "utf8"));
    const styles = new Set(texts.map((t) => /^description: (["'>|]?)/m.exec(t)?.[1]));
    expect([...styles].sort()).toEqual(["", '"', "'", ">", "|"]);
    expect(texts.filter((t) => t.includes("\r\n")).length).toBeGreaterThan(0);
    const depth = (f: string) => {
      const root = manifest.roots.find((r) => f.startsWith(`${r}${sep}`)) as string;
      return f.slice(root.length + 1).split(sep).length;
    };
    expect([...new Set(files.map(depth))].sort()).toEqual([2, 3, 4, 5]);
    expect(manifest.decoys).toBeGreaterThanOrEqual(2);
  });

  it("put the decoys in node_modules, where an unpruned crawl finds them", () => {
    const found = manifest.roots.flatMap((root) =>
      statSync(root, { throwIfNoEntry: false }) ? allSkillFiles(root) : [],
    );
    const inNodeModules = found.filter((p) => p.includes(`${sep}node_modules${sep}`));
    expect(inNodeModules).toHaveLength(manifest.decoys);
    expect(found).toHaveLength(manifest.skills + manifest.decoys);
  });

  it("write the checksum that YAML gives, which the floor's reader reproduces", () => {
    const files = manifest.roots
      .flatMap((root) => (statSync(root, { throwIfNoEntry: false }) ? allSkillFiles(root) : []))
      .filter((p) => !p.includes(`${sep}node_modules${sep}`));
    const yaml = files.map((file) => {
      const { data } = matter(readFileSync(file, "utf8"));
      return { name: String(data.name), description: String(data.description) };
    });
    const floor = files.map((file) => readNameAndDescription(readFileSync(file, "utf8")));
    expect(skillChecksum(yaml)).toBe(manifest.checksum);
    expect(floor.map((p) => p && { ...p, description: p.description.trim() })).toEqual(
      yaml.map((p) => ({ ...p, description: p.description.trim() })),
    );
  });

  it("are deterministic: the same seed gives the same tree, another seed another one", {
    timeout: 60_000,
  }, () => {
    const again = generateTree(join(base, "again"), { skills: 60, seed: 3 });
    const other = generateTree(join(base, "other"), { skills: 60, seed: 4 });
    expect(again.checksum).toBe(manifest.checksum);
    expect(again.bytes).toBe(manifest.bytes);
    expect(again.files).toBe(manifest.files);
    expect(other.checksum).not.toBe(manifest.checksum);
  });

  it("are reused when size, seed and version match, and redone when the manifest is gone or stale", {
    timeout: 60_000,
  }, () => {
    expect(ensureTree(base, { skills: 60, seed: 3 }).reused).toBe(true);
    const json = join(base, `${treeId({ skills: 60, seed: 3 })}.json`);
    writeFileSync(json, JSON.stringify({ version: -1 }));
    const redone = ensureTree(base, { skills: 60, seed: 3 });
    expect(redone.reused).toBe(false);
    expect(redone.manifest.checksum).toBe(manifest.checksum);
    expect(JSON.parse(readFileSync(json, "utf8")).checksum).toBe(manifest.checksum);
  });
});

describe("the SKILL.md modification times", () => {
  it("are one whole second far in the past, given back on reuse to a file touched since", () => {
    const files = treeSkillFiles(manifest);
    expect(files).toHaveLength(manifest.skills);
    for (const f of files) expect(statSync(f).mtimeMs).toBe(SKILL_MTIME_S * 1000);
    const touched = files[0] as string;
    utimesSync(touched, new Date(), new Date());
    expect(statSync(touched).mtimeMs).not.toBe(SKILL_MTIME_S * 1000);
    expect(ensureTree(base, { skills: 60, seed: 3 }).reused).toBe(true);
    expect(statSync(touched).mtimeMs).toBe(SKILL_MTIME_S * 1000);
    expect(settleMtimes(files)).toBe(0);
  });
});

describe("the floor's reader", () => {
  it("reads each scalar style and CRLF, and stops at the first closing line", () => {
    const text = [
      "---",
      "license: MIT",
      'description: "Use when: a \\"quoted\\" word"',
      "name: a",
      "metadata:",
      "  name: nested",
      "---",
      "body",
      "---",
      "",
    ].join("\r\n");
    expect(readNameAndDescription(text)).toEqual({ name: "a", description: 'Use when: a "quoted" word' });
    expect(readNameAndDescription("---\nname: b\ndescription: >-\n  one\n  two\n---\n")).toEqual({
      name: "b",
      description: "one two",
    });
    expect(readNameAndDescription("---\nname: c\ndescription: |\n  one\n  two\n---\n")?.description).toBe(
      "one\ntwo",
    );
    expect(readNameAndDescription("---\nname: 'it''s'\ndescription: x\n---\n")?.name).toBe("it's");
    expect(readNameAndDescription("no frontmatter")).toBeUndefined();
    expect(readNameAndDescription("---\nname: d\ndescription: never closed\n")).toBeUndefined();
  });
});
