import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/**
 * The only sources allowed to list folders: core's walker of a skill folder, discovery's
 * crawl of skill roots, and remote's bookkeeping of its own cache (not skill folders).
 */
const ALLOWED = new Set([
  "packages/core/src/files/folder-walk.ts",
  "packages/discovery/src/scan.ts",
  "packages/remote/src/cache-state.ts",
  "packages/remote/src/commit.ts",
]);

const WALKS = /\b(readdir|readdirSync|opendir|opendirSync|fdir)\b/;

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "__fixtures__" && entry.name !== "node_modules") out.push(...sources(path));
    } else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts")) {
      out.push(path);
    }
  }
  return out;
}

describe("one walker of skill folders", () => {
  it("no package but core walks a skill folder (discovery's root crawl and remote's cache aside)", () => {
    const packages = join(ROOT, "packages");
    const walkers = readdirSync(packages)
      .flatMap((name) => sources(join(packages, name, "src")))
      .map((path) => relative(ROOT, path).split("\\").join("/"))
      .filter((path) => !ALLOWED.has(path))
      .filter((path) => WALKS.test(readFileSync(join(ROOT, path), "utf8")));
    expect(walkers).toEqual([]);
  });
});
