import { appendFile, mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { digestOf, type Served, serve, skillBody, staticFiles, tarGz } from "@skill/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pack, skillMd, tempDir } from "../test/server.js";
import { SCHEMA_V0_2 } from "./manifest.js";
import { pull } from "./pull.js";
import { verifyCache } from "./verify-cache.js";

let root: string;
let cacheDir: string;
let cleanup: () => Promise<void>;
const servers: Served[] = [];

beforeEach(async () => {
  ({ path: root, cleanup } = await tempDir());
  cacheDir = join(root, "cache");
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await cleanup();
});

async function pulled() {
  const archive = tarGz([
    { name: "SKILL.md", body: skillBody("arch") },
    { name: "ref.md", body: "reference\n" },
  ]);
  const files = new Map<string, string | Buffer>([
    [
      "index.json",
      JSON.stringify({
        $schema: SCHEMA_V0_2,
        skills: [
          { name: "arch", type: "archive", url: "arch.tar.gz", digest: digestOf(archive) },
          { name: "one", type: "skill-md", url: "one/SKILL.md", digest: digestOf(skillMd("one")) },
        ],
      }),
    ],
    ["arch.tar.gz", archive],
    ["one/SKILL.md", skillMd("one")],
  ]);
  const server = await serve(staticFiles(files));
  servers.push(server);
  return { server, result: await pull(server.index, { cacheDir }) };
}

describe("verifyCache", () => {
  it("finds nothing wrong in a fresh pull", async () => {
    const { server } = await pulled();
    expect(await verifyCache(cacheDir, server.index)).toEqual({
      ok: true,
      packs: 1,
      checked: 2,
      problems: [],
    });
    expect(await verifyCache(cacheDir)).toEqual({ ok: true, packs: 1, checked: 2, problems: [] });
  });

  it("reports edited, deleted and added files", async () => {
    const { server, result } = await pulled();
    await appendFile(join(result.dir, "arch", "ref.md"), "tampered\n");
    await rm(join(result.dir, "one", "SKILL.md"));
    await writeFile(join(result.dir, "one", "planted.sh"), "rm -rf ~\n");
    const report = await verifyCache(cacheDir, server.index);
    expect(report.ok).toBe(false);
    expect(report.checked).toBe(2);
    expect(report.problems).toEqual([
      { url: server.index, name: "arch", path: join(result.dir, "arch", "ref.md"), kind: "modified" },
      { url: server.index, name: "one", path: join(result.dir, "one", "SKILL.md"), kind: "missing" },
      { url: server.index, name: "one", path: join(result.dir, "one", "planted.sh"), kind: "extra" },
    ]);
  });

  it("reports planted dot-files, links and whole folders as extra, never following a link out", async () => {
    const { server, result } = await pulled();
    const arch = join(result.dir, "arch");
    await mkdir(join(arch, ".hidden", "sub"), { recursive: true });
    await writeFile(join(arch, ".hidden", "sub", "SKILL.md"), skillMd("planted"));
    await writeFile(join(arch, ".env"), "TOKEN=x\n");
    await symlink("/etc", join(arch, "etc"));
    await symlink("ref.md", join(arch, "alias.md"));
    const report = await verifyCache(cacheDir, server.index);
    expect(report.problems.map((p) => [p.kind, p.path])).toEqual(
      [".env", ".hidden/sub/SKILL.md", "alias.md", "etc"].map((f) => ["extra", join(arch, f)]),
    );
  });

  it("never reads a file that a tampered state names outside the skill folder", async () => {
    const { server, result } = await pulled();
    const { createHash } = await import("node:crypto");
    const { readFile } = await import("node:fs/promises");
    // A file beside the cache, and a state that vouches for it as part of a skill.
    const secret = join(root, "secret.txt");
    await writeFile(secret, "secret\n");
    const statePath = join(result.dir, ".state.json");
    const state = JSON.parse(await readFile(statePath, "utf8"));
    const sha256 = createHash("sha256").update("secret\n").digest("hex");
    state.skills.one.files["../../../secret.txt"] = { size: 7, sha256 };
    await writeFile(statePath, JSON.stringify(state));
    const report = await verifyCache(cacheDir, server.index);
    expect(report.problems).toEqual([
      { url: server.index, name: "one", path: join(root, "secret.txt"), kind: "missing" },
    ]);
  });

  it("checks v0.1 skills against the hashes recorded when they were downloaded", async () => {
    const server = await serve(staticFiles(pack({ a: { "SKILL.md": skillMd("a") } })));
    servers.push(server);
    const result = await pull(server.index, { cacheDir });
    expect((await verifyCache(cacheDir, server.index)).ok).toBe(true);
    await writeFile(join(result.dir, "a", "SKILL.md"), skillMd("a", "Edited locally"));
    expect((await verifyCache(cacheDir, server.index)).problems.map((p) => p.kind)).toEqual(["modified"]);
  });

  it("calls a cache without recorded hashes unverifiable", async () => {
    const server = await serve(staticFiles(pack({ a: { "SKILL.md": skillMd("a") } })));
    servers.push(server);
    const result = await pull(server.index, { cacheDir });
    const statePath = join(result.dir, ".state.json");
    const { readFile } = await import("node:fs/promises");
    const state = JSON.parse(await readFile(statePath, "utf8"));
    delete state.skills.a.files["SKILL.md"].sha256;
    await writeFile(statePath, JSON.stringify(state));
    expect((await verifyCache(cacheDir, server.index)).problems).toEqual([
      { url: server.index, name: "a", path: join(result.dir, "a"), kind: "unverifiable" },
    ]);
  });

  it("reports a pack that was never pulled as nothing checked", async () => {
    expect(await verifyCache(cacheDir, "https://example.com/")).toEqual({
      ok: true,
      packs: 0,
      checked: 0,
      problems: [],
    });
  });
});
