import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { urlToDirName } from "@skill/remote";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runChild } from "./harness.js";
import { type PackServer, packV2, skillPack, startPackServer } from "./remote-server.js";

const pack = skillPack({ skills: 5, filesPerSkill: 4 });
let server: PackServer;
let work: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "skill-bench-remote-"));
  server = await startPackServer({ pack, pack2: await packV2(pack, work) });
});

afterAll(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

beforeEach(() => {
  server.resetStats();
});

function expectCopy(dir: string): void {
  for (const skill of pack.skills) {
    for (const [path, body] of skill.files) expect(readFileSync(join(dir, skill.name, path))).toEqual(body);
  }
}

describe("the loopback pack server", () => {
  it("serves the index and files, answers a matching ETag with 304, and counts what it sent", async () => {
    const index = await fetch(`${server.url("pack")}index.json`);
    const etag = index.headers.get("etag") ?? "";
    const listed = (await index.json()) as { skills: { name: string; files: string[] }[] };
    expect(listed.skills.map((s) => s.name)).toEqual(pack.skills.map((s) => s.name));
    expect(listed.skills[0]?.files).toEqual([
      "SKILL.md",
      "references/guide.md",
      "scripts/run.sh",
      "assets/data.json",
    ]);

    const again = await fetch(`${server.url("pack")}index.json`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect((await fetch(`${server.url("pack")}nope/SKILL.md`)).status).toBe(404);

    const stats = server.stats();
    expect(stats).toEqual({
      requests: 3,
      notModified: 1,
      bodyBytes: Number(index.headers.get("content-length")),
    });
  });
});

describe("download approaches in a child process, on a tiny pack", { tags: ["slow"] }, () => {
  it("pull downloads the pack into its cache, then pulls it again from the same cache", async () => {
    const cacheDir = join(work, "cache");
    const cold = await runChild({ approach: "pull", input: { url: server.url("pack"), cacheDir } });
    expect(cold).toMatchObject({ found: 5, fromCache: false });
    // The index, then each of the 20 files once.
    expect(server.stats().requests).toBe(1 + 20);
    expectCopy(join(cacheDir, urlToDirName(server.url("pack"))));

    server.resetStats();
    const warm = await runChild({ approach: "pull", input: { url: server.url("pack"), cacheDir } });
    expect(warm).toMatchObject({ found: 5, fromCache: false });
    expect(server.stats().requests).toBeGreaterThan(0);
    expectCopy(join(cacheDir, urlToDirName(server.url("pack"))));
  }, 60_000);

  it("serves the same pack as index v0.2: one archive per skill cold, one request warm", async () => {
    const index = (await (await fetch(`${server.url("pack2")}index.json`)).json()) as {
      $schema?: string;
      skills: { name: string; type: string; url: string; digest: string }[];
    };
    expect(index.$schema).toMatch(/0\.2/);
    expect(index.skills.map((s) => s.type)).toEqual(pack.skills.map(() => "archive"));
    const archive = await fetch(new URL(index.skills[0]?.url ?? "", `${server.url("pack2")}index.json`));
    expect(archive.status).toBe(200);
    expect(archive.headers.get("content-type")).toBe("application/gzip");

    server.resetStats();
    const cacheDir = join(work, "cache-v2");
    const cold = await runChild({ approach: "pull", input: { url: server.url("pack2"), cacheDir } });
    expect(cold).toMatchObject({ found: 5, fromCache: false });
    // The index once, then each skill's archive once: no request per file.
    expect(server.stats().requests).toBe(1 + 5);
    expectCopy(join(cacheDir, urlToDirName(server.url("pack2"))));

    server.resetStats();
    const warm = await runChild({ approach: "pull", input: { url: server.url("pack2"), cacheDir } });
    expect(warm).toMatchObject({ found: 5, fromCache: false });
    expect(server.stats().requests).toBe(1);
  }, 60_000);
});
