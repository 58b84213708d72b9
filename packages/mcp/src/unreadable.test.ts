import { appendFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ProtocolErrorCode } from "@modelcontextprotocol/client";
import { McpServer } from "@modelcontextprotocol/server";
import { type AgentInfo, type PermissionPolicy, SkillService } from "@skill/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connect, pathSource, skillMd, writeTree } from "./__fixtures__/harness.js";
import { registerSkills } from "./server.js";

// A file the agent may see but that cannot be read right now (replaced, grown past the
// limit) is a read error; only a URI that names nothing the agent may see is unknown. These
// ways of making a file unreadable work for root too, where chmod 000 does not.

let root: string;
let service: SkillService;
const agent: AgentInfo = { name: "build" };
const policy: PermissionPolicy = { evaluate: (_a, _p, name) => (name === "secret" ? "deny" : "allow") };

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "skill-mcp-unreadable-"));
  await writeTree(root, {
    "alpha/SKILL.md": skillMd("alpha", "Alpha"),
    "alpha/notes.md": "notes\n",
    "secret/SKILL.md": skillMd("secret", "Denied"),
  });
  service = new SkillService({
    sources: [
      pathSource(
        "p",
        ["alpha", "secret"].map((n) => join(root, n, "SKILL.md")),
      ),
    ],
    permission: policy,
  });
  await service.discoverAndLoad();
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** What resources/read answered: its contents' text, or its error's code and message. */
async function read(uri: string) {
  const server = new McpServer({ name: "t", version: "1.0.0" });
  registerSkills(server, service, { agent, maxFileBytes: 100 });
  const { client, close } = await connect(server);
  try {
    const result = await client.readResource({ uri });
    return { text: (result.contents[0] as { text?: string }).text };
  } catch (error) {
    const { code, message } = error as { code: number; message: string };
    return { code, message };
  } finally {
    await close();
  }
}

describe("resources/read of a file that cannot be read now", () => {
  it("answers a bundled file grown past maxFileBytes as a read error, not as an unknown resource", async () => {
    expect(await read("skill://skills/alpha/notes.md")).toEqual({ text: "notes\n" });
    await appendFile(join(root, "alpha/notes.md"), "x".repeat(200));
    expect(await read("skill://skills/alpha/notes.md")).toEqual({
      code: ProtocolErrorCode.InternalError,
      message:
        'Could not read "skill://skills/alpha/notes.md": it is larger than the 100 bytes this server serves',
    });
  });

  it("answers a SKILL.md replaced by a folder as a read error, naming no path of the server", async () => {
    await rm(join(root, "alpha/SKILL.md"));
    await mkdir(join(root, "alpha/SKILL.md"));
    const answer = await read("skill://skills/alpha/SKILL.md");
    expect(answer).toEqual({
      code: ProtocolErrorCode.InternalError,
      message: 'Could not read "skill://skills/alpha/SKILL.md": it is not a file now',
    });
    expect(JSON.stringify(answer)).not.toContain(root);
  });

  it("still answers a denied skill's unreadable file exactly as an unknown one", async () => {
    await rm(join(root, "secret/SKILL.md"));
    await mkdir(join(root, "secret/SKILL.md"));
    const denied = await read("skill://skills/secret/SKILL.md");
    const unknown = await read("skill://skills/nosuch/SKILL.md");
    expect(denied).toEqual({ code: ProtocolErrorCode.InvalidParams, message: expect.any(String) });
    expect(denied.message?.replace("secret", "nosuch")).toBe(unknown.message);
  });

  it("still answers a file that is gone as an unknown resource", async () => {
    await rm(join(root, "alpha/notes.md"));
    expect(await read("skill://skills/alpha/notes.md")).toEqual({
      code: ProtocolErrorCode.InvalidParams,
      message: 'Unknown resource: "skill://skills/alpha/notes.md"',
    });
  });
});
