import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";
import { SkillService } from "@skill/core";
import { formatSkillContent } from "@skill/format";
import { afterEach, describe, expect, it } from "vitest";
import { type CountedSkill, settableSource, substringSearch } from "./__fixtures__/skills.js";
import { registerSkillTools } from "./mcp.js";
import { SKILL_INPUT } from "./schema.js";
import { skillTools } from "./tools.js";

const agent = { name: "build" };

const many: CountedSkill[] = [
  ...Array.from({ length: 300 }, (_, i) => ({
    name: `chore-${String(i).padStart(3, "0")}`,
    description: `Helps with chore number ${i} in a large codebase.`,
  })),
  { name: "pdf-forms", description: "Fill in PDF forms and flatten them." },
];

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function connect(server: McpServer) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "host", version: "1.0.0" });
  const notices: string[] = [];
  let wake: (() => void) | undefined;
  client.setNotificationHandler("notifications/tools/list_changed", () => {
    notices.push("tools/list_changed");
    wake?.();
  });
  await server.connect(serverSide);
  await client.connect(clientSide);
  closers.push(async () => {
    await client.close();
    await server.close();
  });
  /** Resolves once `count` list_changed notifications have arrived (fails after 2 s). */
  const noticed = (count: number) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${notices.length} notification(s)`)), 2000);
      const check = () => {
        if (notices.length >= count) {
          clearTimeout(timer);
          resolve();
        }
      };
      wake = check;
      check();
    });
  return { client, notices, noticed };
}

function textOf(result: { content?: unknown }): string {
  const [first] = (result.content ?? []) as { type: string; text?: string }[];
  return first?.type === "text" ? (first.text ?? "") : "";
}

async function setup(skills: CountedSkill[]) {
  const { source, state } = settableSource("global:/home/me/.agents/skills");
  state.skills = skills;
  const service = new SkillService({ sources: [source] });
  await service.discoverAndLoad();
  const tools = skillTools(service, { agent, search: substringSearch() });
  const server = new McpServer({ name: "skills", version: "1.0.0" });
  registerSkillTools(server, tools);
  return { service, state, tools, server, ...(await connect(server)) };
}

describe("registerSkillTools over the MCP SDK's in-memory transport", () => {
  it("lists skill and skill_search as defined, and answers calls with their results", async () => {
    const { client, tools, service } = await setup(many);
    const listed = await client.listTools();
    expect(listed.tools.map((t) => t.name)).toEqual(["skill", "skill_search"]);
    expect(listed.tools[0]?.description).toBe(tools.definitions[0]?.description);
    expect(listed.tools[0]?.inputSchema).toEqual(SKILL_INPUT);
    expect(listed.tools[1]?.description).toBe(tools.definitions[1]?.description);

    const found = await client.callTool({ name: "skill_search", arguments: { query: "pdf forms" } });
    expect(found.isError ?? false).toBe(false);
    expect(textOf(found)).toContain("<name>pdf-forms</name>");
    const loaded = await client.callTool({ name: "skill", arguments: { name: "pdf-forms" } });
    expect(loaded.isError ?? false).toBe(false);
    expect(textOf(loaded)).toBe(formatSkillContent(await service.read("pdf-forms"), { files: [] }));
  });

  it("a failed call is an error result with the sentence, bad input included", async () => {
    const { client } = await setup(many);
    const missing = await client.callTool({ name: "skill", arguments: { name: "pdf-form" } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toBe('No skill named "pdf-form"; similar: pdf-forms.');
    const bad = await client.callTool({ name: "skill", arguments: { file: "x" } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toBe(
      'Invalid input for skill: "name" is missing. Expected {"name": string, "file"?: string}.',
    );
  });

  it("sends tools/list_changed only from refresh(), and lists what refresh() laid out", async () => {
    const { client, state, service, tools, notices, noticed } = await setup(many);
    const first = await client.listTools();
    const before = notices.length;
    // The registry shrinks until everything fits: the list holds still, calls follow at once.
    state.skills = many.slice(0, 3);
    await service.discoverAndLoad();
    await client.callTool({ name: "skill", arguments: { name: "chore-000" } });
    const gone = await client.callTool({ name: "skill", arguments: { name: "pdf-forms" } });
    expect(gone.isError).toBe(true);
    expect(await client.listTools()).toEqual(first);
    expect(notices.length).toBe(before);

    // refresh(): skill_search is no longer offered, announced once.
    expect(tools.refresh()).toBe(true);
    await noticed(before + 1);
    const listed = await client.listTools();
    expect(listed.tools.map((t) => t.name)).toEqual(["skill"]);
    expect(listed.tools[0]?.description).toContain("<name>chore-002</name>");
    expect(listed.tools[0]?.description).not.toContain("pdf-forms");

    // It grows again: skill_search comes back at the next refresh().
    const now = notices.length;
    state.skills = many;
    await service.discoverAndLoad();
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["skill"]);
    tools.refresh();
    await noticed(now + 1);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["skill", "skill_search"]);
  });

  it("a description that changes alone is announced at refresh(); loading skills announces nothing", async () => {
    const { client, state, service, tools, notices, noticed } = await setup(many);
    const first = (await client.listTools()).tools[0]?.description ?? "";
    const before = notices.length;
    for (const name of ["chore-299", "chore-298", "pdf-forms"])
      expect((await client.callTool({ name: "skill", arguments: { name } })).isError ?? false).toBe(false);
    expect((await client.listTools()).tools[0]?.description).toBe(first);
    expect(tools.refresh()).toBe(false);
    expect(notices.length).toBe(before);

    state.skills = [{ name: "aaa-first", description: "Sorts before every chore." }, ...many];
    await service.discoverAndLoad();
    expect(tools.refresh()).toBe(true);
    await noticed(before + 1);
    const next = (await client.listTools()).tools[0]?.description ?? "";
    expect(next).toContain("<name>aaa-first</name>\n    <description>");
  });
});
