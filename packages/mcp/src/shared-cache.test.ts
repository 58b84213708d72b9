import { mkdtemp, open, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { type AgentInfo, digestMemo, type PermissionPolicy, SkillService, sha256Digest } from "@skill/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connect, pathSource, skillMd, writeTree } from "./__fixtures__/harness.js";
import { catalogCacheSizes } from "./catalog-cache.js";
import { anyResult } from "./protocol.js";
import { createSkillsServer } from "./server.js";

// What every server of one service shares: one hash per file however many clients ask, one
// copy of file lists and entries whatever agent objects the sessions hold, and digests that
// follow the bytes served.

const SKILLS = Array.from({ length: 12 }, (_, i) => `skill-${String(i).padStart(2, "0")}`);
const HOUR_AGO = new Date(Date.now() - 3_600_000);

let root: string;
let closers: (() => Promise<void>)[];

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "skill-mcp-shared-"));
  closers = [];
});

afterEach(async () => {
  for (const close of closers) await close();
  await rm(root, { recursive: true, force: true });
});

/**
 * A tree of SKILLS, each with SKILL.md and two bundled files; mtimes an hour old, or now when
 * `fresh` (to the millisecond either way, so that a test can put one back exactly).
 */
async function loaded(options: { fresh?: boolean; permission?: PermissionPolicy } = {}) {
  const tree: Record<string, string> = {};
  for (const name of SKILLS) {
    tree[`${name}/SKILL.md`] = skillMd(name, `The ${name} skill`);
    tree[`${name}/ref.md`] = `ref of ${name}\n`;
    tree[`${name}/scripts/run.sh`] = `echo ${name}\n`;
  }
  await writeTree(root, tree);
  const mtime = options.fresh ? new Date() : HOUR_AGO;
  for (const rel of Object.keys(tree)) await utimes(join(root, rel), mtime, mtime);
  const service = new SkillService({
    sources: [
      pathSource(
        "fs",
        SKILLS.map((n) => join(root, n, "SKILL.md")),
      ),
    ],
    ...(options.permission ? { permission: options.permission } : {}),
  });
  await service.discoverAndLoad();
  return { service, files: Object.keys(tree).length };
}

/** Counts calls of a service method, without changing what it does. */
function counted(service: SkillService, method: "readFile" | "files"): { calls: number } {
  const counter = { calls: 0 };
  const original = service[method].bind(service) as (...args: unknown[]) => unknown;
  (service as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
    counter.calls++;
    return original(...args);
  };
  return counter;
}

async function session(service: SkillService, agent?: AgentInfo): Promise<Client> {
  const { client, close } = await connect(
    createSkillsServer(service, { pageSize: 5, ...(agent ? { agent } : {}) }),
  );
  closers.push(close);
  return client;
}

type Entry = { uri: string; resources: { uri: string; digest: string; size: number }[] };

/** Every page of skills/list. */
async function listAll(client: Client): Promise<Entry[]> {
  const all: Entry[] = [];
  let cursor: string | undefined;
  do {
    const page = (await client.request(
      { method: "skills/list", params: cursor ? { cursor } : {} },
      anyResult,
    )) as { skills: Entry[]; nextCursor?: string };
    all.push(...page.skills);
    cursor = page.nextCursor;
  } while (cursor);
  return all;
}

/** Rewrites `path` in place (same inode and size), then puts its mtime back. */
async function rewriteInPlace(path: string, text: string): Promise<void> {
  const before = await stat(path);
  const handle = await open(path, "r+");
  try {
    await handle.write(text, 0);
  } finally {
    await handle.close();
  }
  await utimes(path, before.atime, before.mtime);
  const after = await stat(path);
  expect([after.ino, after.size, after.mtimeMs]).toEqual([before.ino, before.size, before.mtimeMs]);
}

describe("servers of one service share what they know", () => {
  it("hashes each file once on a cold start, however many clients list at once", async () => {
    const { service, files } = await loaded();
    const reads = counted(service, "readFile");
    const clients = await Promise.all(Array.from({ length: 10 }, () => session(service)));
    const lists = await Promise.all(clients.map(listAll));
    expect(reads.calls).toBe(files);
    for (const list of lists) expect(list).toEqual(lists[0]);
    expect(lists[0]).toHaveLength(SKILLS.length);
  });

  it("takes its digests from the core memo it is given", async () => {
    const { service, files } = await loaded();
    const memo = digestMemo();
    const clients: Client[] = [];
    for (let i = 0; i < 5; i++) {
      const { client, close } = await connect(createSkillsServer(service, { digests: memo }));
      closers.push(close);
      clients.push(client);
    }
    await Promise.all(clients.map(listAll));
    expect(memo.stats()).toMatchObject({ entries: files, hashed: files });
  });

  it("keeps one copy of file lists and entries for sessions whose agents are equal objects", async () => {
    const permission: PermissionPolicy = {
      evaluate: (agent, _p, name) => (agent.name === "small" && name > "skill-05" ? "deny" : "allow"),
    };
    const { service } = await loaded({ permission });
    const walks = counted(service, "files");
    const agent: AgentInfo = { name: "build", permission: { skill: { "*": "allow" } } };
    const first = await listAll(await session(service, agent));
    expect(walks.calls).toBe(SKILLS.length);
    const sizes = catalogCacheSizes(service);
    expect(sizes).toEqual({ lists: 1, views: 1, known: SKILLS.length, entries: SKILLS.length });

    // Another session, another object with the same permissions: nothing walked, nothing kept twice.
    const second = await listAll(await session(service, structuredClone(agent)));
    expect(second).toEqual(first);
    expect(walks.calls).toBe(SKILLS.length);
    expect(catalogCacheSizes(service)).toEqual(sizes);

    // An agent that sees fewer skills gets a list of its own, and the same entries.
    const small = await listAll(await session(service, { name: "small" }));
    expect(small).toEqual(first.slice(0, 6));
    expect(walks.calls).toBe(SKILLS.length);
    expect(catalogCacheSizes(service)).toEqual({ ...sizes, lists: 2 });
  });
});

describe("a file rewritten in place with its size and mtime kept", () => {
  const ref = () => join(root, "skill-03", "ref.md");
  const refUri = "skill://skills/skill-03/ref.md";
  const digestOf = (list: Entry[]) => list.flatMap((e) => e.resources).find((r) => r.uri === refUri)?.digest;

  it("is listed with its new digest when the rewrite follows the hash within 2 s", async () => {
    const { service } = await loaded({ fresh: true });
    const client = await session(service);
    expect(digestOf(await listAll(client))).toBe(sha256Digest("ref of skill-03\n"));
    await rewriteInPlace(ref(), "REF OF SKILL-03\n");
    expect(digestOf(await listAll(client))).toBe(sha256Digest("REF OF SKILL-03\n"));
  });

  it("is listed with the digest of the bytes resources/read served", async () => {
    const { service } = await loaded();
    const client = await session(service);
    expect(digestOf(await listAll(client))).toBe(sha256Digest("ref of skill-03\n"));
    await rewriteInPlace(ref(), "REF OF SKILL-03\n");
    const read = await client.readResource({ uri: refUri });
    expect((read.contents[0] as { text: string }).text).toBe("REF OF SKILL-03\n");
    expect(digestOf(await listAll(client))).toBe(sha256Digest(await readFile(ref())));
  });
});

describe("recheckMs", () => {
  const ref = () => join(root, "skill-03", "ref.md");
  const refUri = "skill://skills/skill-03/ref.md";
  const digestOf = (list: Entry[]) => list.flatMap((e) => e.resources).find((r) => r.uri === refUri)?.digest;
  const recheck = async (service: SkillService) => {
    const { client, close } = await connect(createSkillsServer(service, { pageSize: 5, recheckMs: 1_000 }));
    closers.push(close);
    return client;
  };

  it("lists what a check begun within recheckMs found, and an edit once it is due", async () => {
    const { service } = await loaded();
    const client = await recheck(service);
    expect(digestOf(await listAll(client))).toBe(sha256Digest("ref of skill-03\n"));
    await writeFile(ref(), "ref of skill-03, edited\n");
    expect(digestOf(await listAll(client))).toBe(sha256Digest("ref of skill-03\n"));
    await new Promise((done) => setTimeout(done, 1_100));
    expect(digestOf(await listAll(client))).toBe(sha256Digest("ref of skill-03, edited\n"));
  });

  it("lists the digest of the bytes resources/read served at once", async () => {
    const { service } = await loaded();
    const client = await recheck(service);
    expect(digestOf(await listAll(client))).toBe(sha256Digest("ref of skill-03\n"));
    await writeFile(ref(), "ref of skill-03, edited\n");
    const read = await client.readResource({ uri: refUri });
    expect((read.contents[0] as { text: string }).text).toBe("ref of skill-03, edited\n");
    expect(digestOf(await listAll(client))).toBe(sha256Digest("ref of skill-03, edited\n"));
  });
});
