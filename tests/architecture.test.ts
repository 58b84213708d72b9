import { describe, expect, it } from "vitest";
import {
  type AllowList,
  importCircles,
  pathRules,
  privateReaders,
  privateWriters,
  ROOT,
  readSources,
  ruleBreaks,
  secondMechanisms,
  testHelperImports,
  walkers,
} from "./architecture.js";

const sources = readSources(ROOT);

/** Folder listings that are not walks of a skill folder. */
const WALKS: AllowList = {
  "packages/discovery/src/scan-tree.ts":
    "discovery's crawl of skill roots (finding SKILL.md files), not of a skill folder: one tree of a root",
  "packages/discovery/src/scan-options.ts": "the same crawl: the folder listings its scans share",
  "packages/remote/src/cache-state.ts":
    "remote's bookkeeping of its own cache folders, not of a skill folder",
  "packages/remote/src/commit.ts": "remote's recovery of its own staging folders after a crash",
  "apps/demo/src/head-cache-files.ts": "the CLI's own head cache folder, pruned of stale cache files",
};

/** Streams and copies that are not of a skill's files. */
const READERS: AllowList = {
  "packages/remote/src/tar-reader.ts":
    "gunzips a downloaded archive too large for memory; each skill file goes to core's writer",
};

/** Writes that are not of a skill's bytes. */
const WRITERS: AllowList = {
  "packages/remote/src/cache-state.ts": "remote's own state file of a pack in its cache",
  "packages/remote/src/cache-lock.ts": "remote's lock file of a pack being pulled",
  "packages/remote/src/fetch-body.ts":
    "a downloaded archive too large for memory, to a scratch file of the cache",
};

/** Lexical containment checks that are not the path rule of skill files. */
const PATH_RULES: AllowList = {
  "packages/discovery/src/paths.ts":
    "discovery's scan of roots: lexical, for roots and the project walk, named isWithin",
  "packages/discovery/src/nested.ts":
    "nested copies: compares two locations of a scan, no file is opened by it",
};

describe("the house rules (DESIGN §12.1)", () => {
  it("reads the sources of every package and app", () => {
    expect([...sources.keys()].some((p) => p.startsWith("packages/core/src/"))).toBe(true);
    expect([...sources.keys()].some((p) => p.startsWith("apps/demo/src/"))).toBe(true);
    expect([...sources.keys()].some((p) => p.endsWith(".test.ts"))).toBe(false);
  });

  it("no package but core walks a skill folder", () => {
    expect(walkers(sources, WALKS)).toEqual([]);
  });

  it("no package but core streams or copies a skill file", () => {
    expect(privateReaders(sources, READERS)).toEqual([]);
  });

  it("no package but core writes a skill's bytes (stageSkillFolder, writeInside, linkInside)", () => {
    expect(privateWriters(sources, WRITERS)).toEqual([]);
  });

  it("one path-containment rule: core's isInside/resolveInside", () => {
    expect(pathRules(sources, PATH_RULES)).toEqual([]);
  });

  it("one of each small mechanism: core's isMapping, errorMessage, errnoOf, abortError, sha256Digest, isDigest, redactUrl", () => {
    expect(secondMechanisms(sources)).toEqual([]);
  });

  it("no published package's source imports @skill/test-utils", () => {
    expect(testHelperImports(sources)).toEqual([]);
  });

  it("no import circle in any package or app", () => {
    expect(importCircles(sources)).toEqual([]);
  });

  it("each package imports only what the dependency rule allows (core; tool: format; install: lock, discovery)", () => {
    expect(ruleBreaks(sources)).toEqual([]);
  });

  it("every allowed exception still exists and still needs its exception", () => {
    for (const [list, check] of [
      [WALKS, walkers],
      [READERS, privateReaders],
      [WRITERS, privateWriters],
      [PATH_RULES, pathRules],
    ] as const) {
      for (const path of Object.keys(list)) {
        expect(sources.has(path), path).toBe(true);
        expect(check(new Map([[path, sources.get(path) as string]]), {}), path).toEqual([path]);
      }
    }
  });
});

describe("each rule catches what it is for (planted violations)", () => {
  const planted = (path: string, text: string) => new Map([...sources, [path, text]]);

  it("a second path rule", () => {
    const text =
      'import { sep } from "node:path";\nexport function isWithinRoot(a: string, b: string) { return a.startsWith(b + sep); }\n';
    expect(pathRules(planted("packages/audit/src/where.ts", text), PATH_RULES)).toEqual([
      "packages/audit/src/where.ts",
    ]);
  });

  it("a createReadStream of a skill file outside core", () => {
    const text =
      'import { createReadStream } from "node:fs";\nexport const open = (p: string) => createReadStream(p);\n';
    expect(privateReaders(planted("packages/mcp/src/stream.ts", text), READERS)).toEqual([
      "packages/mcp/src/stream.ts",
    ]);
  });

  it("a mapping check of a package's own", () => {
    const text =
      'function isRecord(v: unknown): v is Record<string, unknown> {\n  return typeof v === "object" && v !== null;\n}\n';
    expect(secondMechanisms(planted("packages/lock/src/shape.ts", text))).toEqual([
      "packages/lock/src/shape.ts",
    ]);
  });

  it("a test-utils import from a published source", () => {
    const text = 'import { tempDir } from "@skill/test-utils";\nexport { tempDir };\n';
    expect(testHelperImports(planted("packages/discovery/src/helper.ts", text))).toEqual([
      "packages/discovery/src/helper.ts",
    ]);
  });

  it("an import circle", () => {
    const circle = new Map([
      ["packages/x/src/a.ts", 'import { b } from "./b.js";\nexport const a = 1;\n'],
      ["packages/x/src/b.ts", 'import { a } from "./a.js";\nexport const b = 2;\n'],
    ]);
    expect(importCircles(circle)).toEqual([
      ["packages/x/src/a.ts", "packages/x/src/b.ts", "packages/x/src/a.ts"],
    ]);
  });

  it("a walk, a write and a forbidden package import", () => {
    expect(walkers(planted("packages/audit/src/w.ts", "readdirSync(dir)"), WALKS)).toEqual([
      "packages/audit/src/w.ts",
    ]);
    expect(privateWriters(planted("packages/mcp/src/w.ts", "await writeFile(p, b)"), WRITERS)).toEqual([
      "packages/mcp/src/w.ts",
    ]);
    expect(ruleBreaks(planted("packages/audit/src/r.ts", 'import { x } from "@skill/remote";'))).toEqual([
      "packages/audit/src/r.ts: @skill/remote",
    ]);
  });
});
