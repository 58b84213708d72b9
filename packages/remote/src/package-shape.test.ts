import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { type Served, serve, staticFiles } from "@skill/test-utils";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DIST_CJS, DIST_ESM, pullInProcess, requireBuild } from "../test/dist.js";
import { pack, skillMd, tempDir } from "../test/server.js";

const EXPORTS = [
  "PULL_DEFAULTS",
  "SCHEMA_V0_2",
  "buildManifest",
  "defaultCacheDir",
  "parseManifest",
  "pull",
  "redactUrl",
  "remoteSource",
  "urlToDirName",
  "verifyCache",
  "writeManifest",
];

let root: string;
let cleanup: () => Promise<void>;
let server: Served;

beforeAll(requireBuild);

beforeEach(async () => {
  ({ path: root, cleanup } = await tempDir());
  server = await serve(
    staticFiles(pack({ "remote-skill": { "SKILL.md": skillMd("remote-skill"), "ref.md": "r" } })),
  );
});

afterEach(async () => {
  await server.close();
  await cleanup();
});

describe("the built package", { tags: ["built"], timeout: 30_000 }, () => {
  it("require()s as CommonJS and pulls through node-fetch, loaded lazily", async () => {
    const remote = createRequire(import.meta.url)(DIST_CJS) as Record<string, unknown>;
    expect(Object.keys(remote).sort()).toEqual(EXPORTS);
    const pull = remote.pull as typeof import("../src/pull.js").pull;

    const result = await pull(server.index, { cacheDir: join(root, "cjs") });

    expect(result.files).toHaveLength(1);
    expect(await readFile(result.files[0] as string, "utf8")).toBe(skillMd("remote-skill"));
  });

  it.each([
    ["CommonJS", DIST_CJS],
    ["ESM", DIST_ESM],
  ])("pulls in a plain Node process through the %s entry", { tags: ["slow"] }, async (_kind, entry) => {
    const { done } = pullInProcess(entry, server.index, join(root, "cache"));
    const { code, stdout, stderr } = await done;
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const { result } = JSON.parse(stdout) as { result: { files: string[]; fromCache: boolean } };
    expect(result.fromCache).toBe(false);
    expect(result.files).toHaveLength(1);
    expect(await readFile(result.files[0] as string, "utf8")).toBe(skillMd("remote-skill"));
  });

  it("exports the same names from both entries", async () => {
    const esm = (await import(/* @vite-ignore */ DIST_ESM)) as Record<string, unknown>;
    expect(Object.keys(esm).sort()).toEqual(EXPORTS);
  });
});
