import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL(".", import.meta.url));

// A skill's bytes are written by core's stage and read by core's reader; what remote does with
// node:fs itself is its own bookkeeping, named here file by file with the reason.
const ALLOWED: Record<string, string> = {
  "cache-lock.ts": "lstat, readFile, unlink, utimes, writeFile", // the pack's lock file
  "cache-state.ts": "lstat, open, readFile, readdir, rename, rm", // state and index copy, recovery, presence
  "commit.ts": "lstat, readdir, rename, rm", // the pack's commit: staged skill folders renamed into place
  "download.ts": "mkdtemp, rm", // the scratch folder that holds core's stage
  "fetch-body.ts": "FileHandle, open", // a downloaded archive too large for memory (not a skill path)
  "pinned.ts": "rm", // removes that downloaded archive
  "pull.ts": "lstat, mkdir", // the cache and pack folders
  "tar-reader.ts": "createReadStream", // gunzip of that downloaded archive
};

describe("@skill/remote reads and writes skills only through core", () => {
  it("uses node:fs for its own bookkeeping alone, file by file", () => {
    const found: Record<string, string> = {};
    for (const name of readdirSync(SRC).sort()) {
      if (!name.endsWith(".ts") || name.endsWith(".test.ts")) continue;
      const text = readFileSync(`${SRC}${name}`, "utf8");
      const names: string[] = [];
      for (const match of text.matchAll(
        /import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+"node:fs(?:\/promises)?"/g,
      )) {
        names.push(...(match[1] ?? "").split(",").map((n) => n.trim().replace(/^type\s+/, "")));
      }
      if (names.length > 0) found[name] = names.filter(Boolean).sort().join(", ");
      expect(text, name).not.toMatch(/\bcopyFile\(/);
    }
    expect(found).toEqual(ALLOWED);
  });
});
