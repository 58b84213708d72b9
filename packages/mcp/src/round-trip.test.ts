import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, rename, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { McpServer, ProtocolError, ProtocolErrorCode, Server } from "@modelcontextprotocol/server";
import { digestMemo, memorySource, SkillService } from "@skill/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, pathSource, skillMd, writeTree } from "./__fixtures__/harness.js";
import { anyResult, SKILLS_EXTENSION_ID } from "./protocol.js";
import { registerSkills } from "./server.js";
import { mcpSource } from "./source.js";

let root: string;
let skills: string;
let served: SkillService;

const BINARY = new Uint8Array([0xff, 0x00, 0xfe, 0x80, 0x41]);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "skill-mcp-"));
  skills = join(root, "skills");
  await writeTree(root, {
    "outside/secret.txt": "not part of any skill\n",
    // BOM and CRLF: the bytes served must be these, not a normalised copy.
    "skills/alpha/SKILL.md": `\ufeff${skillMd("alpha", "Alpha does things: first", "# Alpha\r\n\r\nSee reference.md.\r\n").replace(/\n/g, "\r\n")}`,
    "skills/alpha/reference.md": "# Reference\n",
    "skills/alpha/scripts/run.sh": "#!/bin/sh\necho run\n",
    "skills/alpha/data/blob.bin": BINARY,
    "skills/alpha/docs/with space é.md": "unicode name\n",
    "skills/alpha/.hidden/x.md": "dot folders are not bundled\n",
    "skills/alpha/escape.md": { link: "../../outside/secret.txt" },
    "skills/alpha/inner-link.md": { link: "reference.md" },
    "skills/alpha/nested/SKILL.md": skillMd("nested", "A skill inside alpha's folder"),
    "skills/alpha/nested/n.md": "nested file\n",
    "skills/beta/SKILL.md":
      "---\nname: beta\ndescription: Beta, model-invocation off\nallowed-tools: Bash Read\nmetadata:\n  owner: team\ndisable-model-invocation: true\n---\nBody of beta, no trailing newline",
  });
  served = new SkillService({
    sources: [
      pathSource("fixture", [
        join(skills, "alpha/SKILL.md"),
        join(skills, "alpha/nested/SKILL.md"),
        join(skills, "beta/SKILL.md"),
      ]),
    ],
  });
  const report = await served.discoverAndLoad();
  expect(report.failed).toEqual([]);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function sha(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/** Metadata as a client sees it: everything but where it came from. */
function portable(meta: object | undefined) {
  if (!meta) return meta;
  // A listed skill is a head: its body was not read, so it has no summary (never an extra read).
  const {
    location: _l,
    source: _s,
    origin: _o,
    summary: _summary,
    ...rest
  } = meta as { location: string; source?: string; origin: string; summary?: string };
  return rest;
}

async function serveAndLoad(
  server: Server | McpServer,
  options: Parameters<typeof registerSkills>[2] = {},
  trustAllowedTools = true,
) {
  registerSkills(server, served, options);
  const { client: mcp, close } = await connect(server);
  const source = mcpSource(mcp, { id: "mcp:test", trustAllowedTools });
  const client = new SkillService({ sources: [source] });
  const report = await client.discoverAndLoad();
  return { mcp, close, source, client, report };
}

describe("registerSkills + mcpSource over the SDK's in-memory transport", () => {
  it("declares the skills extension and resources in the server capabilities", async () => {
    const { mcp, close } = await serveAndLoad(new McpServer({ name: "t", version: "1.0.0" }));
    const caps = mcp.getServerCapabilities();
    expect(caps?.extensions?.[SKILLS_EXTENSION_ID]).toEqual({ directoryRead: true });
    expect(caps?.resources).toBeDefined();
    await close();
  });

  it.each([
    ["McpServer", () => new McpServer({ name: "t", version: "1.0.0" })],
    ["low-level Server", () => new Server({ name: "t", version: "1.0.0" }, { capabilities: {} })],
  ] as const)("reads back every skill with identical metadata and body (%s)", async (_kind, make) => {
    const { client, report, close } = await serveAndLoad(make());
    expect(report.failed).toEqual([]);
    expect(client.all().map((s) => s.name)).toEqual(["alpha", "beta", "nested"]);
    for (const skill of served.all()) {
      const remote = client.get(skill.name);
      expect(remote?.location).toBe(`skill://skills/${skill.name}/SKILL.md`);
      expect(remote?.source).toBe("mcp:test");
      expect(remote?.origin).toBe("mcp:test");
      expect(portable(remote)).toEqual(portable(skill));
      expect((await client.read(skill.name)).content).toBe((await served.read(skill.name)).content);
    }
    expect(client.get("beta")?.modelInvocable).toBe(false);
    await close();
  });

  it("leaves a server's allowed-tools out unless the harness trusts it, after checking them", async () => {
    const { client, report, close } = await serveAndLoad(
      new McpServer({ name: "t", version: "1.0.0" }),
      {},
      false,
    );
    expect(client.get("beta")?.frontmatter["allowed-tools"]).toBeUndefined();
    expect((await client.read("beta")).frontmatter["allowed-tools"]).toBeUndefined();
    expect(client.get("beta")?.frontmatter.metadata).toEqual({ owner: "team" });
    expect(report.diagnostics.filter((d) => d.code === "field-ignored").map((d) => d.field)).toEqual([
      "allowed-tools",
    ]);
    await close();
  });

  it("keeps a local skill's name when a server lists one of the same name: the MCP one is <label>:<name>", async () => {
    const server = new McpServer({ name: "t", version: "1.0.0" });
    registerSkills(server, served);
    const { client: mcp, close } = await connect(server);
    const local = memorySource("project:/repo/.agents", [
      { location: "mem:alpha", text: "---\nname: alpha\ndescription: The local alpha\n---\nlocal body\n" },
    ]);
    const client = new SkillService({ sources: [local, mcpSource(mcp, { id: "mcp:test" })] });
    const report = await client.discoverAndLoad();
    expect(client.get("alpha")?.description).toBe("The local alpha");
    expect(client.get("test:alpha")?.origin).toBe("mcp:test");
    expect((await client.read("test:alpha")).content).toBe((await served.read("alpha")).content);
    expect(report.diagnostics.find((d) => d.code === "name-collision")?.path).toBe(
      "skill://skills/alpha/SKILL.md",
    );
    await close();
  });

  it("loads the registry with skills/list alone: no resources/read until a skill or file is read", async () => {
    const server = new McpServer({ name: "t", version: "1.0.0" });
    registerSkills(server, served);
    const requests: string[] = [];
    const { client: mcp, close } = await connect(server, requests);
    const client = new SkillService({ sources: [mcpSource(mcp, { id: "mcp:test" })] });
    const reads = () => requests.filter((m) => m === "resources/read").length;
    const report = await client.discoverAndLoad();
    expect(report.failed).toEqual([]);
    expect(report.loaded).toBe(3);
    expect(requests.filter((m) => m === "skills/list")).toHaveLength(1);
    expect(reads()).toBe(0);
    expect(await client.files("alpha", undefined, { limit: 100 })).toHaveLength(5);
    expect(reads()).toBe(0);
    expect((await client.read("alpha")).content).toBe((await served.read("alpha")).content);
    expect(reads()).toBe(1);
    const bytes = await client.readFile("alpha", "data/blob.bin");
    expect(Buffer.from(bytes)).toEqual(Buffer.from(BINARY));
    expect(reads()).toBe(2);
    await close();
  });

  it("reads every bundled file back through readFile, byte for byte and verified", async () => {
    const { client, close } = await serveAndLoad(new McpServer({ name: "t", version: "1.0.0" }));
    for (const name of ["alpha", "nested"]) {
      const dir = dirname(served.get(name)?.location ?? "");
      for (const path of await client.files(name, undefined, { limit: 100 })) {
        expect(Buffer.from(await client.readFile(name, path)), path).toEqual(readFileSync(join(dir, path)));
      }
    }
    await expect(client.readFile("alpha", "nested/n.md")).rejects.toMatchObject({ code: "NOT_FOUND" });
    await close();
  });

  it("serves one-segment URIs with an empty prefix, and mcpSource reads them back", async () => {
    const { client, source, report, close } = await serveAndLoad(
      new McpServer({ name: "t", version: "1.0.0" }),
      {
        prefix: "",
      },
    );
    expect(report.failed).toEqual([]);
    expect((await source.scan({})).entries.map((e) => e.location)).toEqual([
      "skill://alpha/SKILL.md",
      "skill://beta/SKILL.md",
      "skill://nested/SKILL.md",
    ]);
    expect((await client.read("beta")).content).toBe((await served.read("beta")).content);
    await close();
  });

  it("serves SKILL.md as the bytes on disk (BOM, CRLF) and the entry's read returns them", async () => {
    const { source, close } = await serveAndLoad(new McpServer({ name: "t", version: "1.0.0" }));
    const scan = await source.scan({});
    expect(scan.entries.map((e) => e.location)).toEqual([
      "skill://skills/alpha/SKILL.md",
      "skill://skills/beta/SKILL.md",
      "skill://skills/nested/SKILL.md",
    ]);
    for (const entry of scan.entries) {
      const name = entry.location.split("/")[3] as string;
      const disk = readFileSync((served.get(name) as { location: string }).location);
      expect(Buffer.from((await entry.read?.({})) as Uint8Array)).toEqual(disk);
    }
    await close();
  });

  it("lists bundled files as the served registry does, leaving out the nested skill's folder", async () => {
    const { client, close } = await serveAndLoad(new McpServer({ name: "t", version: "1.0.0" }));
    const expected = [
      "data/blob.bin",
      "docs/with space é.md",
      "inner-link.md",
      "reference.md",
      "scripts/run.sh",
    ];
    expect(await client.files("alpha", undefined, { limit: 100 })).toEqual(expected);
    // The walk of the served registry also sees the nested skill and the escaping link;
    // on the wire they belong to the nested skill and to nobody.
    const local = await served.files("alpha", undefined, { limit: 100 });
    expect(local.filter((f) => !f.startsWith("nested/") && f !== "escape.md")).toEqual(expected);
    expect(await client.files("nested", undefined, { limit: 100 })).toEqual(["n.md"]);
    expect(await client.files("beta", undefined, { limit: 100 })).toEqual([]);
    await close();
  });

  it("serves every bundled file byte for byte, text or blob, with the digest skills/list gave", async () => {
    const { mcp, close } = await serveAndLoad(new McpServer({ name: "t", version: "1.0.0" }));
    const list = (await mcp.request({ method: "skills/list", params: {} }, anyResult)) as {
      skills: { uri: string; resources: { uri: string; digest: string; size: number }[] }[];
      ttlMs: number;
      cacheScope: string;
    };
    // SEP-2640 as accepted: resources are { uri, digest, size }, the answer says how long to cache it.
    expect(list.ttlMs).toBe(0);
    expect(list.cacheScope).toBe("public");
    const alpha = list.skills.find((s) => s.uri === "skill://skills/alpha/SKILL.md");
    expect(alpha?.resources.map((r) => r.uri)).toEqual([
      "skill://skills/alpha/SKILL.md",
      "skill://skills/alpha/data/blob.bin",
      `skill://skills/alpha/docs/${encodeURIComponent("with space é.md")}`,
      "skill://skills/alpha/inner-link.md",
      "skill://skills/alpha/reference.md",
      "skill://skills/alpha/scripts/run.sh",
    ]);
    for (const resource of alpha?.resources ?? []) {
      const rel = decodeURIComponent(resource.uri.slice("skill://skills/alpha/".length));
      const disk = readFileSync(join(skills, "alpha", rel));
      expect(resource.digest).toBe(sha(disk));
      expect(Object.keys(resource).sort()).toEqual(["digest", "size", "uri"]);
      expect(resource.size).toBe(disk.byteLength);
      const read = await mcp.readResource({ uri: resource.uri });
      const content = read.contents[0] as { uri: string; text?: string; blob?: string };
      expect(content.uri).toBe(resource.uri);
      const bytes =
        content.text !== undefined ? Buffer.from(content.text) : Buffer.from(content.blob ?? "", "base64");
      expect(bytes).toEqual(disk);
    }
    const blob = alpha?.resources.find((r) => r.uri.endsWith("blob.bin"));
    const read = await mcp.readResource({ uri: blob?.uri ?? "" });
    expect(read.contents[0]).toHaveProperty("blob");
    expect(read.contents[0]?.mimeType).toBe("application/octet-stream");
    await close();
  });

  it("answers skills/get with the same entry skills/list gave", async () => {
    const { mcp, close } = await serveAndLoad(new McpServer({ name: "t", version: "1.0.0" }));
    const list = (await mcp.request({ method: "skills/list", params: {} }, anyResult)) as {
      skills: { uri: string }[];
    };
    for (const entry of list.skills) {
      const got = await mcp.request({ method: "skills/get", params: { uri: entry.uri } }, anyResult);
      expect(got).toMatchObject({ ttlMs: 0, cacheScope: "public", skill: entry });
    }
    await close();
  });

  it("pages skills/list and resources/list, and the source follows every cursor", async () => {
    const { mcp, report, close } = await serveAndLoad(new McpServer({ name: "t", version: "1.0.0" }), {
      pageSize: 1,
    });
    expect(report.loaded).toBe(3);
    const first = await mcp.request({ method: "skills/list", params: {} }, anyResult);
    expect((first.skills as unknown[]).length).toBe(1);
    expect(typeof first.nextCursor).toBe("string");
    const uris: string[] = [];
    let cursor: string | undefined;
    do {
      // The raw request: the SDK's listResources walks every page itself.
      const page = (await mcp.request(
        { method: "resources/list", params: cursor === undefined ? {} : { cursor } },
        anyResult,
      )) as { resources: { uri: string }[]; nextCursor?: string };
      expect(page.resources.length).toBeLessThanOrEqual(1);
      uris.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(uris).toHaveLength(6 + 1 + 2); // alpha: SKILL.md + 5 files; beta: 1; nested: 2
    expect(uris).toContain("skill://skills/nested/n.md");
    await close();
  });

  it("lists a folder's direct children with resources/directory/read", async () => {
    const { mcp, close } = await serveAndLoad(new McpServer({ name: "t", version: "1.0.0" }));
    const read = (dir: string) =>
      mcp.request({ method: "resources/directory/read", params: { uri: dir } }, anyResult) as Promise<{
        resources: { uri: string; name: string; mimeType: string }[];
      }>;
    const top = await read("skill://skills/alpha");
    expect(top.resources.map((r) => [r.name, r.mimeType])).toEqual([
      ["SKILL.md", "text/markdown"],
      ["data", "inode/directory"],
      ["docs", "inode/directory"],
      ["inner-link.md", "text/markdown"],
      ["reference.md", "text/markdown"],
      ["scripts", "inode/directory"],
    ]);
    const scripts = await read("skill://skills/alpha/scripts/");
    expect(scripts.resources).toEqual([
      { uri: "skill://skills/alpha/scripts/run.sh", name: "run.sh", mimeType: "text/x-shellscript" },
    ]);
    await expect(read("skill://skills/alpha/nested")).rejects.toMatchObject({
      code: ProtocolErrorCode.InvalidParams,
    });
    await close();
  });

  it("never serves a file outside the skill folder: escaping links and traversal are unknown resources", async () => {
    const { mcp, close } = await serveAndLoad(new McpServer({ name: "t", version: "1.0.0" }));
    for (const uri of [
      "skill://skills/alpha/escape.md",
      "skill://skills/alpha/../beta/SKILL.md",
      "skill://skills/alpha/%2e%2e/%2e%2e/outside/secret.txt",
      "skill://skills/alpha/.hidden/x.md",
      "skill://skills/alpha/nested/n.md",
      "skill://other/alpha/SKILL.md",
      `file://${join(root, "outside/secret.txt")}`,
    ]) {
      const error = await mcp.readResource({ uri }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, uri).toBeInstanceOf(ProtocolError);
      expect((error as ProtocolError).code, uri).toBe(ProtocolErrorCode.InvalidParams);
      expect((error as ProtocolError).message, uri).not.toContain("not part of any skill");
    }
    await close();
  });

  it("refuses a server that already answers resources/read, naming the method", () => {
    const server = new McpServer({ name: "t", version: "1.0.0" });
    server.registerResource("x", "file:///x", {}, async () => ({ contents: [] }));
    expect(() => registerSkills(server, served)).toThrow(/resources\/read|resources\/list/);
  });
});

describe("registerSkills between listings", () => {
  type Listed = { skills: { uri: string; resources: { uri: string; digest: string; size: number }[] }[] };

  /** One skill `edit` with `notes.md` and `refs/a.md`, served; `listed()` lists it again. */
  async function serveEdit() {
    const dir = await mkdtemp(join(tmpdir(), "skill-mcp-edit-"));
    await writeTree(dir, {
      "edit/SKILL.md": skillMd("edit", "Edited later"),
      "edit/notes.md": "v1\n",
      "edit/refs/a.md": "a\n",
    });
    const service = new SkillService({ sources: [pathSource("p", [join(dir, "edit/SKILL.md")])] });
    await service.discoverAndLoad();
    const server = new McpServer({ name: "t", version: "1.0.0" });
    registerSkills(server, service);
    const { client, close } = await connect(server);
    const listed = async (by: Client = client) => {
      const list = (await by.request({ method: "skills/list", params: {} }, anyResult)) as Listed;
      const resources = list.skills[0]?.resources ?? [];
      return new Map(resources.map((r) => [r.uri.replace("skill://skills/edit/", ""), r.digest]));
    };
    return {
      dir,
      service,
      client,
      listed,
      async close() {
        await close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  }

  it("lists files added, removed or replaced (renamed over) in the skill's folders at once", async () => {
    const { dir, listed, close } = await serveEdit();
    try {
      expect([...(await listed()).keys()]).toEqual(["SKILL.md", "notes.md", "refs/a.md"]);
      await writeFile(join(dir, "edit/refs/b.md"), "b\n");
      await writeFile(join(dir, "edit/top.md"), "top\n");
      expect([...(await listed()).keys()]).toEqual([
        "SKILL.md",
        "notes.md",
        "refs/a.md",
        "refs/b.md",
        "top.md",
      ]);
      await rm(join(dir, "edit/refs/a.md"));
      expect([...(await listed()).keys()]).toEqual(["SKILL.md", "notes.md", "refs/b.md", "top.md"]);
      // An editor's atomic save: a new file renamed over the old one.
      await writeFile(join(dir, "edit/notes.md.tmp"), "version two\n");
      await rename(join(dir, "edit/notes.md.tmp"), join(dir, "edit/notes.md"));
      expect((await listed()).get("notes.md")).toBe(sha(Buffer.from("version two\n")));
    } finally {
      await close();
    }
  });

  it("lists SKILL.md edited in place with its new digest at once", async () => {
    const { dir, listed, close } = await serveEdit();
    try {
      const first = (await listed()).get("SKILL.md");
      const edited = skillMd("edit", "Edited later", "# edit\n\nNew steps.\n");
      await writeFile(join(dir, "edit/SKILL.md"), edited);
      const second = (await listed()).get("SKILL.md");
      expect(second).not.toBe(first);
      expect(second).toBe(sha(Buffer.from(edited)));
    } finally {
      await close();
    }
  });

  it("lists a bundled file edited in place (its folder unchanged) with its new digest at once", async () => {
    const { dir, client, listed, close } = await serveEdit();
    try {
      expect((await listed()).get("notes.md")).toBe(sha(Buffer.from("v1\n")));
      await writeFile(join(dir, "edit/notes.md"), "version two\n");
      expect((await listed()).get("notes.md")).toBe(sha(Buffer.from("version two\n")));
      const read = await client.readResource({ uri: "skill://skills/edit/notes.md" });
      expect(read.contents[0]).toMatchObject({ text: "version two\n" });
      // A nested file too, and a listing with nothing changed stays the same.
      await writeFile(join(dir, "edit/refs/a.md"), "a, edited in place\n");
      expect((await listed()).get("refs/a.md")).toBe(sha(Buffer.from("a, edited in place\n")));
      expect((await listed()).get("refs/a.md")).toBe(sha(Buffer.from("a, edited in place\n")));
    } finally {
      await close();
    }
  });

  it("walks every skill again when the registry changes", async () => {
    const { dir, service, listed, close } = await serveEdit();
    try {
      expect((await listed()).get("refs/a.md")).toBe(sha(Buffer.from("a\n")));
      await writeFile(join(dir, "edit/refs/c.md"), "c\n");
      await service.discoverAndLoad();
      expect([...(await listed()).keys()]).toEqual(["SKILL.md", "notes.md", "refs/a.md", "refs/c.md"]);
    } finally {
      await close();
    }
  });

  it("shares what it knows with every server of the same service (the SDK's HTTP entry makes one per request)", async () => {
    const { dir, service, listed, close } = await serveEdit();
    const other = new McpServer({ name: "t2", version: "1.0.0" });
    registerSkills(other, service);
    const second = await connect(other);
    try {
      const notes = join(dir, "edit/notes.md");
      await utimes(notes, 1_700_000_000, 1_700_000_000);
      expect((await listed()).get("notes.md")).toBe(sha(Buffer.from("v1\n")));
      expect((await listed(second.client)).get("notes.md")).toBe(sha(Buffer.from("v1\n")));
      // An edit is hashed again, for both: even one that keeps size and mtime (its change time moved).
      await writeFile(notes, "v2\n");
      await utimes(notes, 1_700_000_000, 1_700_000_000);
      expect((await listed(second.client)).get("notes.md")).toBe(sha(Buffer.from("v2\n")));
      expect((await listed()).get("notes.md")).toBe(sha(Buffer.from("v2\n")));
      await writeFile(notes, "version two\n");
      expect((await listed(second.client)).get("notes.md")).toBe(sha(Buffer.from("version two\n")));
      expect((await listed()).get("notes.md")).toBe(sha(Buffer.from("version two\n")));
      // Another shape (here a prefix) lists its own URIs, from the same digests.
      const prefixed = new McpServer({ name: "t3", version: "1.0.0" });
      registerSkills(prefixed, service, { prefix: "docs" });
      const third = await connect(prefixed);
      const list = (await third.client.request({ method: "skills/list", params: {} }, anyResult)) as Listed;
      expect(list.skills[0]?.resources.map((r) => r.uri)).toEqual(
        ["SKILL.md", "notes.md", "refs/a.md"].map((f) => `skill://docs/edit/${f}`),
      );
      await third.close();
    } finally {
      await second.close();
      await close();
    }
  });

  it("hashes each file once between servers that share one digest memo", async () => {
    const { dir, service, close } = await serveEdit();
    const hourAgo = Date.now() / 1000 - 3600; // not racily clean: a digest held is trusted
    for (const file of ["SKILL.md", "notes.md", "refs/a.md"])
      await utimes(join(dir, "edit", file), hourAgo, hourAgo);
    const digests = digestMemo();
    const servers = await Promise.all(
      ["t4", "t5"].map((name) => {
        const server = new McpServer({ name, version: "1.0.0" });
        registerSkills(server, service, { digests });
        return connect(server);
      }),
    );
    try {
      const lists = [];
      for (const { client } of servers)
        lists.push(await client.request({ method: "skills/list", params: {} }, anyResult));
      expect((lists[1] as Listed).skills).toEqual((lists[0] as Listed).skills);
      // Three files hashed by the first listing, taken from the memo by the second.
      expect(digests.stats()).toMatchObject({ hashed: 3, hits: 3 });
    } finally {
      for (const { close: closeOne } of servers) await closeOne();
      await close();
    }
  });

  it("a client of ours reads a bundled file edited in place as an integrity error, then loads it again", async () => {
    const { dir, client, close } = await serveEdit();
    try {
      const source = mcpSource(client, { id: "mcp:t" });
      const host = new SkillService({ sources: [source] });
      await host.discoverAndLoad();
      await writeFile(join(dir, "edit/notes.md"), "version two\n");
      await expect(host.readFile("edit", "notes.md")).rejects.toMatchObject({ code: "INTEGRITY_ERROR" });
      await host.discoverAndLoad();
      expect(Buffer.from(await host.readFile("edit", "notes.md")).toString()).toBe("version two\n");
    } finally {
      await close();
    }
  });
});
