import { createHash } from "node:crypto";
import { mkdtemp, rm, symlink, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { McpServer } from "@modelcontextprotocol/server";
import { type AgentInfo, type PermissionPolicy, SkillService } from "@skill/core";
import { afterAll, describe, expect, it } from "vitest";
import { connect, pathSource, skillMd, type Tree, writeTree } from "./__fixtures__/harness.js";
import { anyResult } from "./protocol.js";
import { type RegisterSkillsOptions, registerSkills } from "./server.js";

// A visible skill with a denied skill nested in its folder: nothing of the nested one may
// leave the server, whatever path leads to it.
const SECRET = "NESTED-SECRET-7f3a";
const agent: AgentInfo = { name: "build" };
const policy: PermissionPolicy = { evaluate: (_a, _p, name) => (name === "inner" ? "deny" : "allow") };

const NESTED: Readonly<Record<string, string>> = {
  "parent/inner/SKILL.md": skillMd("inner", "Denied, nested in parent", `${SECRET} in the body\n`),
  // Sorts before inner/SKILL.md: a list cut between the two shows no SKILL.md in inner/.
  "parent/inner/0-first.md": `${SECRET} sorts first\n`,
  "parent/inner/secret.md": `${SECRET} in a file\n`,
  "parent/inner/deep/more.md": `${SECRET} deeper\n`,
};
const TREE: Tree = {
  "parent/SKILL.md": skillMd("parent", "Visible parent"),
  "parent/a.md": "a\n",
  "parent/b.md": "b\n",
  "parent/c.md": "c\n",
  ...NESTED,
  // Links inside the parent's folder that lead into the nested skill.
  "parent/peek.md": { link: "inner/secret.md" },
  "parent/peekdir": { link: "inner" },
  "parent/zz/deep-peek.md": { link: "../inner/deep/more.md" },
  "outside.txt": `${SECRET} outside every skill\n`,
};
/** Every byte string the nested skill holds, and the digests a listing could leak them by. */
const FORBIDDEN = [
  SECRET,
  ...Object.values(NESTED).map((text) => `sha256:${createHash("sha256").update(text).digest("hex")}`),
];

const roots: string[] = [];
afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

async function serveTree(options: RegisterSkillsOptions = {}) {
  const root = await mkdtemp(join(tmpdir(), "skill-mcp-nested-"));
  roots.push(root);
  await writeTree(root, TREE);
  const service = new SkillService({
    sources: [pathSource("p", [join(root, "parent/SKILL.md"), join(root, "parent/inner/SKILL.md")])],
    permission: policy,
  });
  const report = await service.discoverAndLoad();
  expect(report.failed).toEqual([]);
  expect(service.all(agent).map((s) => s.name)).toEqual(["parent"]);
  const server = new McpServer({ name: "t", version: "1.0.0" });
  registerSkills(server, service, { agent, ...options });
  return { root, service, ...(await connect(server)) };
}

/** Every answer the server gives about the parent: listings, entries, files, folders, and guesses. */
async function everything(client: Client): Promise<{ text: string; served: string[] }> {
  const answers: unknown[] = [];
  const ask = (method: string, params: Record<string, unknown>) =>
    client.request({ method, params }, anyResult).then(
      (result) => {
        answers.push(result);
        return result as Record<string, unknown>;
      },
      (error: Error) => {
        answers.push(error.message);
        return undefined;
      },
    );
  const uris = new Set<string>();
  for (let cursor: unknown, first = true; first || cursor !== undefined; first = false) {
    const page = await ask("skills/list", cursor === undefined ? {} : { cursor: cursor as string });
    for (const skill of (page?.skills ?? []) as { resources?: { uri: string }[] }[]) {
      for (const r of skill.resources ?? []) uris.add(r.uri);
    }
    cursor = page?.nextCursor;
  }
  for (let cursor: unknown, first = true; first || cursor !== undefined; first = false) {
    const page = await ask("resources/list", cursor === undefined ? {} : { cursor: cursor as string });
    for (const r of (page?.resources ?? []) as { uri: string }[]) uris.add(r.uri);
    cursor = page?.nextCursor;
  }
  await ask("skills/get", { uri: "skill://skills/parent/SKILL.md" });
  await ask("skills/get", { uri: "skill://skills/inner/SKILL.md" });
  for (const dir of ["parent", "parent/inner", "parent/peekdir", "parent/zz", "inner"]) {
    await ask("resources/directory/read", { uri: `skill://skills/${dir}` });
  }
  const guesses = [
    ...Object.keys(NESTED).map((p) => `skill://skills/${p}`),
    ...Object.keys(NESTED).map((p) => `skill://skills/${p.replace("parent/", "")}`),
    "skill://skills/parent/peek.md",
    "skill://skills/parent/peekdir/secret.md",
    "skill://skills/parent/peekdir/SKILL.md",
    "skill://skills/parent/zz/deep-peek.md",
  ];
  const served: string[] = [];
  for (const uri of [...uris, ...guesses]) {
    const read = await ask("resources/read", { uri });
    if (read) served.push(uri);
  }
  return { text: JSON.stringify(answers), served };
}

function expectNothingNested(text: string): void {
  for (const forbidden of FORBIDDEN) expect(text).not.toContain(forbidden);
}

describe("registerSkills never serves a denied skill nested in a visible one", () => {
  it("when the parent's file list is cut at maxFiles, wherever the cut falls", async () => {
    for (const maxFiles of [1, 2, 3, 4, 5, 6, 8]) {
      const { client, close } = await serveTree({ maxFiles });
      const { text, served } = await everything(client);
      expectNothingNested(text);
      expect(served.length, `maxFiles ${maxFiles}`).toBe(Math.min(maxFiles, 3) + 1);
      expect(served).toContain("skill://skills/parent/SKILL.md");
      await close();
    }
  });

  it("through symlinks in the parent that lead into the nested folder", async () => {
    const { client, service, close } = await serveTree();
    const { text, served } = await everything(client);
    expectNothingNested(text);
    expect(served.sort()).toEqual(
      ["SKILL.md", "a.md", "b.md", "c.md"].map((f) => `skill://skills/parent/${f}`),
    );
    // Served is what core lists for the agent, nothing more.
    expect(await service.files("parent", agent, { limit: 100 })).toEqual(["a.md", "b.md", "c.md"]);
    await close();
  });

  it("when the parent's SKILL.md is swapped for a link to the nested one, or out of the folder, after loading", async () => {
    for (const target of ["inner/SKILL.md", "../outside.txt"]) {
      const { root, client, close } = await serveTree();
      await unlink(join(root, "parent/SKILL.md"));
      await symlink(target, join(root, "parent/SKILL.md"));
      const { text, served } = await everything(client);
      expectNothingNested(text);
      expect(served, target).not.toContain("skill://skills/parent/SKILL.md");
      await close();
    }
  });
});
