import { createHash } from "node:crypto";
import { Server } from "@modelcontextprotocol/server";
import { parseSkill, SkillError, SkillService } from "@skill/core";
import { describe, expect, it } from "vitest";
import { connect, skillMd } from "./__fixtures__/harness.js";
import { SkillsListParams } from "./protocol.js";
import { PROTOCOL_VERSIONS } from "./server.js";
import { mcpSource } from "./source.js";

function sha(text: string): string {
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}

function frontmatterOf(text: string): Record<string, unknown> {
  return { ...parseSkill(text, "skill://x/SKILL.md").skill.frontmatter };
}

interface Listing {
  readonly uri: string;
  readonly text: string;
  /** Digest to list for SKILL.md; default: the true one. `null`: no resources at all. */
  readonly digest?: string | null;
  /** Size to list for SKILL.md; default: the true one. */
  readonly size?: number;
  /** Frontmatter to list; default: the text's own. `null`: none listed. */
  readonly frontmatter?: Record<string, unknown> | null;
  /** Digests to list for bundled files, by path; default: the true ones. */
  readonly fileDigests?: Readonly<Record<string, string>>;
  readonly files?: Readonly<Record<string, string>>;
}

/**
 * A server written by hand with the same SDK: it answers skills/list from `pages` (one
 * listing per page, cursors "p1", "p2"…) and resources/read from the listed texts, and says
 * whatever the test wants it to say.
 */
function handWritten(
  pages: readonly (readonly Listing[])[],
  options: { hangOn?: string; noSkills?: boolean } = {},
) {
  const server = new Server(
    { name: "liar", version: "1.0.0" },
    { capabilities: { resources: {} }, supportedProtocolVersions: [...PROTOCOL_VERSIONS] },
  );
  const texts = new Map<string, string>();
  const calls: { method: string; cursor?: string; uri?: string }[] = [];
  const never = new Promise<never>(() => {});
  for (const page of pages) {
    for (const l of page) {
      texts.set(l.uri, l.text);
      for (const [rel, text] of Object.entries(l.files ?? {}))
        texts.set(l.uri.replace(/SKILL\.md$/, rel), text);
    }
  }
  if (!options.noSkills) {
    server.setRequestHandler("skills/list", { params: SkillsListParams }, async (params) => {
      const cursor = params?.cursor;
      calls.push({ method: "skills/list", ...(cursor === undefined ? {} : { cursor }) });
      if (options.hangOn === "skills/list") return never;
      const index = cursor === undefined ? 0 : Number(cursor.slice(1));
      const page = pages[index] ?? [];
      return {
        skills: page.map((l) => ({
          uri: l.uri,
          ...(l.frontmatter === null ? {} : { frontmatter: l.frontmatter ?? frontmatterOf(l.text) }),
          ...(l.digest === null
            ? {}
            : {
                resources: [
                  { uri: l.uri, digest: l.digest ?? sha(l.text), size: l.size ?? Buffer.byteLength(l.text) },
                  ...Object.entries(l.files ?? {}).map(([rel, text]) => ({
                    uri: l.uri.replace(/SKILL\.md$/, rel),
                    digest: l.fileDigests?.[rel] ?? sha(text),
                    size: Buffer.byteLength(text),
                  })),
                ],
              }),
        })),
        ...(index + 1 < pages.length ? { nextCursor: `p${index + 1}` } : {}),
      };
    });
  }
  server.setRequestHandler("resources/read", async (request) => {
    calls.push({ method: "resources/read", uri: request.params.uri });
    if (options.hangOn === "resources/read") return never;
    const text = texts.get(request.params.uri);
    if (text === undefined) throw new Error(`no ${request.params.uri}`);
    return { contents: [{ uri: request.params.uri, mimeType: "text/markdown", text }] };
  });
  return { server, calls };
}

async function load(
  pages: readonly (readonly Listing[])[],
  options: Parameters<typeof handWritten>[1] & { timeoutMs?: number } = {},
) {
  const { server, calls } = handWritten(pages, options);
  const { client, close } = await connect(server);
  const service = new SkillService({
    sources: [
      mcpSource(client, { id: "mcp:liar", ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) }),
    ],
  });
  const report = await service.discoverAndLoad();
  return { service, report, calls, close, client };
}

const good = (name: string, prefix = "x"): Listing => ({
  uri: `skill://${prefix}/${name}/SKILL.md`,
  text: skillMd(name, `The ${name} skill`),
});

const oneSegment: Listing = {
  uri: "skill://pdf-processing/SKILL.md",
  text: skillMd("pdf-processing", "The pdf-processing skill"),
};

describe("mcpSource against a hand-written server", () => {
  it("registers every listed skill without a read, and fails the read of one whose bytes do not match the listed digest", async () => {
    // Contract 3: the listing is the head, so a lying digest is caught when the skill is read,
    // not when the registry loads.
    const lie = { ...good("liar"), digest: sha("something else") };
    const { service, report, calls, close } = await load([[good("a"), lie, good("z")]]);
    expect(report.failed).toEqual([]);
    expect(service.all().map((s) => s.name)).toEqual(["a", "liar", "z"]);
    expect(calls.filter((c) => c.method === "resources/read")).toEqual([]);
    const error = await service.read("liar").catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "INTEGRITY_ERROR", path: "skill://x/liar/SKILL.md" });
    expect((error as Error).message).toContain(sha("something else"));
    expect((error as Error).message).toContain(sha(lie.text));
    expect((await service.read("a")).content).toBe("# a\n\nSteps.\n");
    await close();
  });

  it("fails the read of a skill listed with a malformed digest", async () => {
    const { service, report, close } = await load([[{ ...good("a"), digest: "md5:abc" }]]);
    expect(report.failed).toEqual([]);
    await expect(service.read("a")).rejects.toMatchObject({ code: "INTEGRITY_ERROR" });
    await close();
  });

  it("fails the read of a skill whose bytes are not the listed size", async () => {
    const { service, close } = await load([[{ ...good("a"), size: 3 }]]);
    const error = await service.read("a").catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "INTEGRITY_ERROR" });
    expect((error as Error).message).toMatch(/listed 3 bytes/);
    await close();
  });

  it("reads a listed skill over maxBytes as LIMIT_EXCEEDED, naming its size and the limit, not as missing", async () => {
    const head = skillMd("big", "The big skill");
    const big = {
      ...good("big"),
      text: `${head}${"x".repeat(8 * 1024 * 1024)}`,
      frontmatter: frontmatterOf(head),
    };
    const { service, report, close } = await load([[big]]);
    expect(report.failed).toEqual([]);
    const error = await service.read("big").catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: "LIMIT_EXCEEDED",
      message: "Skill file too large: skill://x/big/SKILL.md is 8.0 MiB, the limit is 1.0 MiB (maxBytes)",
    });
    expect(service.get("big")?.name).toBe("big");
    await close();
  });

  it("fails the read of a skill whose frontmatter differs from the listed one, field by field", async () => {
    const listed = { name: "a", description: "What the listing claims" };
    const { service, report, close } = await load([[{ ...good("a"), frontmatter: listed }]]);
    expect(report.failed).toEqual([]);
    expect(service.get("a")?.description).toBe("What the listing claims");
    const error = await service.read("a").catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "INTEGRITY_ERROR" });
    expect((error as Error).message).toContain("'description'");
    // The bytes name another skill while the listing (and the URI) say "a": the same failure.
    const renamed: Listing = {
      ...good("a"),
      text: skillMd("b", "The a skill"),
      frontmatter: { name: "a", description: "The a skill" },
    };
    const second = await load([[renamed]]);
    await expect(second.service.read("a")).rejects.toMatchObject({ code: "INTEGRITY_ERROR" });
    await second.close();
    await close();
  });

  it("reads a listed file only when asked, verified against its listed digest", async () => {
    const skill: Listing = {
      ...good("a"),
      files: { "ref.md": "r\n", "lie.md": "the truth\n" },
      fileDigests: { "lie.md": sha("a lie\n") },
    };
    const { service, calls, close } = await load([[skill]]);
    expect(await service.files("a")).toEqual(["lie.md", "ref.md"]);
    expect(calls.filter((c) => c.method === "resources/read")).toEqual([]);
    expect(Buffer.from(await service.readFile("a", "ref.md")).toString()).toBe("r\n");
    expect(calls.filter((c) => c.method === "resources/read").map((c) => c.uri)).toEqual([
      "skill://x/a/ref.md",
    ]);
    const error = await service.readFile("a", "lie.md").catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "INTEGRITY_ERROR", path: "skill://x/a/lie.md" });
    expect((error as Error).message).toContain(sha("a lie\n"));
    // A path the listing does not hold is never asked for.
    await expect(service.readFile("a", "other.md")).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(service.readFile("a", "../b/SKILL.md")).rejects.toMatchObject({ code: "UNSAFE_PATH" });
    expect(calls.filter((c) => c.method === "resources/read")).toHaveLength(2);
    await close();
  });

  it("gives every entry the origin mcp:<label> of its source id", async () => {
    const { server } = handWritten([[good("a")]]);
    const { client, close } = await connect(server);
    for (const [id, origin] of [
      ["mcp:docs", "mcp:docs"],
      ["docs", "mcp:docs"],
      [undefined, "mcp:mcp"],
    ] as const) {
      const scan = await mcpSource(client, id === undefined ? {} : { id }).scan({});
      expect(scan.entries.map((e) => e.origin)).toEqual([origin]);
    }
    const service = new SkillService({ sources: [mcpSource(client, { id: "mcp:docs" })] });
    await service.discoverAndLoad();
    expect(service.get("a")?.origin).toBe("mcp:docs");
    await close();
  });

  it("accepts a one-segment skill URI", async () => {
    const { service, report, close } = await load([[oneSegment]]);
    expect(report.failed).toEqual([]);
    expect(service.all().map((s) => [s.name, s.location])).toEqual([
      ["pdf-processing", "skill://pdf-processing/SKILL.md"],
    ]);
    expect((await service.read("pdf-processing")).content).toBe("# pdf-processing\n\nSteps.\n");
    await close();
  });

  it("reads a skill listed without frontmatter when the registry loads, its name unknown otherwise", async () => {
    const { service, report, calls, close } = await load([[{ ...good("a"), frontmatter: null }]]);
    expect(report.failed).toEqual([]);
    expect(service.all().map((s) => s.name)).toEqual(["a"]);
    expect(calls.filter((c) => c.method === "resources/read")).toHaveLength(1);
    await close();
  });

  it("fails a skill whose URI's last segment is not its frontmatter name", async () => {
    const mismatch: Listing = { uri: "skill://x/pdf/SKILL.md", text: skillMd("docx", "Says it is docx") };
    const { service, report, calls, close } = await load([[good("a"), mismatch]]);
    expect(service.all().map((s) => s.name)).toEqual(["a"]);
    expect(report.failed).toHaveLength(1);
    expect(report.failed[0]?.path).toBe("skill://x/pdf/SKILL.md");
    expect(report.failed[0]?.error.code).toBe("INVALID_FIELD");
    expect(report.failed[0]?.error.message).toMatch(/names itself "docx".*"pdf"/);
    expect(calls.filter((c) => c.method === "resources/read")).toEqual([]);
    await close();
  });

  it("follows nextCursor over 3 pages", async () => {
    const { service, calls, report, close } = await load([[good("a")], [good("b"), good("c")], [good("d")]]);
    expect(calls.filter((c) => c.method === "skills/list")).toEqual([
      { method: "skills/list" },
      { method: "skills/list", cursor: "p1" },
      { method: "skills/list", cursor: "p2" },
    ]);
    expect(service.all().map((s) => s.name)).toEqual(["a", "b", "c", "d"]);
    expect(report.diagnostics).toEqual([]);
    await close();
  });

  it("stops at maxPages with a warning and keeps what it read", async () => {
    const { server } = handWritten([[good("a")], [good("b")], [good("c")]]);
    const { client, close } = await connect(server);
    const scan = await mcpSource(client, { maxPages: 2 }).scan({});
    expect(scan.entries.map((e) => e.location)).toEqual(["skill://x/a/SKILL.md", "skill://x/b/SKILL.md"]);
    expect(scan.diagnostics?.map((d) => [d.code, d.severity])).toEqual([["mcp-page-limit", "warning"]]);
    await close();
  });

  it("reports a server without skills/list as a diagnostic, not a failure", async () => {
    const { service, report, close } = await load([], { noSkills: true });
    expect(service.all()).toEqual([]);
    expect(report.failed).toEqual([]);
    expect(report.diagnostics.map((d) => [d.code, d.source])).toEqual([["mcp-no-skills", "mcp:liar"]]);
    expect(report.diagnostics[0]?.message).toContain("io.modelcontextprotocol/skills");
    await close();
  });

  it("gives up on a skills/list that never answers after timeoutMs, with a diagnostic", async () => {
    const started = performance.now();
    const { report, close } = await load([[good("a")]], { hangOn: "skills/list", timeoutMs: 200 });
    const elapsed = performance.now() - started;
    expect(report.loaded).toBe(0);
    expect(report.diagnostics.map((d) => [d.code, d.severity])).toEqual([["mcp-timeout", "warning"]]);
    expect(report.diagnostics[0]?.message).toContain("200 ms");
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(5_000);
    await close();
  });

  it("fails the read of a skill whose resources/read never answers after timeoutMs", async () => {
    const { service, report, close } = await load([[good("a")]], {
      hangOn: "resources/read",
      timeoutMs: 200,
    });
    expect(report.failed).toEqual([]); // loading asked for nothing
    const error = await service.read("a").catch((e: unknown) => e);
    expect(SkillError.isInstance(error)).toBe(true);
    // The server's silence is said as it is, not as a change on disk.
    expect((error as SkillError).code).toBe("REMOTE_ERROR");
    expect((error as Error).message).toContain("no answer within 200 ms");
    await close();
  });

  it("rejects ABORTED when the load is aborted while the server is silent", async () => {
    const { server } = handWritten([[good("a")]], { hangOn: "skills/list" });
    const { client, close } = await connect(server);
    const service = new SkillService({ sources: [mcpSource(client)] });
    const controller = new AbortController();
    const loading = service.discoverAndLoad({ signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(loading).rejects.toMatchObject({ code: "ABORTED" });
    // The source's own signal aborts its scan too.
    const own = new AbortController();
    own.abort();
    await expect(mcpSource(client, { signal: own.signal }).scan({})).rejects.toMatchObject({
      code: "ABORTED",
    });
    await close();
  });

  it("loads a skill listed without resources, with a warning, and gives it no files", async () => {
    const { service, report, close } = await load([[{ ...good("bare"), digest: null }]]);
    expect(service.all().map((s) => s.name)).toEqual(["bare"]);
    expect(report.diagnostics.map((d) => [d.code, d.severity, d.path])).toEqual([
      ["mcp-no-resources", "warning", "skill://x/bare/SKILL.md"],
    ]);
    expect(await service.files("bare")).toEqual([]);
    await close();
  });

  it("never activates a nested SKILL.md from its parent's listing, nor counts its files as the parent's", async () => {
    const parent: Listing = {
      ...good("parent"),
      files: { "ref.md": "r\n", "child/SKILL.md": skillMd("child", "Nested"), "child/c.md": "c\n" },
    };
    const { service, report, close } = await load([[parent]]);
    expect(service.all().map((s) => s.name)).toEqual(["parent"]);
    expect(report.failed).toEqual([]);
    expect(await service.files("parent")).toEqual(["ref.md"]);
    await close();
  });

  it("loads a nested skill the server lists itself as its own skill, apart from its parent", async () => {
    const parent: Listing = { ...good("parent"), files: { "ref.md": "r\n", "child/c.md": "c\n" } };
    const child: Listing = {
      uri: "skill://x/parent/child/SKILL.md",
      text: skillMd("child", "Nested"),
      files: { "c.md": "c\n" },
    };
    const { service, report, close } = await load([[parent, child]]);
    expect(report.failed).toEqual([]);
    expect(service.all().map((s) => [s.name, s.location])).toEqual([
      ["child", "skill://x/parent/child/SKILL.md"],
      ["parent", "skill://x/parent/SKILL.md"],
    ]);
    expect(await service.files("parent")).toEqual(["ref.md"]);
    expect(await service.files("child")).toEqual(["c.md"]);
    await close();
  });

  it("skips listing entries that are not skill://…/SKILL.md URIs, with a diagnostic each", async () => {
    const { server } = handWritten([[good("a")]]);
    server.setRequestHandler("skills/list", { params: SkillsListParams }, async () => ({
      skills: [
        { uri: "https://example.com/x/SKILL.md" },
        { uri: "skill://x/README.md" },
        { uri: "skill://x/../SKILL.md" },
        42,
        { uri: "skill://x/a/SKILL.md", resources: [] },
      ],
    }));
    const { client, close } = await connect(server);
    const scan = await mcpSource(client).scan({});
    expect(scan.entries.map((e) => e.location)).toEqual(["skill://x/a/SKILL.md"]);
    expect(scan.diagnostics?.map((d) => d.code)).toEqual([
      "mcp-invalid-entry",
      "mcp-invalid-entry",
      "mcp-invalid-entry",
      "mcp-invalid-entry",
    ]);
    await close();
  });
});
