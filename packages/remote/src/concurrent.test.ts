import { readFile, rename } from "node:fs/promises";
import { join } from "node:path";
import { type Served, serve, staticFiles, until } from "@skill/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { skillMd, tempDir } from "../test/server.js";
import { legacyDirName, urlToDirName } from "./cache-dir.js";
import type { FetchLike } from "./http.js";
import { type PullProgress, pull } from "./pull.js";
import { remoteSource } from "./remote-source.js";
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

async function start(handler: Parameters<typeof serve>[0]): Promise<Served> {
  const server = await serve(handler);
  servers.push(server);
  return server;
}

/** The global fetch, counting the URLs it is asked for. */
function countingFetch(): FetchLike & { urls: string[] } {
  const urls: string[] = [];
  const fetch = ((url, init) => {
    urls.push(url);
    return globalThis.fetch(url, init) as unknown as ReturnType<FetchLike>;
  }) as FetchLike & { urls: string[] };
  fetch.urls = urls;
  return fetch;
}

const v01 = (names: readonly string[]) =>
  JSON.stringify({ skills: names.map((name) => ({ name, files: ["SKILL.md"] })) });

/** A slow pack server: each answer waits `ms`, so a second pull starts while the first runs. */
async function slowPack(files: Map<string, string>, ms = 60, etag = true): Promise<Served> {
  const inner = staticFiles(files, { etag });
  return start(async (req, res, log) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return inner(req, res, log);
  });
}

describe("concurrent pulls of one pack never share a result", () => {
  it("the second waits for the first, then revalidates with its own fetch and listener", async () => {
    const server = await slowPack(
      new Map([
        ["index.json", v01(["a"])],
        ["a/SKILL.md", skillMd("a")],
      ]),
    );
    const f1 = countingFetch();
    const f2 = countingFetch();
    const e2: PullProgress[] = [];

    const first = pull(server.index, { cacheDir, fetch: f1 });
    await until(() => server.hits("/index.json").length === 1);
    const second = pull(`${server.index}#same-pack`, { cacheDir, fetch: f2, onProgress: (e) => e2.push(e) });
    const [one, two] = await Promise.all([first, second]);

    expect(two).not.toBe(one);
    expect(one.changed.map((c) => c.name)).toEqual(["a"]);
    expect(two).toEqual({ ...one, changed: [] });
    expect(f1.urls).toEqual([server.index, `${server.url}a/SKILL.md`]);
    // The second asked for itself, after the first committed: one conditional index, one 304 file.
    expect(f2.urls).toEqual([server.index, `${server.url}a/SKILL.md`]);
    expect(
      server.hits("/index.json").map((r) => [r.headers["if-none-match"] !== undefined, r.status]),
    ).toEqual([
      [false, 200],
      [true, 304],
    ]);
    expect(e2.map((e) => e.type)).toEqual(["index", "file", "skill"]);
    expect(e2.at(-1)).toEqual({ type: "skill", name: "a", status: "unchanged" });
  });

  it("the second keeps its own limits: its index over maxFileBytes serves the first one's copy", async () => {
    const server = await slowPack(
      new Map([
        ["index.json", v01(["a"])],
        ["a/SKILL.md", skillMd("a")],
      ]),
      60,
      false,
    );
    const warnings: string[] = [];

    const first = pull(server.index, { cacheDir });
    await until(() => server.hits("/index.json").length === 1);
    const second = pull(server.index, {
      cacheDir,
      maxFileBytes: 10,
      logger: { warn: (m) => warnings.push(m) },
    });
    const [one, two] = await Promise.all([first, second]);

    expect(one.fromCache).toBe(false);
    expect(two.fromCache).toBe(true);
    expect(two.files).toEqual(one.files);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("(maxFileBytes)");
  });

  it("a second pull aborted while it waits gives up its turn; the first is unaffected", async () => {
    const server = await slowPack(
      new Map([
        ["index.json", v01(["a"])],
        ["a/SKILL.md", skillMd("a")],
      ]),
    );
    const first = pull(server.index, { cacheDir });
    await until(() => server.hits("/index.json").length === 1);
    const controller = new AbortController();
    const second = pull(server.index, { cacheDir, signal: controller.signal });
    controller.abort();
    await expect(second).rejects.toMatchObject({ code: "ABORTED" });
    expect((await first).files).toHaveLength(1);
    // The line moves on: a third pull gets the lock.
    expect((await pull(server.index, { cacheDir })).fromCache).toBe(false);
  });
});

describe("an index URL's query is part of the pack", () => {
  /** One index, answering by its `team` query. */
  async function teams(): Promise<Served> {
    const files = new Map([
      ["a/SKILL.md", skillMd("a")],
      ["b/SKILL.md", skillMd("b")],
    ]);
    return start(async (req, res, log) => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      const url = new URL(req.url ?? "/", "http://x");
      if (url.pathname === "/index.json") {
        files.set("index.json", v01([url.searchParams.get("team") ?? "none"]));
      }
      return staticFiles(files, { etag: false })(req, res, log);
    });
  }

  it("two queries, pulled at once, get their own skills in their own folders", async () => {
    const server = await teams();
    const a = `${server.index}?team=a`;
    const b = `${server.index}?team=b`;
    expect(urlToDirName(a)).not.toBe(urlToDirName(b));

    const [ra, rb] = await Promise.all([pull(a, { cacheDir }), pull(b, { cacheDir })]);

    expect(ra.files.map((f) => f.split("/").at(-2))).toEqual(["a"]);
    expect(rb.files.map((f) => f.split("/").at(-2))).toEqual(["b"]);
    expect(ra.dir).not.toBe(rb.dir);
    // Pulling B again leaves A's copy alone.
    await pull(b, { cacheDir });
    expect(await readFile(ra.files[0] as string, "utf8")).toBe(skillMd("a"));
    expect((await verifyCache(cacheDir, a)).checked).toBe(1);
  });

  it("a copy cached under the old, query-less folder name stays readable until the next pull", async () => {
    const server = await teams();
    const a = `${server.index}?team=a`;
    const pulled = await pull(a, { cacheDir });
    const legacy = join(cacheDir, legacyDirName(a) as string);
    await rename(pulled.dir, legacy);

    const offline = await pull(a, { cacheDir, offline: true });
    expect(offline.fromCache).toBe(true);
    expect(offline.files).toEqual([join(legacy, "a", "SKILL.md")]);
    const scan = await remoteSource([a], { cacheDir, refresh: "never" }).scan({});
    expect(scan.entries.map((e) => e.location)).toEqual([join(legacy, "a", "SKILL.md")]);
    expect(await verifyCache(cacheDir, a)).toMatchObject({ ok: true, packs: 1, checked: 1 });
    // Another query never reads it: the legacy folder holds team a.
    await expect(pull(`${server.index}?team=b`, { cacheDir, offline: true })).rejects.toMatchObject({
      code: "REMOTE_ERROR",
    });

    await server.close();
    const down = await pull(a, { cacheDir, timeoutMs: 500 });
    expect(down.fromCache).toBe(true);
    expect(down.files).toEqual([join(legacy, "a", "SKILL.md")]);
  });

  it("a site or pack base ignores its query, as before (it is not sent)", () => {
    expect(urlToDirName("https://example.com/skills/?x=1")).toBe(urlToDirName("https://example.com/skills/"));
    expect(urlToDirName("https://example.com/?x=1")).toBe(urlToDirName("https://example.com/"));
    expect(legacyDirName("https://example.com/skills/?x=1")).toBeUndefined();
    expect(urlToDirName("https://example.com/i.json#top")).toBe(urlToDirName("https://example.com/i.json"));
    expect(legacyDirName("https://example.com/i.json")).toBeUndefined();
  });
});
