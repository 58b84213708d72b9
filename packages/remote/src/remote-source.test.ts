import { join } from "node:path";
import { SkillService } from "@skill/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pack, type Served, serve, skillMd, staticFiles, tempDir } from "../test/server.js";
import { urlToDirName } from "./cache-dir.js";
import { remoteSource } from "./remote-source.js";

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
      [down.url, "remote:team"],
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

  it("serves the cached packs when the network is gone", async () => {
    const server = await packServer({ a: { "SKILL.md": skillMd("a") } });
    const warnings: string[] = [];
    const source = remoteSource([server.index], {
      cacheDir: join(root, "cache"),
      logger: { warn: (m) => warnings.push(m) },
    });
    const first = await source.scan({});
    await server.close();

    const second = await source.scan({});

    expect(second).toEqual(first);
    expect(warnings).toHaveLength(1);
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
