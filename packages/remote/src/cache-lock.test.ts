import { mkdir, readFile, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { type Served, serve, staticFiles, until } from "@skill/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DIST_ESM, pullInProcess } from "../test/dist.js";
import { pack, skillMd, tempDir, tree } from "../test/server.js";
import { urlToDirName } from "./cache-dir.js";
import { acquireLock } from "./cache-lock.js";
import { pull } from "./pull.js";

// Two processes, one cache: the pack lock serializes them, and a pull killed half-way leaves
// the previous copy in place for the next one to recover.

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

function slowPack(skills: Record<string, Record<string, string>>, delayMs: number) {
  const files = pack(skills);
  const handler = staticFiles(files);
  return {
    files,
    handler: async (...args: Parameters<typeof handler>) => {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return handler(...args);
    },
  };
}

// Child processes start slowly on a loaded machine: allow them time.
describe("two processes pulling one pack", { timeout: 30_000 }, () => {
  it("take turns, and leave one consistent copy", { tags: ["slow"] }, async () => {
    const skills: Record<string, Record<string, string>> = {};
    for (let i = 0; i < 4; i++) skills[`s${i}`] = { "SKILL.md": skillMd(`s${i}`), "ref.md": `ref ${i}` };
    const { handler } = slowPack(skills, 25);
    const server = await serve(handler);
    servers.push(server);

    const a = pullInProcess(DIST_ESM, server.index, cacheDir, { concurrency: 2 });
    const b = pullInProcess(DIST_ESM, server.index, cacheDir, { concurrency: 2 });
    const [ra, rb] = await Promise.all([a.done, b.done]);

    expect([ra.code, rb.code, ra.stderr, rb.stderr]).toEqual([0, 0, "", ""]);
    const paths = server.requests.map((r) => r.path);
    // One pull ran whole (index + 8 files), then the other (index + 8 revalidations).
    expect(paths.indexOf("/index.json", 1)).toBe(9);
    expect(server.requests.slice(10).every((r) => r.status === 304)).toBe(true);
    const dir = join(cacheDir, urlToDirName(server.index));
    const expected = [".index.json", ".state.json"];
    for (let i = 0; i < 4; i++) expected.push(`s${i}/`, `s${i}/SKILL.md`, `s${i}/ref.md`);
    expect(await tree(dir)).toEqual(expected.sort());
    for (let i = 0; i < 4; i++) expect(await readFile(join(dir, `s${i}`, "ref.md"), "utf8")).toBe(`ref ${i}`);
  });

  it("a pull killed mid-download leaves the previous copy; the next pull takes over its lock", {
    tags: ["slow"],
  }, async () => {
    const { files, handler } = slowPack(
      { a: { "SKILL.md": skillMd("a") }, b: { "SKILL.md": skillMd("b") } },
      0,
    );
    let stall = false;
    const server = await serve((req, res, log) => {
      if (stall && req.url === "/b/SKILL.md") return; // never answers
      return handler(req, res, log);
    });
    servers.push(server);
    const first = await pull(server.index, { cacheDir });
    const before = await tree(first.dir);
    files.set("a/SKILL.md", skillMd("a", "v2"));
    files.set("b/SKILL.md", skillMd("b", "v2"));
    stall = true;

    const doomed = pullInProcess(DIST_ESM, server.index, cacheDir);
    await until(() => server.hits("/b/SKILL.md").length === 2);
    doomed.child.kill("SIGKILL");
    const { signal } = await doomed.done;

    expect(signal).toBe("SIGKILL");
    const left = await tree(first.dir);
    expect(left.filter((p) => !p.startsWith(".tmp-") && p !== ".lock")).toEqual(before);
    expect(left).toContain(".lock");
    expect(await readFile(join(first.dir, "a", "SKILL.md"), "utf8")).toBe(skillMd("a"));

    stall = false;
    const next = await pull(server.index, { cacheDir });
    expect(next.files).toEqual(first.files);
    expect(await tree(first.dir)).toEqual(before);
    expect(await readFile(join(first.dir, "b", "SKILL.md"), "utf8")).toBe(skillMd("b", "v2"));
  });

  it("waits for a live holder rather than breaking its lock", async () => {
    const server = await serve(staticFiles(pack({ a: { "SKILL.md": skillMd("a") } })));
    servers.push(server);
    const first = await pull(server.index, { cacheDir });
    const lock = join(first.dir, ".lock");
    // This process is alive: its lock must be respected until it goes.
    await writeFile(lock, JSON.stringify({ pid: process.pid, host: hostname(), token: "held" }), {
      flag: "wx",
    });
    const controller = new AbortController();
    const aborted = pull(server.index, { cacheDir, signal: controller.signal });
    const waiting = pull(`${server.index}#again`, { cacheDir, concurrency: 1 }); // waits behind it
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(server.hits("/index.json")).toHaveLength(1);
    expect(await readFile(lock, "utf8")).toContain('"held"');

    controller.abort();
    await expect(aborted).rejects.toMatchObject({ code: "ABORTED" });
    await unlink(lock);
    const result = await waiting;
    expect(result.files).toEqual(first.files);
    expect(server.hits("/index.json")).toHaveLength(2);
  });
});

async function deadPid(): Promise<number> {
  const { spawn } = await import("node:child_process");
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.on("exit", resolve));
  return child.pid as number;
}

describe("taking over a lock whose breaker died", { tags: ["slow"] }, () => {
  it("removes a dead breaker's guard at once instead of waiting for it to age", async () => {
    const dir = join(root, "pack");
    await mkdir(dir, { recursive: true });
    const pid = await deadPid();
    const dead = JSON.stringify({ pid, host: hostname(), token: "dead" });
    await writeFile(join(dir, ".lock"), dead);
    await writeFile(join(dir, ".lock.break"), JSON.stringify({ pid, host: hostname() }));

    const started = Date.now();
    const lock = await acquireLock(dir);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(await readFile(join(dir, ".lock"), "utf8")).toContain(`"pid":${process.pid}`);
    expect(await tree(dir)).toEqual([".lock"]);
    await lock.release();
  }, 15_000);

  it("sleeps while a live breaker holds the guard, rather than spinning", async () => {
    const dir = join(root, "pack");
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, ".lock"),
      JSON.stringify({ pid: await deadPid(), host: hostname(), token: "dead" }),
    );
    await writeFile(join(dir, ".lock.break"), JSON.stringify({ pid: process.pid, host: hostname() }));

    const controller = new AbortController();
    setTimeout(() => controller.abort(), 1_000);
    const cpu = process.cpuUsage();
    await expect(acquireLock(dir, controller.signal)).rejects.toMatchObject({ code: "ABORTED" });
    const used = process.cpuUsage(cpu);
    // A busy loop burns the whole second; polling with sleeps uses a few milliseconds.
    expect((used.user + used.system) / 1000).toBeLessThan(400);
  });
});
