import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ProtocolErrorCode } from "@modelcontextprotocol/client";
import { McpServer } from "@modelcontextprotocol/server";
import { SkillService } from "@skill/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, ERAS, pathSource, skillMd, writeTree } from "./__fixtures__/harness.js";
import { anyResult } from "./protocol.js";
import { registerSkills } from "./server.js";

let root: string;
let service: SkillService;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "skill-mcp-params-"));
  await writeTree(root, { "alpha/SKILL.md": skillMd("alpha", "Alpha"), "alpha/notes.md": "notes\n" });
  service = new SkillService({ sources: [pathSource("fixture", [join(root, "alpha/SKILL.md")])] });
  await service.discoverAndLoad();
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** The error a request got: its JSON-RPC code and message. */
async function answer(era: (typeof ERAS)[number], method: string, params: Record<string, unknown>) {
  const server = new McpServer({ name: "t", version: "1.0.0" });
  registerSkills(server, service);
  const { client, close } = await connect(server, undefined, era);
  try {
    const error = (await client.request({ method, params }, anyResult).then(
      () => ({}),
      (e: unknown) => e,
    )) as { code?: number; message?: string };
    return { code: error.code, message: error.message ?? "" };
  } finally {
    await close();
  }
}

describe.each(ERAS)("registerSkills answering bad params at %s", (era) => {
  it.each(["skills/get", "resources/read", "resources/directory/read"])(
    "%s with a numeric uri: -32602 (invalid params) and one short sentence, not a validator's dump",
    async (method) => {
      const { code, message } = await answer(era, method, { uri: 42 });
      expect(code).toBe(ProtocolErrorCode.InvalidParams);
      expect(message).toContain("uri must be a string, found 42");
      expect(message).not.toMatch(/invalid_type|"path"|\n/);
      expect(message.length).toBeLessThan(120);
    },
  );

  it.each(["skills/list", "resources/list", "resources/directory/read"])(
    "%s with a numeric cursor: -32602 and one short sentence",
    async (method) => {
      const { code, message } = await answer(era, method, { uri: "skill://skills/alpha", cursor: 7 });
      expect(code).toBe(ProtocolErrorCode.InvalidParams);
      expect(message).toContain("cursor must be a string, found 7");
      expect(message).not.toContain("\n");
    },
  );

  it("skills/get and resources/read without a uri: -32602, saying it is missing", async () => {
    for (const method of ["skills/get", "resources/read"]) {
      const { code, message } = await answer(era, method, {});
      expect(code, method).toBe(ProtocolErrorCode.InvalidParams);
      expect(message, method).toContain("uri is missing");
    }
  });
});

describe("registerSkills quoting what a client sent", () => {
  const huge = `skill://skills/alpha/${"x".repeat(1024 * 1024)}`;
  it.each([
    ["skills/get", { uri: huge }, "Unknown skill"],
    ["resources/read", { uri: huge }, "Unknown resource"],
    ["resources/directory/read", { uri: huge }, "Unknown directory"],
    ["skills/list", { cursor: "y".repeat(1024 * 1024) }, "Invalid cursor"],
  ])("%s echoes a 1 MiB URI or cursor truncated, not whole", async (method, params, start) => {
    const { code, message } = await answer("2026-07-28", method, params);
    expect(code).toBe(ProtocolErrorCode.InvalidParams);
    expect(message).toMatch(new RegExp(`^${start}: "`));
    expect(message).toContain("…");
    expect(message.length).toBeLessThan(400);
  });

  it("quotes an unknown URI so that it cannot drive a terminal", async () => {
    const { message } = await answer("2026-07-28", "resources/read", { uri: "skill://skills/\u001b[31mred" });
    expect(message).toBe('Unknown resource: "skill://skills/\\u001b[31mred"');
  });
});
