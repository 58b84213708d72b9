import { stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { removeTempDirs, tempDir } from "@skill/test-utils";
import { afterAll, describe, expect, it } from "vitest";
import { fileKey, sameFileKey } from "./file-key.js";

afterAll(removeTempDirs);

describe("fileKey", () => {
  it("keeps the path and the five fields of the state, nothing else", async () => {
    const file = join(await tempDir("skill-file-key-"), "SKILL.md");
    await writeFile(file, "---\nname: a\n---\n");
    const stats = await stat(file);
    expect(fileKey(file, stats)).toEqual({
      path: file,
      dev: stats.dev,
      ino: stats.ino,
      size: stats.size,
      mtimeMs: stats.mtimeMs,
      ctimeMs: stats.ctimeMs,
    });
  });

  it("takes any object with those fields, the change time when it has one", () => {
    const key = fileKey("/s/SKILL.md", { dev: 1, ino: 2, size: 3, mtimeMs: 4.5 });
    expect(key).toEqual({ path: "/s/SKILL.md", dev: 1, ino: 2, size: 3, mtimeMs: 4.5 });
    expect(fileKey("/s/SKILL.md", { dev: 1, ino: 2, size: 3, mtimeMs: 4.5, ctimeMs: 6 }).ctimeMs).toBe(6);
  });

  it("compares two keys field by field: any of the six differing is another state", () => {
    const key = fileKey("/s/SKILL.md", { dev: 1, ino: 2, size: 3, mtimeMs: 4.5, ctimeMs: 6 });
    expect(sameFileKey(key, { ...key })).toBe(true);
    const changes = [
      { path: "/t/SKILL.md" },
      { dev: 9 },
      { ino: 9 },
      { size: 9 },
      { mtimeMs: 4.6 },
      { ctimeMs: 7 },
    ];
    for (const change of changes) expect(sameFileKey(key, { ...key, ...change })).toBe(false);
    // A change time on one side only is another state too.
    const { ctimeMs: _, ...without } = key;
    expect(sameFileKey(key, without)).toBe(false);
  });

  it("tells a file replaced in place with its size and mtime put back by its change time", async () => {
    const file = join(await tempDir("skill-file-key-"), "SKILL.md");
    const hourAgo = new Date(Date.now() - 3_600_000); // whole milliseconds: put back exactly
    await writeFile(file, "---\nname: a\n---\n");
    await utimes(file, hourAgo, hourAgo);
    const before = await stat(file);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await writeFile(file, "---\nname: b\n---\n");
    await utimes(file, hourAgo, hourAgo);
    const after = await stat(file);
    expect([after.ino, after.size, after.mtimeMs]).toEqual([before.ino, before.size, before.mtimeMs]);
    expect(sameFileKey(fileKey(file, before), fileKey(file, after))).toBe(false);
  });
});
