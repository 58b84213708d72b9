import { join } from "node:path";
import { SkillService } from "@skill/core";
import { type Served, serve, staticFiles } from "@skill/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pack, skillMd, tempDir } from "../test/server.js";
import { urlToDirName } from "./cache-dir.js";
import { remoteOrigin, remoteSource } from "./remote-source.js";

let root: string;
let cleanup: () => Promise<void>;
const servers: Served[] = [];

beforeEach(async () => {
  ({ path: root, cleanup } = await tempDir());
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await cleanup();
});

async function packServer(skills: Record<string, Record<string, string>>): Promise<Served> {
  const server = await serve(staticFiles(pack(skills)));
  servers.push(server);
  return server;
}

describe("remoteSource", () => {
  it("loads every pack into a SkillService; a later pack wins a name", async () => {
    const one = await packServer({
      shared: { "SKILL.md": skillMd("shared", "from one") },
      a: { "SKILL.md": skillMd("a") },
    });
    const two = await packServer({
      shared: { "SKILL.md": skillMd("shared", "from two") },
      b: { "SKILL.md": skillMd("b") },
    });
    const cacheDir = join(root, "cache");
    const source = remoteSource([one.index, two.index], { cacheDir });
    const service = new SkillService({ sources: [source] });

    const report = await service.discoverAndLoad();

    expect(source.id).toBe("remote");
    expect(report.loaded).toBe(3);
    expect(report.failed).toEqual([]);
    expect(report.shadowed.map((s) => s.name)).toEqual(["shared"]);
    expect(service.get("shared")?.description).toBe("from two");
    expect(service.get("a")?.source).toBe("remote");
    expect((await source.scan({})).dirs).toEqual([
      join(cacheDir, urlToDirName(one.index)),
      join(cacheDir, urlToDirName(two.index)),
    ]);
  });

  it("gives every skill the origin remote:<index url>, query string and userinfo left out", async () => {
    const server = await packServer({ a: { "SKILL.md": skillMd("a") }, b: { "SKILL.md": skillMd("b") } });
    const source = remoteSource([`${server.index}?token=s3cret#frag`], { cacheDir: join(root, "cache") });
    const service = new SkillService({ sources: [source] });
    const report = await service.discoverAndLoad();
    expect(report.failed).toEqual([]);
    expect(server.hits("/index.json")).toHaveLength(1);
    expect(service.all().map((s) => [s.name, s.origin])).toEqual([
      ["a", `remote:${server.index}`],
      ["b", `remote:${server.index}`],
    ]);
    // Served from the cache on the next scan: the same origin, still without the token.
    const scan = await source.scan({});
    expect(scan.entries.map((e) => e.origin)).toEqual([`remote:${server.index}`, `remote:${server.index}`]);
    expect(JSON.stringify(service.all())).not.toContain("s3cret");
  });

  it("redacts userinfo, query and fragment from an origin", () => {
    expect(remoteOrigin("https://user:pa55@example.com/packs/index.json?sig=abc#x")).toBe(
      "remote:https://example.com/packs/index.json",
    );
    expect(remoteOrigin("https://example.com/.well-known/agent-skills/index.json")).toBe(
      "remote:https://example.com/.well-known/agent-skills/index.json",
    );
    expect(remoteOrigin("not a url//u:p@h/x?q")).toBe("remote:not a url//h/x");
  });

  it("reports a failed pack as a diagnostic of the load and still loads the others", async () => {
    const good = await packServer({ a: { "SKILL.md": skillMd("a") } });
    const down = await packServer({});
    await down.close();
    const warnings: string[] = [];
    const source = remoteSource([down.index, good.index, "ftp://nope/"], {
      cacheDir: join(root, "cache"),
      id: "remote:team",
    });
    const service = new SkillService({ sources: [source], logger: { warn: (m) => warnings.push(m) } });

    const report = await service.discoverAndLoad();

    expect(report.failed).toEqual([]);
    expect(service.all().map((s) => s.name)).toEqual(["a"]);
    expect(service.get("a")?.source).toBe("remote:team");
    const packs = report.diagnostics.filter((d) => d.code === "pack-unavailable");
    expect(packs.map((d) => [d.path, d.source])).toEqual([
      [down.index, "remote:team"],
      ["ftp://nope/", "remote:team"],
    ]);
    expect(packs[0]?.message).toContain(`Remote fetch failed: ${down.url}index.json`);
    expect(packs[1]?.message).toMatch(/^Invalid URL: "ftp:\/\/nope\/"/);
    // The service logs what its sources report, once.
    expect(warnings).toEqual(packs.map((d) => d.message));
  });

  it("throws when every pack fails, so the service reports it", async () => {
    const down = await packServer({});
    await down.close();
    const source = remoteSource([down.index], { cacheDir: join(root, "cache") });
    const service = new SkillService({ sources: [source] });

    const report = await service.discoverAndLoad();

    expect(report.failed).toHaveLength(1);
    expect(report.failed[0]?.path).toBe("remote");
    expect(report.failed[0]?.error.code).toBe("REMOTE_ERROR");
  });

  it("serves the cached packs, with a diagnostic, when the network is gone", async () => {
    const server = await packServer({ a: { "SKILL.md": skillMd("a") } });
    const source = remoteSource([server.index], { cacheDir: join(root, "cache"), refresh: "always" });
    const first = await source.scan({});
    await server.close();

    const second = await source.scan({});

    const shape = (scan: typeof first) =>
      scan.entries.map(({ location, origin, head }) => ({ location, origin, head }));
    expect(shape(second)).toEqual(shape(first));
    expect(first.entries[0]?.head?.frontmatter).toEqual({ name: "a", description: "The a skill" });
    expect(second.diagnostics?.map((d) => [d.code, d.path])).toEqual([["pack-cached", server.index]]);
    expect(second.diagnostics?.[0]?.message).toContain("serving the copy cached at");
  });

  it("serves a copy younger than maxAgeMs without a request, across source instances", async () => {
    const server = await packServer({ a: { "SKILL.md": skillMd("a") } });
    const cacheDir = join(root, "cache");
    await remoteSource([server.index], { cacheDir }).scan({});
    expect(server.requests).toHaveLength(2);

    // A new source (as a new process would make) reads the age from the cache.
    const again = await remoteSource([server.index], { cacheDir }).scan({});
    expect(again.entries).toHaveLength(1);
    expect(server.requests).toHaveLength(2);

    await remoteSource([server.index], { cacheDir, refresh: { maxAgeMs: 0 } }).scan({});
    expect(server.requests.map((r) => r.path)).toEqual([
      "/index.json",
      "/a/SKILL.md",
      "/index.json",
      "/a/SKILL.md",
    ]);
    await remoteSource([server.index], { cacheDir, refresh: "never" }).scan({});
    expect(server.requests).toHaveLength(4);
  });

  it("a dead server never holds a load with a cached copy longer than timeoutMs", async () => {
    let dead = false;
    const handler = staticFiles(pack({ a: { "SKILL.md": skillMd("a") } }));
    const server = await serve((req, res, log) => (dead ? undefined : handler(req, res, log)));
    servers.push(server);
    const cacheDir = join(root, "cache");
    const options = { cacheDir, refresh: "always" as const, timeoutMs: 500 };
    await remoteSource([server.index], options).scan({});
    dead = true; // accepts connections, never answers

    const service = new SkillService({ sources: [remoteSource([server.index], options)] });
    const started = Date.now();
    const report = await service.discoverAndLoad();
    const took = Date.now() - started;

    expect(took).toBeLessThan(2_500);
    expect(service.all().map((s) => s.name)).toEqual(["a"]);
    expect(report.diagnostics.filter((d) => d.code === "pack-cached")).toHaveLength(1);
  });

  it("reports each entry a pack skipped as a diagnostic", async () => {
    const files = pack({ a: { "SKILL.md": skillMd("a") } });
    files.set(
      "index.json",
      JSON.stringify({
        skills: [
          { name: "a", files: ["SKILL.md"] },
          { name: "../x", files: ["SKILL.md"] },
        ],
      }),
    );
    const server = await serve(staticFiles(files));
    servers.push(server);
    const scan = await remoteSource([server.index], { cacheDir: join(root, "cache") }).scan({});
    expect(scan.diagnostics?.map((d) => d.code)).toEqual(["pack-entry-skipped"]);
    expect(scan.diagnostics?.[0]?.message).toContain("unsafe name");
  });

  it("stops with ABORTED when the scan is aborted", async () => {
    const server = await serve(() => {}); // never answers
    servers.push(server);
    const source = remoteSource([server.index], { cacheDir: join(root, "cache") });
    const controller = new AbortController();
    const scan = source.scan({ signal: controller.signal });
    controller.abort();
    await expect(scan).rejects.toMatchObject({ code: "ABORTED" });
  });
});
