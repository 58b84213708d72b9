import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpServer } from "@modelcontextprotocol/server";
import { type AgentInfo, type PermissionPolicy, SkillService } from "@skill/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, pathSource, skillMd, writeTree } from "./__fixtures__/harness.js";
import { anyResult } from "./protocol.js";
import { registerSkills } from "./server.js";
import { mcpSource } from "./source.js";

let root: string;
let service: SkillService;
const agent: AgentInfo = { name: "build" };
// "secret" is denied to every agent, "confirm" must be asked for: still listed.
const policy: PermissionPolicy = {
  evaluate: (_agent, _permission, name) =>
    name === "secret" ? "deny" : name === "confirm" ? "ask" : "allow",
};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "skill-mcp-perm-"));
  await writeTree(root, {
    "open/SKILL.md": skillMd("open", "Anyone may use it"),
    "confirm/SKILL.md": skillMd("confirm", "Ask first"),
    "secret/SKILL.md": skillMd("secret", "Denied"),
    "secret/notes.md": "private notes\n",
    "secret/sub/deep.md": "deeper\n",
  });
  service = new SkillService({
    sources: [
      pathSource(
        "p",
        ["open", "confirm", "secret"].map((n) => join(root, n, "SKILL.md")),
      ),
    ],
    permission: policy,
  });
  await service.discoverAndLoad();
  expect(service.all().map((s) => s.name)).toEqual(["confirm", "open", "secret"]);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function serve(options: { agent?: AgentInfo } = { agent }) {
  const server = new McpServer({ name: "t", version: "1.0.0" });
  registerSkills(server, service, { ...options, prefix: "team" });
  return connect(server);
}

/** The error a request gets, with the URI it named replaced, so two errors can be compared. */
async function failure(promise: Promise<unknown>, uri: string) {
  const error = (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as { code?: number; message?: string } | undefined;
  expect(error, uri).toBeDefined();
  return { code: error?.code, message: error?.message?.split(uri).join("<uri>") };
}

describe("registerSkills for an agent", () => {
  it("lists only what service.all(agent) shows, in skills/list and resources/list", async () => {
    const { client, close } = await serve();
    const list = (await client.request({ method: "skills/list", params: {} }, anyResult)) as {
      skills: { uri: string }[];
    };
    expect(list.skills.map((s) => s.uri)).toEqual([
      "skill://team/confirm/SKILL.md",
      "skill://team/open/SKILL.md",
    ]);
    const resources = await client.listResources();
    expect(resources.resources.some((r) => r.uri.includes("secret"))).toBe(false);
    const loaded = new SkillService({ sources: [mcpSource(client)] });
    await loaded.discoverAndLoad();
    expect(loaded.all().map((s) => s.name)).toEqual(["confirm", "open"]);
    await close();
  });

  it("answers skills/get for a denied skill exactly as for an unknown URI", async () => {
    const { client, close } = await serve();
    const get = (uri: string) => client.request({ method: "skills/get", params: { uri } }, anyResult);
    const denied = await failure(get("skill://team/secret/SKILL.md"), "skill://team/secret/SKILL.md");
    const unknown = await failure(get("skill://team/nosuch/SKILL.md"), "skill://team/nosuch/SKILL.md");
    expect(denied).toEqual(unknown);
    expect(denied.code).toBe(-32602);
    expect(await get("skill://team/confirm/SKILL.md")).toHaveProperty(
      "skill.uri",
      "skill://team/confirm/SKILL.md",
    );
    await close();
  });

  it("never serves a denied skill's files or folders, answering as for unknown ones", async () => {
    const { client, close } = await serve();
    for (const [denied, unknown] of [
      ["skill://team/secret/SKILL.md", "skill://team/nosuch/SKILL.md"],
      ["skill://team/secret/notes.md", "skill://team/nosuch/notes.md"],
      ["skill://team/secret/sub/deep.md", "skill://team/nosuch/sub/deep.md"],
    ] as const) {
      expect(await failure(client.readResource({ uri: denied }), denied)).toEqual(
        await failure(client.readResource({ uri: unknown }), unknown),
      );
    }
    const dir = (uri: string) =>
      client.request({ method: "resources/directory/read", params: { uri } }, anyResult);
    expect(await failure(dir("skill://team/secret"), "skill://team/secret")).toEqual(
      await failure(dir("skill://team/nosuch"), "skill://team/nosuch"),
    );
    await close();
  });

  it("serves every skill when no agent is given", async () => {
    const { client, close } = await serve({});
    const list = (await client.request({ method: "skills/list", params: {} }, anyResult)) as {
      skills: { uri: string }[];
    };
    expect(list.skills.map((s) => s.uri)).toContain("skill://team/secret/SKILL.md");
    const read = await client.readResource({ uri: "skill://team/secret/notes.md" });
    expect(read.contents[0]).toMatchObject({ text: "private notes\n" });
    await close();
  });
});
