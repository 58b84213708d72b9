import { lstat, mkdir, readdir, readFile, rename, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SkillService } from "@skill/core";
import { type Logged, type Served, send, serve, staticFiles, until } from "@skill/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  binary,
  indexJson,
  pack,
  recordingLogger,
  rejection,
  skillMd,
  tempDir,
  tree,
} from "../test/server.js";
import { urlToDirName } from "./cache-dir.js";
import { type PullProgress, pull } from "./pull.js";

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

const fileBodies = (server: Served) =>
  server.requests.filter((r) => !r.path.endsWith("index.json") && r.status === 200);

describe("pull: the PRD's test, adapted", () => {
  it("downloads a pack that a SkillService then loads", async () => {
    const files = new Map<string, string | Buffer>([
      ["index.json", indexJson([{ name: "remote-skill", files: ["SKILL.md"] }])],
      ["remote-skill/SKILL.md", skillMd("remote-skill", "A skill from the network")],
    ]);
    const server = await start(staticFiles(files));

    const result = await pull(server.index, { cacheDir });

    const dir = join(cacheDir, urlToDirName(server.index));
    expect(result).toEqual({
      files: [join(dir, "remote-skill", "SKILL.md")],
      skipped: [],
      fromCache: false,
      dir,
      indexUrl: server.index,
      changed: [{ name: "remote-skill", after: join(dir, "remote-skill", "SKILL.md") }],
    });
    const service = new SkillService();
    for (const file of result.files) await service.load(file);
    const skill = service.get("remote-skill");
    expect(skill?.description).toBe("A skill from the network");
    expect(skill?.location).toBe(join(dir, "remote-skill", "SKILL.md"));
  });

  it("accepts a URL without a trailing slash, as the same pack", async () => {
    const server = await start(
      staticFiles(pack({ a: { "SKILL.md": skillMd("a") } }), { prefix: "/packs/team/" }),
    );
    const bare = `${server.origin}/packs/team`;

    const first = await pull(bare, { cacheDir });
    const second = await pull(`${bare}/`, { cacheDir });

    expect(first.files).toEqual([join(cacheDir, urlToDirName(bare), "a", "SKILL.md")]);
    expect(second.files).toEqual(first.files);
    expect(server.hits("/packs/team/index.json")).toHaveLength(2);
    expect(await readdir(cacheDir)).toEqual([urlToDirName(bare)]);
  });

  it("brings reference files and binary files beside SKILL.md, byte for byte", async () => {
    const png = binary();
    const server = await start(
      staticFiles(
        pack({
          pdf: {
            "SKILL.md": skillMd("pdf"),
            "reference/forms.md": "# Forms\n",
            "scripts/fill form.py": "print('hi')\r\n",
            "assets/logo.png": png,
          },
        }),
      ),
    );

    const result = await pull(server.index, { cacheDir });

    const skillDir = join(result.dir, "pdf");
    expect(await tree(skillDir)).toEqual([
      "SKILL.md",
      "assets/",
      "assets/logo.png",
      "reference/",
      "reference/forms.md",
      "scripts/",
      "scripts/fill form.py",
    ]);
    expect(await readFile(join(skillDir, "assets", "logo.png"))).toEqual(png);
    expect(await readFile(join(skillDir, "scripts", "fill form.py"), "utf8")).toBe("print('hi')\r\n");
    expect(server.hits("/pdf/scripts/fill%20form.py")).toHaveLength(1);
  });

  it("works through an injected fetch (the global fetch)", async () => {
    const server = await start(staticFiles(pack({ a: { "SKILL.md": skillMd("a") } })));
    const result = await pull(server.index, { cacheDir, fetch: globalThis.fetch });
    expect(await readFile(result.files[0] as string, "utf8")).toBe(skillMd("a"));
  });
});

describe("pull: index errors and the cached copy", () => {
  it("reports a 404 index as HTTP_ERROR naming the URL, the status and the body", async () => {
    const server = await start((_req, res, log) => send(res, log, 404, "<h1>No such pack here</h1>"));
    const error = await rejection(pull(`${server.url}skills`, { cacheDir }));
    expect(error.code).toBe("HTTP_ERROR");
    expect(error.status).toBe(404);
    expect(error.url).toBe(`${server.url}skills/index.json`);
    expect(error.message).toBe(
      `HTTP error: 404 Not Found from ${server.url}skills/index.json (body: "<h1>No such pack here</h1>")`,
    );
  });

  it("reports a non-JSON index as REMOTE_ERROR quoting what came back", async () => {
    const server = await start((_req, res, log) =>
      send(res, log, 200, "<!doctype html><title>Login</title>"),
    );
    const error = await rejection(pull(server.index, { cacheDir }));
    expect(error.code).toBe("REMOTE_ERROR");
    expect(error.message).toMatch(
      /^Remote fetch failed: http:\/\/127\.0\.0\.1:\d+\/index\.json is not valid JSON \(/,
    );
    expect(error.message).toContain('found "<!doctype html><title>Login</title>"');
  });

  it("reports a refused connection as REMOTE_ERROR, and a bad URL as INVALID_URL", async () => {
    const server = await start(staticFiles(new Map()));
    await server.close();
    const refused = await rejection(pull(server.index, { cacheDir }));
    expect(refused.code).toBe("REMOTE_ERROR");
    expect(refused.message).toContain(`${server.url}index.json`);
    expect(refused.message).toContain("ECONNREFUSED");

    for (const bad of [
      "not a url",
      "ftp://example.com/skills/",
      "file:///etc/",
      "http://user:pw@example.com/",
    ]) {
      const error = await rejection(pull(bad, { cacheDir }));
      expect(error.code).toBe("INVALID_URL");
      expect(error.message).toMatch(/^Invalid URL: /);
    }
  });

  it("serves the last good copy, with a warning, when no valid index can be had", async () => {
    const files = pack({ a: { "SKILL.md": skillMd("a") }, b: { "SKILL.md": skillMd("b") } });
    let mode: "ok" | "500" | "html" | "array" | "stall" | "refuse" = "ok";
    const server = await start((req, res, log) => {
      if (req.url === "/index.json" && mode !== "ok") {
        if (mode === "500") return send(res, log, 503, "maintenance");
        if (mode === "html") return send(res, log, 200, "<html>");
        if (mode === "array") return send(res, log, 200, "[]");
        if (mode === "stall") return; // never answers
        req.socket.destroy();
        return;
      }
      return staticFiles(files)(req, res, log);
    });
    const first = await pull(server.index, { cacheDir });
    expect(first.files).toHaveLength(2);

    for (const m of ["500", "html", "array", "stall", "refuse"] as const) {
      mode = m;
      const logger = recordingLogger();
      const result = await pull(server.index, { cacheDir, logger, timeoutMs: 300 });
      expect(result, m).toEqual({ ...first, fromCache: true, changed: [] });
      expect(logger.warnings, m).toHaveLength(1);
      expect(logger.warnings[0], m).toContain(`${server.url}index.json`);
      expect(logger.warnings[0], m).toContain("serving the copy cached at");
    }
    expect(fileBodies(server)).toHaveLength(2);
  });

  it("times out an index that never answers", async () => {
    const server = await start(() => {});
    const error = await rejection(pull(server.index, { cacheDir, timeoutMs: 300 }));
    expect(error.code).toBe("REMOTE_ERROR");
    expect(error.message).toBe(
      `Remote fetch failed: ${server.url}index.json timed out after 300 ms (no response)`,
    );
  });
});

describe("pull: revalidation", () => {
  it("sends If-None-Match and transfers no file body when nothing changed", async () => {
    const files = pack({
      a: { "SKILL.md": skillMd("a"), "notes.md": "a notes" },
      b: { "SKILL.md": skillMd("b"), "img/x.png": binary() },
    });
    const server = await start(staticFiles(files));
    await pull(server.index, { cacheDir });
    expect(fileBodies(server)).toHaveLength(4);
    server.requests.length = 0;

    const result = await pull(server.index, { cacheDir });

    expect(result.files).toHaveLength(2);
    const fileRequests = server.requests.filter((r) => !r.path.endsWith("index.json"));
    expect(fileRequests).toHaveLength(4);
    expect(fileBodies(server)).toHaveLength(0);
    for (const r of fileRequests) {
      expect(r.headers["if-none-match"]).toMatch(/^"[0-9a-f]{40}"$/);
      expect(r.status).toBe(304);
    }
    expect(await readFile(join(result.dir, "b", "img", "x.png"))).toEqual(binary());
  });

  it("sends If-Modified-Since when the server only gives Last-Modified", async () => {
    const files = pack({ a: { "SKILL.md": skillMd("a") } });
    const server = await start(staticFiles(files, { etag: false, lastModified: true }));
    await pull(server.index, { cacheDir });
    server.requests.length = 0;
    await pull(server.index, { cacheDir });
    const [request] = server.hits("/a/");
    expect(request?.headers["if-modified-since"]).toBe("Tue, 02 Jan 2024 03:04:05 GMT");
    expect(request?.headers["if-none-match"]).toBeUndefined();
    expect(request?.status).toBe(304);
  });

  it("skips every request of a skill whose version is unchanged", async () => {
    const files = pack(
      { a: { "SKILL.md": skillMd("a"), "x.md": "x" }, b: { "SKILL.md": skillMd("b") } },
      { a: { version: "1" }, b: { version: "7" } },
    );
    const server = await start(staticFiles(files));
    await pull(server.index, { cacheDir });
    server.requests.length = 0;
    const events: PullProgress[] = [];

    const result = await pull(server.index, { cacheDir, onProgress: (e) => events.push(e) });

    expect(server.requests.map((r) => r.path)).toEqual(["/index.json"]);
    expect(result.files).toHaveLength(2);
    // Progress events come as skills settle, in no fixed order.
    const settled = events.filter((e) => e.type === "skill");
    expect(settled.sort((x, y) => (x.name < y.name ? -1 : 1))).toEqual([
      { type: "skill", name: "a", status: "unchanged" },
      { type: "skill", name: "b", status: "unchanged" },
    ]);
  });

  it("treats skills and files named like Object properties as plain names", async () => {
    const names = ["constructor", "__proto__", "toString", "hasOwnProperty"];
    const files = new Map<string, string | Buffer>();
    for (const name of names) {
      files.set(`${name}/SKILL.md`, skillMd(name));
      files.set(`${name}/constructor`, "c");
      files.set(`${name}/__proto__`, "p");
    }
    const entries = names.map((name) => ({
      name,
      version: "1",
      files: ["SKILL.md", "constructor", "__proto__"],
    }));
    files.set("index.json", indexJson(entries));
    const server = await start(staticFiles(files));

    const first = await pull(server.index, { cacheDir });
    server.requests.length = 0;
    const second = await pull(server.index, { cacheDir });

    expect(first.skipped).toEqual([]);
    expect(second.files).toEqual(first.files);
    expect(first.files.map((f) => f.split("/").at(-2))).toEqual([...names].sort());
    expect(server.requests.map((r) => r.path)).toEqual(["/index.json"]);
    expect(await readFile(join(first.dir, "__proto__", "__proto__"), "utf8")).toBe("p");
  });

  it("downloads only what changed, and replaces the skill whole", async () => {
    const files = pack({ a: { "SKILL.md": skillMd("a"), "one.md": "1", "two.md": "2" } });
    const server = await start(staticFiles(files));
    const first = await pull(server.index, { cacheDir });
    server.requests.length = 0;
    files.set("a/two.md", "2, revised");

    await pull(server.index, { cacheDir });

    expect(fileBodies(server).map((r) => r.path)).toEqual(["/a/two.md"]);
    const dir = join(first.dir, "a");
    expect(await readFile(join(dir, "two.md"), "utf8")).toBe("2, revised");
    expect(await readFile(join(dir, "one.md"), "utf8")).toBe("1");
    expect(await tree(first.dir)).toEqual([
      ".index.json",
      ".state.json",
      "a/",
      "a/SKILL.md",
      "a/one.md",
      "a/two.md",
    ]);
  });

  it("removes skills dropped from the index, and files dropped from a skill", async () => {
    const files = pack({
      a: { "SKILL.md": skillMd("a"), "old.md": "old" },
      gone: { "SKILL.md": skillMd("gone") },
    });
    const server = await start(staticFiles(files));
    const first = await pull(server.index, { cacheDir });
    expect(first.files).toHaveLength(2);
    files.set("index.json", indexJson([{ name: "a", files: ["SKILL.md"] }]));
    const events: PullProgress[] = [];

    const second = await pull(server.index, { cacheDir, onProgress: (e) => events.push(e) });

    expect(second.files).toEqual([join(first.dir, "a", "SKILL.md")]);
    expect(await tree(first.dir)).toEqual([".index.json", ".state.json", "a/", "a/SKILL.md"]);
    expect(events).toContainEqual({ type: "skill", name: "gone", status: "removed" });
  });
});

describe("pull: a failed skill keeps its previous copy", () => {
  it("keeps the old copy when a file now fails, and reports why", async () => {
    const files = pack({ a: { "SKILL.md": skillMd("a"), "ref.md": "v1" }, b: { "SKILL.md": skillMd("b") } });
    const server = await start(staticFiles(files));
    const first = await pull(server.index, { cacheDir });
    files.set("a/SKILL.md", skillMd("a", "changed"));
    files.delete("a/ref.md");

    const second = await pull(server.index, { cacheDir });

    expect(second.files).toEqual(first.files);
    expect(second.skipped).toEqual([
      {
        name: "a",
        code: "HTTP_ERROR",
        reason: `HTTP error: 404 Not Found from ${server.url}a/ref.md (body: "Not found: a/ref.md"); the previous copy was kept`,
      },
    ]);
    expect(await readFile(join(first.dir, "a", "SKILL.md"), "utf8")).toBe(skillMd("a"));
    expect(await readFile(join(first.dir, "a", "ref.md"), "utf8")).toBe("v1");
    expect((await tree(first.dir)).filter((p) => p.startsWith(".tmp") || p.startsWith(".old"))).toEqual([]);
  });

  it("keeps the old copy of a skill whose entry turned invalid", async () => {
    const files = pack({ a: { "SKILL.md": skillMd("a") }, b: { "SKILL.md": skillMd("b") } });
    const server = await start(staticFiles(files));
    const first = await pull(server.index, { cacheDir });
    files.set(
      "index.json",
      indexJson([
        { name: "a", files: ["SKILL.md", "../../x"] },
        { name: "b", files: ["SKILL.md"] },
      ]),
    );
    const events: PullProgress[] = [];

    const second = await pull(server.index, { cacheDir, onProgress: (e) => events.push(e) });

    expect(second.files).toEqual(first.files);
    const reason = 'unsafe file "../../x": it has a ".." segment; the previous copy was kept';
    expect(second.skipped).toEqual([{ name: "a", code: "UNSAFE_PATH", reason }]);
    expect(events).toContainEqual({ type: "skill", name: "a", status: "skipped", reason });
    expect(await tree(first.dir)).toEqual([
      ".index.json",
      ".state.json",
      "a/",
      "a/SKILL.md",
      "b/",
      "b/SKILL.md",
    ]);
  });

  it("leaves the cache as it was when the caller aborts mid-download", async () => {
    const files = pack({ a: { "SKILL.md": skillMd("a") }, b: { "SKILL.md": skillMd("b") } }, {});
    let stall = false;
    const server = await start((req, res, log) => {
      if (stall && req.url === "/b/SKILL.md") return; // hangs until aborted
      return staticFiles(files)(req, res, log);
    });
    const first = await pull(server.index, { cacheDir });
    const before = await tree(first.dir);
    files.set("a/SKILL.md", skillMd("a", "new a"));
    files.set("b/SKILL.md", skillMd("b", "new b"));
    stall = true;
    const controller = new AbortController();

    const pending = pull(server.index, { cacheDir, signal: controller.signal });
    await until(() => server.hits("/b/SKILL.md").length === 2);
    controller.abort();
    const error = await rejection(pending);

    expect(error.code).toBe("ABORTED");
    expect(await tree(first.dir)).toEqual(before);
    expect(await readFile(join(first.dir, "a", "SKILL.md"), "utf8")).toBe(skillMd("a"));
  });

  it("skips what goes past maxTotalBytes and keeps the rest", async () => {
    const big = "x".repeat(40_000);
    const files = pack({
      a: { "SKILL.md": skillMd("a"), "big.md": big },
      b: { "SKILL.md": skillMd("b"), "big.md": big },
      c: { "SKILL.md": skillMd("c"), "big.md": big },
      d: { "SKILL.md": skillMd("d") },
    });
    const server = await start(staticFiles(files));

    const result = await pull(server.index, { cacheDir, maxTotalBytes: 100_000, concurrency: 1 });

    expect(result.files.map((f) => f.split("/").at(-2))).toEqual(["a", "b"]);
    expect(result.skipped).toEqual([
      {
        name: "c",
        code: "LIMIT_EXCEEDED",
        reason: `Remote fetch failed: ${server.url}c/big.md took the pull past its limit of 97.7 KiB (maxTotalBytes)`,
      },
      {
        name: "d",
        code: "LIMIT_EXCEEDED",
        reason: `Remote fetch failed: ${server.url}d/SKILL.md was not fetched: the pull already reached its limit of 97.7 KiB (maxTotalBytes)`,
      },
    ]);
    expect(server.hits("/d/")).toEqual([]);
    expect(await tree(result.dir)).not.toContain("c/");
  });
});

describe("pull: concurrency and progress", () => {
  it("keeps at most `concurrency` requests in flight", async () => {
    const skills: Record<string, Record<string, string>> = {};
    for (let i = 0; i < 6; i++) skills[`s${i}`] = { "SKILL.md": skillMd(`s${i}`), "a.md": "a", "b.md": "b" };
    const files = pack(skills);
    let inFlight = 0;
    let most = 0;
    const server = await start(async (req, res, log) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 20));
      inFlight--;
      return staticFiles(files)(req, res, log);
    });

    const result = await pull(server.index, { cacheDir, concurrency: 3 });

    expect(result.files).toHaveLength(6);
    expect(most).toBeLessThanOrEqual(3);
    expect(most).toBeGreaterThan(1);
  });

  it("reports progress: the index, each file with its bytes, each skill", async () => {
    const files = pack({ a: { "SKILL.md": "---\nname: a\ndescription: d\n---\n", "r.md": "12345" } });
    files.set(
      "index.json",
      JSON.stringify({ skills: [{ name: "a", files: ["SKILL.md", "r.md"] }, { name: "../x" }] }),
    );
    const server = await start(staticFiles(files));
    const events: PullProgress[] = [];

    await pull(server.index, { cacheDir, concurrency: 1, onProgress: (e) => events.push(e) });

    expect(events).toEqual([
      { type: "index", url: `${server.url}index.json`, skills: 1, files: 2, skipped: 1 },
      {
        type: "skill",
        name: "../x",
        status: "skipped",
        reason: expect.stringContaining('unsafe name "../x"'),
      },
      { type: "file", skill: "a", file: "SKILL.md", bytes: 31, cached: false },
      { type: "file", skill: "a", file: "r.md", bytes: 5, cached: false },
      { type: "skill", name: "a", status: "done" },
    ]);
  });
});

describe("pull: the cache is never written through a symlink", () => {
  it("refuses a pack folder that is a symlink", async () => {
    const server = await start(staticFiles(pack({ a: { "SKILL.md": skillMd("a") } })));
    const elsewhere = join(root, "elsewhere");
    await mkdir(elsewhere);
    await mkdir(cacheDir);
    await symlink(elsewhere, join(cacheDir, urlToDirName(server.index)));

    const error = await rejection(pull(server.index, { cacheDir }));

    expect(error.code).toBe("UNSAFE_PATH");
    expect(error.message).toContain("it is a symlink");
    expect(await readdir(elsewhere)).toEqual([]);
  });

  it("replaces a skill folder that is a symlink without writing through it", async () => {
    const files = pack({ a: { "SKILL.md": skillMd("a") } });
    const server = await start(staticFiles(files));
    const first = await pull(server.index, { cacheDir });
    const elsewhere = join(root, "elsewhere");
    await mkdir(elsewhere);
    await writeFile(join(elsewhere, "SKILL.md"), "precious");
    await rm(join(first.dir, "a"), { recursive: true });
    await symlink(elsewhere, join(first.dir, "a"));
    files.set("a/SKILL.md", skillMd("a", "v2"));

    const second = await pull(server.index, { cacheDir });

    expect((await lstat(join(second.dir, "a"))).isDirectory()).toBe(true);
    expect(await readFile(join(second.dir, "a", "SKILL.md"), "utf8")).toBe(skillMd("a", "v2"));
    expect(await readdir(elsewhere)).toEqual(["SKILL.md"]);
    expect(await readFile(join(elsewhere, "SKILL.md"), "utf8")).toBe("precious");
  });

  it("never reuses a cached file that was replaced by a symlink", async () => {
    const files = pack({ a: { "SKILL.md": skillMd("a"), "ref.md": "ref" } });
    const server = await start(staticFiles(files));
    const first = await pull(server.index, { cacheDir });
    const secret = join(root, "secret.txt");
    await writeFile(secret, "secret");
    await rm(join(first.dir, "a", "ref.md"));
    await symlink(secret, join(first.dir, "a", "ref.md"));
    server.requests.length = 0;

    await pull(server.index, { cacheDir });

    const refRequest = server.hits("/a/ref.md")[0] as Logged;
    expect(refRequest.headers["if-none-match"]).toBeUndefined();
    expect(refRequest.status).toBe(200);
    expect((await lstat(join(first.dir, "a", "ref.md"))).isFile()).toBe(true);
    expect(await readFile(join(first.dir, "a", "ref.md"), "utf8")).toBe("ref");
    expect(await readFile(secret, "utf8")).toBe("secret");
  });
});

describe("pull: recovery after a killed pull", () => {
  it("puts back skills moved aside by a pull that never wrote its state", async () => {
    const files = pack({ a: { "SKILL.md": skillMd("a") }, b: { "SKILL.md": skillMd("b") } });
    const server = await start(staticFiles(files));
    const first = await pull(server.index, { cacheDir });
    const dir = first.dir;
    // What a pull killed between its renames leaves: `a` moved aside with a half-built
    // replacement in place, `b` moved aside with nothing in place, a staging folder.
    await rename(join(dir, "a"), join(dir, ".old-0badc0de-a"));
    await mkdir(join(dir, "a"));
    await writeFile(join(dir, "a", "SKILL.md"), "half");
    await rename(join(dir, "b"), join(dir, ".old-0badc0de-b"));
    await mkdir(join(dir, ".tmp-xyz"));
    await writeFile(join(dir, ".tmp-xyz", "junk"), "junk");
    await server.close();

    const result = await pull(server.index, { cacheDir, timeoutMs: 300 });

    expect(result.fromCache).toBe(true);
    expect(result.files).toEqual(first.files);
    expect(await tree(dir)).toEqual([".index.json", ".state.json", "a/", "a/SKILL.md", "b/", "b/SKILL.md"]);
    expect(await readFile(join(dir, "a", "SKILL.md"), "utf8")).toBe(skillMd("a"));
  });
});
