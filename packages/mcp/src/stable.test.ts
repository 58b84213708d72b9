import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Server } from "@modelcontextprotocol/server";
import { type LogFields, memorySource, SkillError, SkillService, sha256Digest } from "@skill/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, ERAS, pathSource, skillMd, writeTree } from "./__fixtures__/harness.js";
import { anyResult, SKILL_LIMITS, SkillsListParams } from "./protocol.js";
import { createSkillsServer, PROTOCOL_VERSIONS, registerSkills } from "./server.js";
import { type McpClientLike, mcpSource } from "./source.js";

// SEP-2640 as accepted (ext-skills, specification/stable/skills.mdx) on protocol 2026-07-28
// and 2025-11-25: what changed from the draft, end to end through the SDK's v2 line.

let tmp: string;
const BLOCK =
  "---\nname: notes\ndescription: |\n  Line one.\n    Indented two.\n\n  After a blank.\n---\n# Notes\n";
const FOLDED = "---\nname: folded\ndescription: >-\n  Folded one\n  and two.\nmetadata:\n  k: v\n---\nBody\n";
const names = Array.from({ length: 50 }, (_, i) => `skill-${String(i).padStart(2, "0")}`);

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "skill-mcp-stable-"));
  const tree: Record<string, string> = {
    "one/notes/SKILL.md": BLOCK,
    "one/folded/SKILL.md": FOLDED,
    "one/folded/ref/guide.md": "# Guide\n",
  };
  for (const name of names) {
    tree[`many/${name}/SKILL.md`] = skillMd(name, `The ${name} skill`);
    tree[`many/${name}/ref.md`] = `ref of ${name}\n`;
  }
  await writeTree(tmp, tree);
});

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function loaded(paths: string[]): Promise<SkillService> {
  const service = new SkillService({ sources: [pathSource("fs", paths)] });
  await service.discoverAndLoad();
  return service;
}

describe.each(ERAS)("at protocol %s", (era) => {
  it("lists 50 skills with zero reads; read is one resources/read, readFile of a listed file one, of an unlisted file none", async () => {
    const served = await loaded(names.map((n) => join(tmp, "many", n, "SKILL.md")));
    const requests: string[] = [];
    const { client: mcp, close } = await connect(createSkillsServer(served), requests, era);
    const host = new SkillService({ sources: [mcpSource(mcp, { id: "mcp:many" })] });
    const reads = () => requests.filter((m) => m === "resources/read").length;
    const report = await host.discoverAndLoad();
    expect(report.loaded).toBe(50);
    expect(reads()).toBe(0);
    expect((await host.read("skill-07")).content).toBe((await served.read("skill-07")).content);
    expect(reads()).toBe(1);
    expect(new TextDecoder().decode(await host.readFile("skill-07", "ref.md"))).toBe("ref of skill-07\n");
    expect(reads()).toBe(2);
    const unlisted = await host.readFile("skill-07", "secret.md").catch((e: unknown) => e);
    expect(SkillError.isInstance(unlisted) && unlisted.code).toBe("NOT_FOUND");
    expect(reads()).toBe(2);
    await close();
  });

  it("round-trips one-segment URIs, and block-scalar descriptions byte for byte", async () => {
    const served = await loaded([join(tmp, "one/notes/SKILL.md"), join(tmp, "one/folded/SKILL.md")]);
    const { client: mcp, close } = await connect(createSkillsServer(served, { prefix: "" }), undefined, era);
    const list = (await mcp.request({ method: "skills/list", params: {} }, anyResult)) as {
      skills: { uri: string; frontmatter: Record<string, unknown> }[];
    };
    expect(list.skills.map((s) => s.uri)).toEqual(["skill://folded/SKILL.md", "skill://notes/SKILL.md"]);
    // As YAML gives them: a literal block keeps its line breaks and final newline, untrimmed.
    expect(list.skills[1]?.frontmatter.description).toBe("Line one.\n  Indented two.\n\nAfter a blank.\n");
    expect(list.skills[0]?.frontmatter.description).toBe("Folded one and two.");
    const host = new SkillService({ sources: [mcpSource(mcp, { id: "mcp:one" })] });
    const report = await host.discoverAndLoad();
    expect(report.failed).toEqual([]);
    expect(host.get("notes")?.frontmatter.description).toBe("Line one.\n  Indented two.\n\nAfter a blank.\n");
    expect(Buffer.from(await host.readFile("notes", "SKILL.md"))).toEqual(Buffer.from(BLOCK));
    expect((await host.read("folded")).content).toBe((await served.read("folded")).content);
    expect(new TextDecoder().decode(await host.readFile("folded", "ref/guide.md"))).toBe("# Guide\n");
    await close();
  });

  it("answers skills/list, skills/get and resources/directory/read with the ttlMs and cacheScope asked for", async () => {
    const served = await loaded([join(tmp, "one/folded/SKILL.md")]);
    const server = createSkillsServer(served, { ttlMs: 60_000, cacheScope: "private" });
    const { client: mcp, close } = await connect(server, undefined, era);
    const caching = { ttlMs: 60_000, cacheScope: "private" };
    const list = await mcp.request({ method: "skills/list", params: {} }, anyResult);
    expect(list).toMatchObject(caching);
    const uri = "skill://skills/folded/SKILL.md";
    expect(await mcp.request({ method: "skills/get", params: { uri } }, anyResult)).toMatchObject(caching);
    const dir = await mcp.request(
      { method: "resources/directory/read", params: { uri: "skill://skills/folded" } },
      anyResult,
    );
    expect(dir).toMatchObject(caching);
    await close();
  });
});

describe("registerSkills and SEP-2640's limits", () => {
  it("refuses a prefix with . or .. segments, which no client could resolve to the skill", async () => {
    const service = new SkillService();
    for (const prefix of ["../x", "a/./b", ".."]) {
      expect(() => createSkillsServer(service, { prefix })).toThrow(/prefix must be URI path segments/);
    }
    expect(() => createSkillsServer(service, { prefix: "a.b/c~d" })).not.toThrow();
  });

  it("refuses ttlMs and cacheScope it cannot send", async () => {
    const service = new SkillService();
    const server = () => new Server({ name: "t", version: "1" }, { capabilities: {} });
    expect(() => registerSkills(server(), service, { ttlMs: -1 })).toThrow(/ttlMs must be a whole number/);
    expect(() => registerSkills(server(), service, { cacheScope: "shared" as "public" })).toThrow(
      /cacheScope must be "public" or "private"/,
    );
  });

  it("warns once on the logger when a skill has more files than it serves, and never serves past 16 MiB", async () => {
    const root = join(tmp, "big");
    // Core's walker lists at most 16 MiB of a skill, SKILL.md included: the listing is cut there.
    const eight = new Uint8Array(8 * 1024 * 1024).fill(97);
    await writeTree(root, {
      "big/SKILL.md": skillMd("big", "Big"),
      "big/a.bin": eight,
      "big/b.bin": eight,
      "many/SKILL.md": skillMd("many", "Many"),
      "many/a.txt": "a\n",
      "many/b.txt": "b\n",
      "many/c.txt": "c\n",
    });
    const served = await loaded([join(root, "big/SKILL.md"), join(root, "many/SKILL.md")]);
    const warnings: [string, LogFields | undefined][] = [];
    const logger = { warn: (message: string, fields?: LogFields) => warnings.push([message, fields]) };
    const server = createSkillsServer(served, { logger, maxFiles: 2 });
    const { client: mcp, close } = await connect(server);
    const list = async () =>
      (await mcp.request({ method: "skills/list", params: {} }, anyResult)) as {
        skills: { uri: string; resources: { uri: string; size: number }[] }[];
      };
    const first = await list();
    await list();
    const files = (name: string) =>
      first.skills.find((s) => s.uri.includes(`/${name}/`))?.resources.map((r) => r.uri.split("/").pop());
    // Both are still served, many cut at maxFiles and said once on the logger; big within 16 MiB.
    expect(files("big")).toEqual(["SKILL.md", "a.bin"]);
    const big = first.skills.find((s) => s.uri.includes("/big/"))?.resources ?? [];
    expect(big.reduce((sum, r) => sum + r.size, 0)).toBeLessThanOrEqual(SKILL_LIMITS.bytes);
    expect(files("many")).toEqual(["SKILL.md", "a.txt", "b.txt"]);
    expect(warnings.map(([, f]) => [f?.code, f?.path])).toEqual([
      ["mcp-skill-too-many-files", join(root, "many/SKILL.md")],
    ]);
    expect(warnings[0]?.[0]).toContain("more than 3 files");
    await close();
  });
});

/** A client answering skills/list from `page(cursor)`, and resources/read from `texts`. */
function fakeClient(
  page: (cursor: string | undefined) => Promise<Record<string, unknown>>,
  texts: Record<string, string> = {},
): McpClientLike & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    async request(request) {
      if (request.method === "skills/list") return page(request.params?.cursor as string | undefined);
      const uri = String(request.params?.uri);
      reads.push(uri);
      return { contents: [{ uri, text: texts[uri] ?? "" }] };
    },
  };
}

const local = memorySource("local", [
  { location: "/virtual/local/SKILL.md", text: skillMd("local", "Local") },
]);

describe("mcpSource: bounds", () => {
  it("returns within timeoutMs when the server never answers skills/list, with the other sources loaded", async () => {
    const server = new Server(
      { name: "silent", version: "1" },
      { capabilities: { resources: {} }, supportedProtocolVersions: [...PROTOCOL_VERSIONS] },
    );
    server.setRequestHandler("skills/list", { params: SkillsListParams }, () => new Promise<never>(() => {}));
    const { client, close } = await connect(server);
    const service = new SkillService({
      sources: [mcpSource(client, { id: "mcp:silent", timeoutMs: 300 }), local],
    });
    const started = Date.now();
    const report = await service.discoverAndLoad();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(service.all().map((s) => s.name)).toEqual(["local"]);
    expect(report.diagnostics.map((d) => d.code)).toEqual(["mcp-timeout"]);
    await close();
  });

  it("takes at most maxSkills of a 100,000-skill listing, within the deadline", async () => {
    const pageOf = (start: number) =>
      Array.from({ length: 1_000 }, (_, i) => {
        const name = `s${start + i}`;
        return {
          uri: `skill://${name}/SKILL.md`,
          frontmatter: { name, description: "x" },
          resources: "dynamic",
        };
      });
    const client = fakeClient(async (cursor) => {
      const start = cursor === undefined ? 0 : Number(cursor);
      return {
        skills: pageOf(start),
        ...(start + 1_000 < 100_000 ? { nextCursor: String(start + 1_000) } : {}),
      };
    });
    const service = new SkillService({
      sources: [mcpSource(client, { id: "mcp:huge", maxPages: 1_000, timeoutMs: 20_000 }), local],
    });
    const started = Date.now();
    const report = await service.discoverAndLoad();
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(report.loaded).toBe(10_001);
    expect(report.diagnostics.map((d) => d.code)).toEqual(["mcp-skill-limit"]);
    expect(client.reads).toEqual([]);
  });

  it("shares one deadline across every page: a slow listing keeps what came before it", async () => {
    const client = fakeClient(async (cursor) => {
      const n = cursor === undefined ? 0 : Number(cursor);
      await new Promise((r) => setTimeout(r, 120));
      const name = `p${n}`;
      return {
        skills: [
          { uri: `skill://${name}/SKILL.md`, frontmatter: { name, description: "x" }, resources: "dynamic" },
        ],
        nextCursor: String(n + 1),
      };
    });
    const service = new SkillService({ sources: [mcpSource(client, { id: "mcp:slow", timeoutMs: 400 })] });
    const started = Date.now();
    const report = await service.discoverAndLoad();
    // Each page alone is far under the deadline; together they are not.
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(report.loaded).toBeGreaterThanOrEqual(2);
    expect(report.loaded).toBeLessThanOrEqual(4);
    expect(report.diagnostics.map((d) => d.code)).toEqual(["mcp-timeout"]);
  });

  it("checks a dynamic skill's SKILL.md against the listed frontmatter only, and gives it no files", async () => {
    const text = skillMd("dyn", "Dynamic");
    const uri = "skill://dyn/SKILL.md";
    const listing = (description: string) => async () => ({
      skills: [{ uri, frontmatter: { name: "dyn", description }, resources: "dynamic" }],
    });
    const ok = new SkillService({ sources: [mcpSource(fakeClient(listing("Dynamic"), { [uri]: text }))] });
    expect((await ok.discoverAndLoad()).diagnostics).toEqual([]);
    expect((await ok.read("dyn")).content).toContain("# dyn");
    expect(await ok.files("dyn")).toEqual([]);
    const tampered = new SkillService({
      sources: [mcpSource(fakeClient(listing("Other"), { [uri]: text }))],
    });
    await tampered.discoverAndLoad();
    await expect(tampered.read("dyn")).rejects.toMatchObject({ code: "INTEGRITY_ERROR" });
  });

  it("accepts a skill of 512 resources, and fails one listed past SEP-2640's limits alone", async () => {
    const text = skillMd("wide", "Wide");
    const entry = (name: string, count: number, size = 1) => ({
      uri: `skill://${name}/SKILL.md`,
      frontmatter: { name, description: "Wide" },
      resources: [
        {
          uri: `skill://${name}/SKILL.md`,
          digest: sha256Digest(new TextEncoder().encode(text)),
          size: text.length,
        },
        ...Array.from({ length: count - 1 }, (_, i) => ({
          uri: `skill://${name}/f${i}.txt`,
          digest: sha256Digest(new Uint8Array(size)),
          size,
        })),
      ],
    });
    const client = fakeClient(async () => ({
      skills: [
        entry("wide", 512),
        { ...entry("wider", 513), frontmatter: { name: "wider", description: "Wide" } },
        entry("heavy", 3, 9 * 1024 * 1024),
      ],
    }));
    const service = new SkillService({ sources: [mcpSource(client, { id: "mcp:wide" })] });
    const report = await service.discoverAndLoad();
    expect(service.all().map((s) => s.name)).toEqual(["wide"]);
    expect(await service.files("wide", undefined, { limit: 1_000 })).toHaveLength(511);
    expect(report.failed.map((f) => [f.path, f.error.code])).toEqual([
      ["skill://heavy/SKILL.md", "LIMIT_EXCEEDED"],
      ["skill://wider/SKILL.md", "LIMIT_EXCEEDED"],
    ]);
    expect(client.reads).toEqual([]);
  });
});

describe("mcpSource: many reads on one signal", () => {
  it("keeps 30 reads in flight on one signal without a MaxListenersExceededWarning", async () => {
    const served = await loaded(names.map((n) => join(tmp, "many", n, "SKILL.md")));
    const { client: mcp, close } = await connect(createSkillsServer(served));
    const controller = new AbortController();
    const host = new SkillService({
      sources: [mcpSource(mcp, { id: "mcp:many", signal: controller.signal })],
    });
    await host.discoverAndLoad();
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    try {
      const reads = await Promise.all(names.slice(0, 30).map((n) => host.readFile(n, "ref.md")));
      expect(reads).toHaveLength(30);
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((w) => /MaxListeners|memory leak/.test(w))).toEqual([]);
      // The signal still cancels: aborted before a read, that read rejects ABORTED.
      controller.abort();
      await expect(host.readFile("skill-01", "ref.md")).rejects.toMatchObject({ code: "ABORTED" });
    } finally {
      process.off("warning", onWarning);
      await close();
    }
  });
});
