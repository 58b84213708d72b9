import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { McpServer } from "@modelcontextprotocol/server";
import { type SkillMetadata, SkillService, type SkillSource } from "@skill/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, pathSource, skillMd, writeTree } from "./__fixtures__/harness.js";
import { registerSkills } from "./server.js";
import { mcpSource } from "./source.js";
import { mcpStdioSource } from "./stdio.js";

const CORPUS = fileURLToPath(new URL("../../../../shared/corpus/", import.meta.url));
const present = existsSync(join(CORPUS, "expected.json"));
const child = fileURLToPath(new URL("./__fixtures__/serve-paths.mjs", import.meta.url));

let tmp: string;
/** Groups of SKILL.md paths, no name twice in a group, so every skill is served once. */
let groups: string[][];

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "skill-mcp-corpus-"));
  // A few skills built here, so the suite means something without the corpus.
  await writeTree(tmp, {
    "own/lf/SKILL.md": skillMd("lf", "Plain LF skill"),
    "own/lf/notes/a.md": "a\n",
    "own/crlf/SKILL.md": `\ufeff${skillMd("crlf", "CRLF and a BOM").replace(/\n/g, "\r\n")}`,
    "own/crlf/bin.dat": new Uint8Array([0, 1, 2, 0xff]),
    "own/unicode/SKILL.md": skillMd("unicode", "Ünïcödé description — “quoted”", "Body with emoji 🎉\n"),
    "own/unicode/ré sumé.md": "file name with a space and accents\n",
  });
  const own = ["lf", "crlf", "unicode"].map((n) => join(tmp, "own", n, "SKILL.md"));
  groups = [own];
  if (present) {
    const expected = JSON.parse(readFileSync(join(CORPUS, "expected.json"), "utf8")) as {
      skills: { path: string; name: unknown }[];
    };
    for (const e of expected.skills) {
      const name = String(e.name).trim();
      let group = groups.slice(1).find((g) => !g.some((p) => p.endsWith(`\0${name}`)));
      if (!group) {
        group = [];
        groups.push(group);
      }
      group.push(`${join(CORPUS, e.path)}\0${name}`);
    }
    groups = groups.map((g) => g.map((p) => p.split("\0")[0] as string));
  }
});

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

function portable(meta: SkillMetadata | undefined) {
  if (!meta) return meta;
  // A listed skill is a head: its body was not read, so it has no summary (never an extra read).
  const { location: _l, source: _s, origin: _o, summary: _summary, ...rest } = meta;
  return rest;
}

/** Bundled files the wire carries: the walk's, without nested skills' folders. */
function wireFiles(files: readonly string[]): string[] {
  const nested = files.filter((f) => f.endsWith("/SKILL.md")).map((f) => f.slice(0, -"SKILL.md".length));
  return files.filter((f) => !nested.some((n) => f.startsWith(n)));
}

/** Every skill of `served` comes back through `source` with the same bytes, metadata, body and files. */
async function expectIdentical(served: SkillService, source: SkillSource): Promise<number> {
  const client = new SkillService({ sources: [source] });
  const report = await client.discoverAndLoad();
  expect(report.failed).toEqual([]);
  expect(client.all().map((s) => s.name)).toEqual(served.all().map((s) => s.name));
  const scan = await source.scan({});
  const byName = new Map(scan.entries.map((e) => [decodeURIComponent(e.location.split("/")[3] ?? ""), e]));
  for (const skill of served.all()) {
    const remote = client.get(skill.name);
    expect(portable(remote), skill.location).toEqual(portable(skill));
    expect((await client.read(skill.name)).content, skill.location).toBe(
      (await served.read(skill.name)).content,
    );
    const bytes = await byName.get(skill.name)?.read?.({});
    expect(Buffer.from(bytes as Uint8Array), skill.location).toEqual(readFileSync(skill.location));
    expect(await client.files(skill.name, undefined, { limit: 1000 }), skill.location).toEqual(
      wireFiles(await served.files(skill.name, undefined, { limit: 1000 })),
    );
  }
  return served.all().length;
}

async function servedGroup(paths: readonly string[]): Promise<SkillService> {
  const service = new SkillService({ sources: [pathSource("paths", paths)] });
  const report = await service.discoverAndLoad();
  expect(report.failed).toEqual([]);
  expect(service.all()).toHaveLength(paths.length);
  return service;
}

describe("skills served by registerSkills and read back by mcpSource", () => {
  if (!present) it.skip("../shared/corpus is absent: only the skills built here are round-tripped", () => {});

  it("are identical over the SDK's in-memory transport", { tags: ["slow"], timeout: 60_000 }, async () => {
    let total = 0;
    for (const paths of groups) {
      const served = await servedGroup(paths);
      const server = new McpServer({ name: "corpus", version: "1.0.0" });
      registerSkills(server, served, { pageSize: 7 });
      const { client, close } = await connect(server);
      total += await expectIdentical(served, mcpSource(client, { id: "mcp:corpus" }));
      await close();
    }
    expect(total).toBeGreaterThanOrEqual(present ? 3 + 60 : 3);
  });

  it("are identical over stdio with a child process serving them", {
    tags: ["slow"],
    timeout: 60_000,
  }, async () => {
    let total = 0;
    for (const [i, paths] of groups.entries()) {
      const served = await servedGroup(paths);
      const list = join(tmp, `group-${i}.txt`);
      await writeFile(list, paths.join("\n"));
      const source = mcpStdioSource(process.execPath, [child, list], { id: "mcp:child" });
      try {
        total += await expectIdentical(served, source);
      } finally {
        await source.close();
      }
    }
    expect(total).toBeGreaterThanOrEqual(present ? 3 + 60 : 3);
  });

  it("starts a server that exited again at the next scan", { tags: ["slow"], timeout: 30_000 }, async () => {
    const list = join(tmp, "restart.txt");
    const pids = join(tmp, "restart-pids.txt");
    await writeFile(list, (groups[0] as string[]).join("\n"));
    const source = mcpStdioSource(process.execPath, [child, list, "skills", pids]);
    try {
      expect((await source.scan({})).entries).toHaveLength(3);
      const pidsOf = async () => (await readFile(pids, "utf8")).trim().split("\n").map(Number);
      const before = await pidsOf();
      expect(before).toHaveLength(1); // the era probe runs on the one process started
      const first = before[0] as number;
      process.kill(first);
      let entries = 0;
      for (let i = 0; i < 100 && entries === 0; i++) {
        await new Promise((r) => setTimeout(r, 50));
        entries = (await source.scan({})).entries.length;
      }
      expect(entries).toBe(3);
      const started = await pidsOf();
      expect(started).toHaveLength(2);
      expect(started.at(-1)).not.toBe(first);
    } finally {
      await source.close();
    }
  });

  it("reports a server command that cannot start as a scan diagnostic", { tags: ["slow"] }, async () => {
    const source = mcpStdioSource(join(tmp, "no-such-server"), [], { timeoutMs: 5_000 });
    const service = new SkillService({ sources: [source] });
    const report = await service.discoverAndLoad();
    expect(report.failed).toEqual([]);
    expect(report.diagnostics.map((d) => d.code)).toEqual(["mcp-connect-failed"]);
    expect(report.diagnostics[0]?.message).toContain("no-such-server");
    await source.close();
  });

  it("gives up on a server that never answers the handshake within timeoutMs", {
    tags: ["slow"],
  }, async () => {
    const source = mcpStdioSource(process.execPath, ["-e", "setInterval(() => {}, 1000)"], {
      timeoutMs: 1_000,
    });
    const started = Date.now();
    const scan = await source.scan({});
    expect(Date.now() - started).toBeLessThan(1_800);
    expect(scan.diagnostics?.map((d) => d.code)).toEqual(["mcp-connect-failed"]);
    await source.close();
  });

  it("reports a server that exits before the handshake with the first lines of its stderr", {
    tags: ["slow"],
  }, async () => {
    // The real error first, then a long trace that must not push it out of the message.
    const script =
      "console.error('boom: bad config'); for (let i = 0; i < 200; i++) console.error('    at frame' + i + ' (x.js:1:1)'); console.error('tail noise '.repeat(50)); process.exit(3)";
    const source = mcpStdioSource(process.execPath, ["-e", script], {
      timeoutMs: 5_000,
    });
    const scan = await source.scan({});
    expect(scan.entries).toEqual([]);
    expect(scan.diagnostics?.[0]?.code).toBe("mcp-connect-failed");
    expect(scan.diagnostics?.[0]?.message).toContain("boom: bad config");
    await source.close();
  });
});
