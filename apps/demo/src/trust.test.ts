// @module-tag slow: every test here runs the built `skill` CLI in a child process.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLI, runNode } from "../test/run-node.js";

let root: string;
let repo: string;
let home: string;

async function skill(dir: string, name: string): Promise<void> {
  await mkdir(join(dir, name), { recursive: true });
  await writeFile(join(dir, name, "SKILL.md"), `---\nname: ${name}\ndescription: About ${name}\n---\nbody\n`);
}

/** A command line that leaves a marker file when (and only when) something starts it. */
function marker(name: string): string {
  return `${process.execPath} -e "require('fs').writeFileSync('${join(root, name)}', 'ran')"`;
}

function skillCli(args: string[], cwd = repo, env: Record<string, string> = {}) {
  return runNode(CLI, ["--home", home, ...args], { cwd, home, env });
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "skill-trust-"));
  repo = join(root, "repo");
  home = join(root, "home");
  await mkdir(join(repo, ".git"), { recursive: true });
  await mkdir(join(repo, "src", "deep"), { recursive: true });
  await mkdir(home, { recursive: true });
  for (const name of ["azure-deploy", "azure-keys", "pdf"])
    await skill(join(repo, ".agents", "skills"), name);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("commands a checkout names", () => {
  it("read-only commands never start a config's MCP servers", async () => {
    await writeFile(join(repo, "opencode.json"), JSON.stringify({ mcp: [marker("PWNED")] }));
    for (const args of [["audit"], ["validate"], ["audit", "pdf"], ["doctor"], ["verify"]]) {
      await skillCli(args);
      expect(existsSync(join(root, "PWNED")), `skill ${args.join(" ")}`).toBe(false);
    }
  }, 60_000);

  it("list, prompt, why and show start a project config's servers only in a trusted folder", async () => {
    await writeFile(join(repo, "opencode.json"), JSON.stringify({ mcp: [marker("PWNED")] }));
    for (const args of [["list"], ["prompt"], ["why", "pdf"], ["show", "pdf"]]) {
      const result = await skillCli(args);
      expect(existsSync(join(root, "PWNED")), `skill ${args.join(" ")}`).toBe(false);
      expect(result.stderr).toContain("not starting 1 MCP server named in");
      expect(result.stderr).toContain(`skill trust ${repo}`);
    }
    await skillCli(["--trust", "list"]);
    expect(existsSync(join(root, "PWNED"))).toBe(true);
    await rm(join(root, "PWNED"));

    const trusted = await skillCli(["trust"], join(repo, "src"));
    expect(trusted.code).toBe(0);
    const file = join(home, ".config", "skill", "trusted.json");
    expect(JSON.parse(await readFile(file, "utf8")).folders).toEqual([repo]);
    expect((await stat(file)).mode & 0o777).toBe(0o600); // the owner's alone
    const again = await skillCli(["list"], join(repo, "src"));
    expect(again.stderr).not.toContain("not starting");
    expect(existsSync(join(root, "PWNED"))).toBe(true);
  }, 60_000);

  it("trust says what it changed: a folder that does not exist is refused, one not trusted has nothing to remove", async () => {
    const file = join(home, ".config", "skill", "trusted.json");
    const missing = await skillCli(["trust", join(root, "nope")]);
    expect([missing.code, missing.stderr]).toEqual([
      1,
      `skill: No such folder: ${join(root, "nope")}; nothing was trusted\n`,
    ]);
    expect(existsSync(file)).toBe(false);
    const notTrusted = await skillCli(["trust", "--remove"]);
    expect([notTrusted.code, notTrusted.stdout]).toEqual([
      0,
      `Not trusted, so nothing was removed: ${repo}\n`,
    ]);
    expect(existsSync(file)).toBe(false);
    await skillCli(["trust"]);
    expect((await skillCli(["trust"])).stdout).toBe(`Already trusted: ${repo} (${file}).\n`);
    const below = await skillCli(["trust", "--remove", "src"], repo);
    expect(below.stdout).toBe(
      `${join(repo, "src")} is trusted through ${repo}; \`skill trust --remove ${repo}\` ends that\n`,
    );
    expect((await skillCli(["trust", "--remove"])).stdout).toBe(`No longer trusted: ${repo}\n`);
    expect(JSON.parse(await readFile(file, "utf8")).folders).toEqual([]);
  });

  it("a user-level config's servers are trusted; serve-mcp starts none a config names", async () => {
    await mkdir(join(home, ".config", "skill"), { recursive: true });
    await writeFile(join(home, ".config", "skill", "config.json"), JSON.stringify({ mcp: [marker("USER")] }));
    await skillCli(["list"]);
    expect(existsSync(join(root, "USER"))).toBe(true);
    await rm(join(root, "USER"));
    // stdin at end of file: the server starts, finds no client and ends.
    const serve = spawnSync(process.execPath, [CLI, "--home", home, "serve-mcp"], {
      cwd: repo,
      env: { PATH: process.env.PATH ?? "", HOME: home },
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 20_000,
    });
    expect(serve.status).toBe(0);
    expect(existsSync(join(root, "USER"))).toBe(false);
  }, 60_000);

  it("a CLI started as another's MCP server starts no MCP server at all", async () => {
    const result = await skillCli(["--mcp", marker("NESTED"), "list"], repo, { SKILL_MCP_DEPTH: "1" });
    expect(existsSync(join(root, "NESTED"))).toBe(false);
    expect(result.stderr).toContain("SKILL_MCP_DEPTH");
  }, 60_000);

  it("a config naming skill serve-mcp does not start a chain of servers", async () => {
    const self = `${process.execPath} ${CLI} --home ${home} serve-mcp`;
    await writeFile(join(repo, "skill.config.json"), JSON.stringify({ mcp: [self] }));
    const result = await skillCli(["--trust", "list", "--json"]);
    expect(result.code).toBe(0);
    // The one server started serves the same skills; it started no server of its own.
    const names = (JSON.parse(result.stdout) as { skills: { name: string }[] }).skills.map((s) => s.name);
    expect(names).toContain("pdf");
  }, 60_000);
});

describe("the config is found like the skills", () => {
  it("keeps the root config's deny rules in a subfolder, and names the files used", async () => {
    await writeFile(
      join(repo, "opencode.json"),
      JSON.stringify({ permission: { skill: { "*": "allow", "azure-*": "deny" } } }),
    );
    // A subfolder's config adds rules; its allow does not undo the root's deny.
    await writeFile(
      join(repo, "src", "skill.config.json"),
      JSON.stringify({ permission: { skill: { "*": "allow" } } }),
    );
    const json = await skillCli(["list", "--json"], join(repo, "src", "deep"));
    const names = (JSON.parse(json.stdout) as { skills: { name: string }[] }).skills.map((s) => s.name);
    const list = await skillCli(["list", "--verbose"], join(repo, "src", "deep"));
    expect(names).toEqual(["pdf"]);
    // In a pipe the notes of --verbose go to stderr, the skills to stdout.
    expect(list.stderr).toContain(
      `config: ${join(repo, "opencode.json")}, ${join(repo, "src", "skill.config.json")}`,
    );
    const show = await skillCli(["show", "azure-keys"], join(repo, "src"));
    expect(show.code).not.toBe(0);
    expect(show.stdout).not.toContain("About azure-keys");
    const why = await skillCli(["why", "azure-keys"], join(repo, "src"));
    expect(why.stdout).toContain(join(repo, "opencode.json"));
  }, 60_000);

  it("says under --verbose when no config was found", async () => {
    const result = await skillCli(["list", "--verbose"], join(repo, "src"));
    expect(result.stderr).toContain("config: none found");
  }, 30_000);

  it("refuses a config nested 500,000 levels deep with an error naming the file", async () => {
    const deep = `${'{"a":'.repeat(500_000)}1${"}".repeat(500_000)}`;
    await writeFile(join(repo, "skill.config.json"), deep);
    const result = await skillCli(["list"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(join(repo, "skill.config.json"));
    expect(result.stderr).not.toContain("Maximum call stack");
  }, 30_000);
});

describe("terminal escapes from a checkout", () => {
  it("list --verbose prints hidden and shadowed names and locations escaped", async () => {
    const evil = "azure-\u001b]0;owned\u0007x";
    for (const dir of [join(repo, ".agents", "skills"), join(repo, ".claude", "skills")]) {
      await mkdir(join(dir, "evil"), { recursive: true });
      await writeFile(
        join(dir, "evil", "SKILL.md"),
        `---\nname: "${evil.replace("\u001b", "\\e").replace("\u0007", "\\a")}"\ndescription: d\n---\n`,
      );
    }
    await writeFile(
      join(repo, "opencode.json"),
      JSON.stringify({ permission: { skill: { "azure-*": "deny" } } }),
    );
    const result = await skillCli(["list", "--verbose"]);
    expect(result.stderr).toContain("hidden");
    expect(result.stderr).toContain("\\u001b]0;owned\\u0007x");
    const printed = result.stdout + result.stderr;
    expect([printed.includes("\u001b"), printed.includes("\u0007")]).toEqual([false, false]);
  }, 30_000);
});

describe("terminal escapes from a checkout, served", () => {
  it("serve-mcp --verbose prints failed paths and messages escaped", async () => {
    const folder = join(repo, ".agents", "skills", "bad\u001b]0;owned\u0007");
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, "SKILL.md"), "---\nname: bad\n---\nno description\n");
    const serve = spawnSync(process.execPath, [CLI, "--home", home, "serve-mcp", "--verbose"], {
      cwd: repo,
      env: { PATH: process.env.PATH ?? "", HOME: home },
      stdio: ["ignore", "pipe", "pipe"],
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(serve.stderr).toContain("failed");
    expect(serve.stderr).toContain("\\u001b]0;owned\\u0007");
    expect([serve.stderr.includes("\u001b"), serve.stderr.includes("\u0007")]).toEqual([false, false]);
  }, 30_000);
});

describe("what a newcomer is told", () => {
  it("says which variable keeps the .claude and .agents folders out", async () => {
    const quiet = await skillCli(["list"]);
    expect(quiet.stderr).not.toContain("OPENCODE_DISABLE");
    const result = await skillCli(["list"], repo, { OPENCODE_DISABLE_EXTERNAL_SKILLS: "1" });
    expect(result.stderr).toContain(
      "OPENCODE_DISABLE_EXTERNAL_SKILLS=1 is set, so the .claude and .agents skill folders are not read",
    );
    expect(result.stdout).not.toContain("pdf");
    // The Claude Code flags drop the .claude folders only (opencode 1.18.33): .agents stays.
    const claude = await skillCli(["list"], repo, { OPENCODE_DISABLE_CLAUDE_CODE: "1" });
    expect(claude.stderr).toContain(
      "OPENCODE_DISABLE_CLAUDE_CODE=1 is set, so the .claude skill folders are not read",
    );
    expect(claude.stdout).toContain("pdf");
  }, 30_000);

  it("warns about a misspelt config key on every run, not only under --verbose", async () => {
    await writeFile(
      join(repo, "opencode.json"),
      JSON.stringify({ permision: { skill: { "azure-*": "deny" } }, model: "x" }),
    );
    const result = await skillCli(["list"]);
    expect(result.stderr).toContain("unknown key 'permision' is ignored; did you mean 'permission'?");
    expect(result.stderr).not.toContain("'model'");
    // --verbose adds the keys opencode reads and this CLI does not, without warning twice of the misspelt one.
    const verbose = await skillCli(["list", "--verbose"]);
    expect(verbose.stderr.match(/permision/g)).toHaveLength(1);
    expect(verbose.stderr).toContain("ignored key not used here: model\n");
  }, 30_000);
});

describe("skill init", () => {
  it("creates a skill that validates strictly, in the project's .agents/skills, and never overwrites", async () => {
    const made = await skillCli(
      ["init", "release-notes", "--description", "Write release notes: from merged PRs"],
      join(repo, "src"),
    );
    expect(made.code).toBe(0);
    const file = join(repo, ".agents", "skills", "release-notes", "SKILL.md");
    expect(await readFile(file, "utf8")).toMatch(
      /^---\nname: release-notes\ndescription: "Write release notes: from merged PRs"\n---\n/,
    );
    const check = await skillCli(["validate", "--strict", join(repo, ".agents", "skills", "release-notes")]);
    expect(check.code).toBe(0);
    const again = await skillCli(["init", "release-notes"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already exists");
    const bad = await skillCli(["init", "Bad_Name"]);
    expect(bad.code).toBe(2);
    // No file is named (none was made), and the spelling that keeps the rules is offered.
    expect(bad.stderr).toBe(
      "skill: Field 'name' may hold only lowercase letters a-z, digits and hyphens, found \"Bad_Name\"; try `skill init bad-name`\n",
    );
  }, 30_000);
  it("writes through core's writer: a checkout whose .agents links elsewhere does not redirect it", async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), "skill-init-elsewhere-"));
    const project = await mkdtemp(join(tmpdir(), "skill-init-project-"));
    try {
      await mkdir(join(project, ".git"));
      await symlink(elsewhere, join(project, ".agents"));
      const made = await skillCli(["init", "notes"], project);
      expect(made.code).toBe(1);
      expect(made.stderr).toContain(`Unsafe path: ${join(project, ".agents")} is a link to`);
      expect(await readdir(elsewhere)).toEqual([]);
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
      await rm(project, { recursive: true, force: true });
    }
  }, 30_000);
});
