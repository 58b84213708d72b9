// @module-tag slow: every test here runs the built `skill` CLI in a child process.
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, type RunResult, runNode } from "../../../test/run-node.js";
import { width } from "../../output.js";

const examples = fileURLToPath(new URL("../../../../../examples/", import.meta.url));
let root: string;
let base: string[];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "skill-search-"));
  await cp(join(examples, "project"), join(root, "project"), { recursive: true });
  await cp(join(examples, "home"), join(root, "home"), { recursive: true });
  base = ["--cwd", join(root, "project"), "--home", join(root, "home")];
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function search(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<RunResult> {
  return runNode(CLI, [...base, "search", ...args], { cwd: root, env });
}

interface Hit {
  name: string;
  score: number;
  terms: string[];
  description: string;
  location: string;
}

async function hits(args: readonly string[]): Promise<Hit[]> {
  const { stdout, stderr } = await search([...args, "--json"]);
  expect(stderr).toBe("");
  return (JSON.parse(stdout) as { hits: Hit[] }).hits;
}

describe("skill search", () => {
  it("ranks the skills for a request in plain words, with scores and descriptions", async () => {
    const { code, stdout, stderr } = await search(["fill", "in", "a", "PDF", "form"], {
      SKILL_FORCE_TTY: "120",
    });
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const lines = stdout.split("\n");
    expect(lines[0]).toMatch(/^NAME\s+SCORE\s+DESCRIPTION$/);
    expect(lines[1]).toMatch(/^pdf-tools\s+\d+\.\d\s+Extract text and tables from PDF files/);
    expect(stdout).toMatch(/\n\d+ match(es)? of 8 skills visible to agent 'build'\n$/);
  });

  it("writes a line per hit in a pipe, as list does: name, score, description and location between tabs", async () => {
    const { code, stdout, stderr } = await search(["fill", "in", "a", "PDF", "form"]);
    expect(code).toBe(0);
    expect(stderr).toBe("");
    const rows = stdout
      .trimEnd()
      .split("\n")
      .map((line) => line.split("\t"));
    expect(rows[0]).toEqual([
      "pdf-tools",
      expect.stringMatching(/^\d+\.\d$/),
      expect.stringMatching(/^Extract text and tables from PDF files/),
      join(root, "project/.agents/skills/pdf-tools/SKILL.md"),
    ]);
    expect(rows.every((row) => row.length === 4)).toBe(true);
  });

  it("forgives typos and word forms", async () => {
    expect((await hits(["pdff", "formz"]))[0]?.name).toBe("pdf-tools");
    expect((await hits(["merging", "documents"]))[0]?.name).toBe("pdf-tools");
    expect((await hits(["writing", "commits"]))[0]?.name).toBe("commit-messages");
  });

  it("prints JSON with the matched words, description and location", async () => {
    const [first, ...rest] = await hits(["review a pull request"]);
    expect(first).toMatchObject({
      name: "code-review",
      terms: expect.arrayContaining(["review", "pull", "request"]),
      description: expect.stringContaining("Review a change"),
      location: join(root, "project/.claude/skills/code-review/SKILL.md"),
    });
    expect(first?.score).toBeGreaterThan(rest[0]?.score ?? 0);
  });

  it("shows at most --limit results and refuses a limit outside 1 to 100", async () => {
    expect((await hits(["skills", "tests", "pdf", "git", "review", "--limit", "2"])).length).toBe(2);
    for (const limit of ["0", "101", "two"]) {
      const { code, stderr } = await search(["pdf", "--limit", limit]);
      expect(code).toBe(2);
      expect(stderr).toContain("--limit");
    }
  });

  it("never finds a skill the agent is denied", async () => {
    expect((await hits(["deploy to the staging cluster"]))[0]?.name).toBe("internal-deploy");
    const review = await search(["deploy to the staging cluster", "--agent", "review", "--json"]);
    expect(review.stdout).not.toContain("internal-deploy");
    expect(JSON.parse(review.stdout)).toMatchObject({ agent: "review", searched: 7 });
  });

  it("says so when nothing matches, and exits 1", async () => {
    const none = `No skill matches "zzqxj" (searched 8 skills visible to agent 'build').\n`;
    const { code, stdout } = await search(["zzqxj"], { SKILL_FORCE_TTY: "120" });
    expect(code).toBe(1);
    expect(stdout).toBe(none);
    // In a pipe stdout stays the hits alone: none, and the sentence on stderr.
    const piped = await search(["zzqxj"]);
    expect([piped.code, piped.stdout, piped.stderr]).toEqual([1, "", none]);
    const json = await search(["zzqxj", "--json"]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ query: "zzqxj", hits: [] });
  });

  it("cuts descriptions to the terminal width", async () => {
    const { stdout } = await search(["pdf", "tests", "git"], { SKILL_FORCE_TTY: "50" });
    const lines = stdout.trimEnd().split("\n");
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) expect(width(line), line).toBeLessThanOrEqual(50);
    expect(lines.slice(1, -2).every((line) => line.endsWith("…"))).toBe(true);
  });
});
