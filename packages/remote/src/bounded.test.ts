// @module-tag slow: every bound is reached by waiting it out on real timers.
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { type Served, send, serve, staticFiles } from "@skill/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pack, rejection, skillMd, tempDir } from "../test/server.js";
import { pull } from "./pull.js";

// Bounds that must hold against a hostile or broken server: time, disk, listeners, and text.

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

/** Sends `body` one byte every `everyMs`, so no gap between chunks is ever long. */
function drip(body: string, everyMs: number): Parameters<typeof serve>[0] {
  return (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    let i = 0;
    const timer = setInterval(() => {
      if (res.destroyed || i >= body.length) {
        clearInterval(timer);
        res.end();
        return;
      }
      res.write(body[i++]);
    }, everyMs);
    res.on("close", () => clearInterval(timer));
  };
}

const hasControl = (text: string) =>
  [...text].some((c) => {
    const code = c.codePointAt(0) ?? 0;
    return (code < 0x20 && c !== "\n" && c !== "\t") || (code >= 0x7f && code <= 0x9f);
  });

describe("drip-fed bodies end at a deadline", () => {
  it("an index sent one byte every 100 ms stops at requestTimeoutMs", async () => {
    const server = await start(drip(JSON.stringify({ skills: [] }).padEnd(10_000), 100));
    const started = Date.now();
    const error = await rejection(pull(server.index, { cacheDir, timeoutMs: 1_000, requestTimeoutMs: 800 }));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(error.code).toBe("REMOTE_ERROR");
    expect(error.message).toContain("did not finish within 800 ms");
  });

  it("a drip-fed file fails its skill; the others arrive", async () => {
    const files = pack({ a: { "SKILL.md": skillMd("a") }, b: { "SKILL.md": skillMd("b") } });
    const slow = drip(skillMd("b").padEnd(10_000), 100);
    const server = await start((req, res, log) =>
      req.url === "/b/SKILL.md" ? slow(req, res, log) : staticFiles(files)(req, res, log),
    );
    const result = await pull(server.index, { cacheDir, requestTimeoutMs: 800 });
    expect(result.files.map((f) => f.split("/").at(-2))).toEqual(["a"]);
    expect(result.skipped.map((s) => [s.name, s.code])).toEqual([["b", "REMOTE_ERROR"]]);
  });

  it("the whole pull stops at pullTimeoutMs and serves the cached copy", async () => {
    const files = pack({ a: { "SKILL.md": skillMd("a") } });
    let dripping = false;
    const slow = drip(skillMd("a", "new").padEnd(10_000), 100);
    const server = await start((req, res, log) => {
      if (dripping && req.url === "/a/SKILL.md") return slow(req, res, log);
      return staticFiles(files)(req, res, log);
    });
    const first = await pull(server.index, { cacheDir });
    files.set("a/SKILL.md", skillMd("a", "changed"));
    dripping = true;
    const started = Date.now();
    const warnings: string[] = [];
    const result = await pull(server.index, {
      cacheDir,
      pullTimeoutMs: 800,
      logger: { warn: (m) => warnings.push(m) },
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.fromCache).toBe(true);
    expect(result.files).toEqual(first.files);
    expect(warnings[0]).toContain("did not finish within 800 ms (pullTimeoutMs)");
  });

  it("rejects a non-number or NaN limit instead of dropping it", async () => {
    for (const value of [Number.NaN, "5", -1]) {
      const error = await rejection(
        pull("http://127.0.0.1:9/", { cacheDir, requestTimeoutMs: value as number }),
      );
      expect(error.code).toBe("INVALID_FIELD");
    }
  });
});

describe("limits that count what lands on disk", () => {
  it("maxTotalBytes counts each file as at least one 4 KiB block", async () => {
    const many: Record<string, string> = { "SKILL.md": skillMd("many") };
    for (let i = 0; i < 40; i++) many[`f${i}.txt`] = "x";
    const server = await start(staticFiles(pack({ few: { "SKILL.md": skillMd("few") }, many })));
    const result = await pull(server.index, { cacheDir, maxTotalBytes: 64 * 1024, concurrency: 1 });
    // 41 one-byte files are 164 KiB of blocks, over 64 KiB; the one-file skill fits.
    expect(result.skipped.map((s) => [s.name, s.code])).toEqual([["many", "LIMIT_EXCEEDED"]]);
    expect(result.files.map((f) => f.split("/").at(-2))).toEqual(["few"]);
  });

  it("maxPackFiles skips the skills past it without requesting them", async () => {
    const skills: Record<string, Record<string, string>> = {};
    for (let i = 0; i < 30; i++) skills[`s${String(i).padStart(2, "0")}`] = { "SKILL.md": skillMd(`s${i}`) };
    const server = await start(staticFiles(pack(skills)));
    const result = await pull(server.index, { cacheDir, maxPackFiles: 10 });
    expect(result.files).toHaveLength(10);
    expect(result.skipped).toHaveLength(20);
    expect(result.skipped[0]).toMatchObject({ name: "s10", code: "LIMIT_EXCEEDED" });
    expect(server.requests).toHaveLength(11);
  });
});

describe("many requests on one signal", () => {
  it("concurrency 20 never trips MaxListenersExceededWarning", async () => {
    const files: Record<string, string> = { "SKILL.md": skillMd("wide") };
    for (let i = 0; i < 40; i++) files[`f${i}.md`] = `file ${i}`;
    const handler = staticFiles(pack({ wide: files }));
    const server = await start(async (req, res, log) => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      return handler(req, res, log);
    });
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on("warning", onWarning);
    try {
      const result = await pull(server.index, {
        cacheDir,
        concurrency: 20,
        signal: new AbortController().signal,
      });
      expect(result.skipped).toEqual([]);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings.map((w) => w.name)).not.toContain("MaxListenersExceededWarning");
  });
});

describe("server text is escaped before it reaches a message", () => {
  let raw: Server | undefined;
  afterEach(() => {
    raw?.close();
    raw = undefined;
  });

  it("an HTTP reason phrase with terminal escapes", async () => {
    raw = createServer((socket) => {
      socket.once("data", () => {
        socket.end(
          "HTTP/1.1 500 Oops\u001b[2J\u001b]0;owned\u0007\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
        );
      });
    });
    await new Promise<void>((resolve) => raw?.listen(0, "127.0.0.1", resolve));
    const { port } = raw.address() as { port: number };
    const error = await rejection(pull(`http://127.0.0.1:${port}/index.json`, { cacheDir }));
    expect(error.code).toBe("HTTP_ERROR");
    expect(error.message).toContain("Oops\\u001b[2J");
    expect(hasControl(error.message)).toBe(false);
  });

  it("the JSON parser's snippet of a non-JSON index", async () => {
    const server = await start((_req, res, log) =>
      send(res, log, 200, '{"skills": [\u001b[31mred\u001b]0;x\u0007'),
    );
    const error = await rejection(pull(server.index, { cacheDir }));
    expect(error.code).toBe("REMOTE_ERROR");
    expect(error.message).toContain("is not valid JSON");
    expect(hasControl(error.message)).toBe(false);
  });
});
