import { stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { removeTempDirs, tempDir } from "@skill/test-utils";
import { afterAll, describe, expect, it } from "vitest";
import { fileKey, sameFileKey } from "./file-key.js";

afterAll(removeTempDirs);

describe("fileKey", () => {
  it("keeps the path and the four fields of the state, nothing else", async () => {
    const file = join(await tempDir("skill-file-key-"), "SKILL.md");
    await writeFile(file, "---\nname: a\n---\n");
    const stats = await stat(file);
    expect(fileKey(file, stats)).toEqual({
      path: file,
      dev: stats.dev,
      ino: stats.ino,
      size: stats.size,
      mtimeMs: stats.mtimeMs,
    });
  });

  it("takes any object with those fields", () => {
    const key = fileKey("/s/SKILL.md", { dev: 1, ino: 2, size: 3, mtimeMs: 4.5 });
    expect(key).toEqual({ path: "/s/SKILL.md", dev: 1, ino: 2, size: 3, mtimeMs: 4.5 });
  });

  it("compares two keys field by field: any of the five differing is another state", () => {
    const key = fileKey("/s/SKILL.md", { dev: 1, ino: 2, size: 3, mtimeMs: 4.5 });
    expect(sameFileKey(key, { ...key })).toBe(true);
    for (const change of [{ path: "/t/SKILL.md" }, { dev: 9 }, { ino: 9 }, { size: 9 }, { mtimeMs: 4.6 }]) {
      expect(sameFileKey(key, { ...key, ...change })).toBe(false);
    }
  });
});
