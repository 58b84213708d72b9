import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { digestOf, type Served, send, serve, skillBody, staticFiles, tarGz, until } from "@skill/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { rejection, skillMd, tempDir } from "../test/server.js";
import { urlToDirName } from "./cache-dir.js";
import { SCHEMA_V0_2 } from "./manifest.js";
import { pull } from "./pull.js";

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

/**
 * A pack of `n` skills (archives and one-file skills, half each) whose artifacts come slowly:
 * the first half of each body at once, the rest after `dripMs`, so many are mid-download at once.
 */
async function slowPack(n: number, dripMs: number): Promise<Served> {
  const files = new Map<string, Buffer>();
  const skills = Array.from({ length: n }, (_, i) => {
    const name = `s${String(i).padStart(3, "0")}`;
    const archive = i % 2 === 0;
    const body = archive
      ? tarGz([
          { name: "SKILL.md", body: skillBody(name) },
          { name: "ref.md", body: "x".repeat(2000) },
        ])
      : Buffer.from(skillMd(name));
    const path = archive ? `${name}.tar.gz` : `${name}/SKILL.md`;
    files.set(path, body);
    return { name, type: archive ? "archive" : "skill-md", url: path, digest: digestOf(body) };
  });
  const index = JSON.stringify({ $schema: SCHEMA_V0_2, skills });
  const server = await serve(async (req, res, log) => {
    if (req.url === "/index.json") return staticFiles(new Map([["index.json", index]]))(req, res, log);
    const body = files.get((req.url ?? "/").slice(1));
    if (!body) return send(res, log, 404);
    res.writeHead(200, { "content-length": String(body.length) });
    res.write(body.subarray(0, body.length >> 1));
    setTimeout(() => res.end(body.subarray(body.length >> 1)), dripMs).unref();
  });
  servers.push(server);
  return server;
}

/** What the pack folder holds beside skills: staging folders, the lock, temp files. */
async function leftovers(packDir: string): Promise<string[]> {
  const entries = await readdir(packDir).catch(() => [] as string[]);
  return entries.filter((e) => e.startsWith(".") && e !== ".state.json" && e !== ".index.json").sort();
}

describe("an aborted pull cleans up before it rejects", () => {
  it("a first pull aborted mid-way leaves no staging folder and no lock", async () => {
    const server = await slowPack(300, 60_000);
    const controller = new AbortController();
    const pending = pull(server.index, { cacheDir, signal: controller.signal, concurrency: 32 });
    await until(() => server.requests.length > 30);

    controller.abort();
    const error = await rejection(pending);

    expect(error.code).toBe("ABORTED");
    const packDir = join(cacheDir, urlToDirName(server.index));
    expect(await leftovers(packDir)).toEqual([]);
    expect((await readdir(packDir)).filter((e) => !e.startsWith("."))).toEqual([]);
  });

  it("an update aborted mid-way keeps the previous copy, and nothing else", async () => {
    const fast = await slowPack(40, 0);
    const first = await pull(fast.index, { cacheDir, concurrency: 8 });
    await fast.close();
    const before = (await readdir(first.dir)).sort();
    // The same URL path on a new server: the pack folder is keyed by origin, so copy it over.
    const slow = await slowPack(40, 60_000);
    const { cp } = await import("node:fs/promises");
    const packDir = join(cacheDir, urlToDirName(slow.index));
    await cp(first.dir, packDir, { recursive: true });
    const { readFile, writeFile } = await import("node:fs/promises");
    const statePath = join(packDir, ".state.json");
    const state = JSON.parse(await readFile(statePath, "utf8"));
    // Every skill's digest changes, so each one is downloaded again.
    for (const skill of Object.values(state.skills) as { digest: string }[])
      skill.digest = `sha256:${"0".repeat(64)}`;
    await writeFile(statePath, JSON.stringify(state));

    const controller = new AbortController();
    const pending = pull(slow.index, { cacheDir, signal: controller.signal, concurrency: 8 });
    await until(() => slow.requests.length > 8);
    controller.abort();
    expect((await rejection(pending)).code).toBe("ABORTED");

    expect((await readdir(packDir)).sort()).toEqual(before);
  });
});
