// @module-tag slow: every test here runs the built `skill` CLI in a child process.
import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, type RunResult, runNode } from "../test/run-node.js";

const examples = fileURLToPath(new URL("../../../examples/", import.meta.url));

let root: string;
let project: string;
let home: string;
let base: string[];

/** The size of an XML catalog of every skill by name and location, written out by hand. */
function namesOnly(): number {
  const element = (name: string, location: string) =>
    `  <skill>\n    <name>${name}</name>\n    <location>${location}</location>\n  </skill>\n`.length;
  return (
    "<available_skills>\n</available_skills>".length +
    projectSkills.reduce((n, s) => n + element(s, join(project, ".agents", "skills", s, "SKILL.md")), 0) +
    teamSkills.reduce((n, s) => n + element(s, join(root, "team", s, "SKILL.md")), 0) +
    userSkills.reduce((n, s) => n + element(s, join(home, ".agents", "skills", s, "SKILL.md")), 0)
  );
}

function run(args: readonly string[]): Promise<RunResult> {
  return runNode(CLI, [...base, ...args], { cwd: root, home });
}

/** Skills with a description in an XML catalog, in catalog order. */
function described(text: string): string[] {
  return [...text.matchAll(/<name>([^<]+)<\/name>\n {4}<description>/g)].map((m) => m[1] as string);
}

async function skill(dir: string, name: string): Promise<void> {
  await mkdir(join(dir, name), { recursive: true });
  const description = `What ${name} does, told at length so that a catalog budget has to choose: ${"detail ".repeat(12).trim()}.`;
  await writeFile(
    join(dir, name, "SKILL.md"),
    `---\nname: ${name}\ndescription: ${description}\n---\nBody of ${name}.\n`,
  );
}

// Names that sort the wrong way round: by the alphabet, user skills would win.
const userSkills = Array.from({ length: 12 }, (_, i) => `a-user-${String(i).padStart(2, "0")}`);
const teamSkills = Array.from({ length: 12 }, (_, i) => `m-team-${String(i).padStart(2, "0")}`);
const projectSkills = Array.from({ length: 12 }, (_, i) => `z-proj-${String(i).padStart(2, "0")}`);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "skill-prompt-"));
  project = join(root, "project");
  home = join(root, "home");
  await mkdir(join(project, ".git"), { recursive: true });
  for (const n of projectSkills) await skill(join(project, ".agents", "skills"), n);
  for (const n of teamSkills) await skill(join(root, "team"), n);
  for (const n of userSkills) await skill(join(home, ".agents", "skills"), n);
  await writeFile(
    join(project, "skill.config.json"),
    JSON.stringify({ skills: { paths: ["../team"], pinned: ["a-user-07"] } }),
  );
  base = ["--cwd", project, "--home", home];
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("skill prompt ranks by source", { timeout: 30_000 }, () => {
  it("project skills keep their descriptions first, then configured ones, then user ones; pinned before all", async () => {
    // Room for the pinned description whole and about 16 shortened ones.
    const budget = namesOnly() + 200 + 16 * ("\n    <description></description>".length + 24);
    const { code, stdout, stderr } = await run(["prompt", "--json", "--budget", String(budget)]);
    expect(code).toBe(0);
    expect(stderr).toBe("");
    const data = JSON.parse(stdout);
    expect(data.pinned).toEqual(["a-user-07"]);
    expect(data.omitted).toEqual([]);
    const kept = described(data.text);
    expect(kept).toContain("a-user-07"); // skills.pinned in the config
    // Every project skill, then configured ones by name, no user one but the pinned.
    const team = kept.filter((n) => n.startsWith("m-team-"));
    expect(kept.filter((n) => n.startsWith("z-proj-"))).toEqual(projectSkills);
    expect(team.length).toBeGreaterThan(0);
    expect(team.length).toBeLessThan(12);
    expect(team).toEqual(teamSkills.slice(0, team.length));
    expect(kept.filter((n) => n.startsWith("a-user-"))).toEqual(["a-user-07"]);
  });

  it("--pin adds to the config's pinned skills, and an unknown one is named on stderr", async () => {
    const budget = String(namesOnly() + 600);
    const pins = ["--pin", "m-team-11", "--pin", "nope"];
    const { stdout, stderr } = await run(["prompt", "--json", "--budget", budget, ...pins]);
    const data = JSON.parse(stdout);
    expect(data.pinned).toEqual(["a-user-07", "m-team-11", "nope"]);
    expect(data.omitted).toEqual([]);
    const kept = described(data.text);
    expect(kept).toContain("a-user-07");
    expect(kept).toContain("m-team-11");
    expect(kept.filter((n) => n.startsWith("z-proj-")).length).toBeGreaterThan(0);
    expect(kept.filter((n) => n.startsWith("a-user-") && n !== "a-user-07")).toEqual([]);
    expect(data.text).toContain("<description>What m-team-11 does, told at length");
    const human = await run(["prompt", "--budget", budget, "--pin", "nope"]);
    expect(human.stderr).toContain("pinned 'nope': no such skill for agent 'build' (ignored)");
    expect(stderr).toBe("");
  });

  it("when skills are left out, the catalog and stderr say how many", async () => {
    const { code, stdout, stderr } = await run(["prompt", "--budget", "1200"]);
    expect(code).toBe(0);
    const left = Number(/left out (\d+) skills/.exec(stderr)?.[1]);
    expect(left).toBeGreaterThan(0);
    expect(stdout).toContain(
      `  ${left} more skills are not listed here; load one by name if the task needs it.\n</available_skills>`,
    );
    // What stays is the project's first.
    expect(stdout).toContain("<name>z-proj-00</name>");
    expect(stdout).not.toContain("<name>a-user-00</name>");
  });

  it("--search prints the tool's catalog and the skill_search definition a harness would send", async () => {
    const { code, stdout, stderr } = await run(["prompt", "--search", "--budget", "1200"]);
    expect(code).toBe(0);
    const [catalog, definition] = stdout.split("\n\n");
    expect(catalog).not.toContain("<location>");
    expect(catalog).toMatch(
      / \d+ more skills are not listed here; use skill_search to find one\.\n<\/available_skills>$/,
    );
    expect(JSON.parse(definition ?? "")).toMatchObject({
      name: "skill_search",
      inputSchema: { type: "object", required: ["query"] },
    });
    expect(stderr).toContain("left out");
    const json = JSON.parse((await run(["prompt", "--search", "--json", "--budget", "1200"])).stdout);
    expect(json.definitions.map((d: { name: string }) => d.name)).toEqual(["skill_search"]);
    const roomy = await run(["prompt", "--search", "--budget", "none"]);
    expect(roomy.stdout).not.toContain("skill_search");
    expect(roomy.stderr).toContain("a harness would not offer skill_search");
    expect((await run(["prompt", "--search", "--style", "json"])).code).toBe(2);
  });
});

describe("skill serve-mcp --tools", { timeout: 30_000 }, () => {
  let exampleProject: string;
  beforeAll(async () => {
    exampleProject = join(root, "example");
    await cp(join(examples, "project"), exampleProject, { recursive: true });
    await mkdir(join(root, "nohome"), { recursive: true }); // a home without skills
  });

  it("serves skill and skill_search to an MCP SDK v2 client over stdio, permissions applied", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        CLI,
        "serve-mcp",
        "--tools",
        "--cwd",
        exampleProject,
        "--home",
        join(root, "nohome"),
        "--agent",
        "review",
      ],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root, NO_COLOR: "1" },
      stderr: "pipe",
    });
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["skill"]);
      const description = tools[0]?.description ?? "";
      expect(description).toContain("<name>pdf-tools</name>");
      expect(description).not.toContain("internal-deploy"); // denied to review
      const text = (r: { content?: unknown }) => (r.content as { text: string }[])[0]?.text ?? "";
      const loaded = await client.callTool({ name: "skill", arguments: { name: "pdf-tools" } });
      expect(loaded.isError ?? false).toBe(false);
      expect(text(loaded)).toContain('<skill_content name="pdf-tools">');
      const denied = await client.callTool({ name: "skill", arguments: { name: "internal-deploy" } });
      expect(denied.isError).toBe(true);
      expect(text(denied)).toMatch(/^No skill named "internal-deploy"/);
      // release-* is `ask` in the example config, and nobody on stdio can confirm it.
      const ask = await client.callTool({ name: "skill", arguments: { name: "release-notes" } });
      expect(ask.isError).toBe(true);
      expect(text(ask)).toContain("may only be loaded with the user's permission");
    } finally {
      await client.close();
    }
  });
});
