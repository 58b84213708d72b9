// @module-tag slow: every test here runs the built `skill` CLI in a child process.
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { agentsWorld, DOCTOR_AGENTS, EXPECTED_CELLS, removeTempDirs } from "@skill/test-utils";
import { afterEach, describe, expect, it } from "vitest";

const cli = fileURLToPath(new URL("../../../dist/cli.js", import.meta.url));

afterEach(removeTempDirs);

function doctor(args: readonly string[], home: string, columns?: number) {
  return spawnSync(process.execPath, [cli, "doctor", ...args], {
    encoding: "utf8",
    env: {
      PATH: process.env.PATH,
      HOME: home,
      NO_COLOR: "1",
      ...(columns ? { COLUMNS: String(columns) } : {}),
    },
    timeout: 60_000,
  });
}

interface Cell {
  loaded: boolean;
  name?: string;
  reason?: string;
}

describe("--preset", () => {
  it("applies the agent's load rules: codex names a nameless skill after its folder and loads a long description, copilot skips it", async () => {
    const world = await agentsWorld();
    const list = (preset: string) => {
      const result = spawnSync(
        process.execPath,
        [cli, "list", "--json", "--preset", preset, "--cwd", world.cwd, "--home", world.home],
        {
          encoding: "utf8",
          env: { PATH: process.env.PATH, HOME: world.home, NO_COLOR: "1" },
          timeout: 60_000,
        },
      );
      expect(result.stderr).toBe("");
      return (JSON.parse(result.stdout) as { skills: { name: string }[] }).skills.map((s) => s.name);
    };
    const codex = list("codex");
    expect(codex).toContain("anon");
    // Codex 0.171 loads a description over 1,024 characters; Copilot CLI 1.0.102 does not.
    expect(codex).toContain("verbose");
    expect(list("copilot")).not.toContain("verbose");
    const agents = list("agents");
    expect(agents).not.toContain("anon");
    expect(agents).toContain("verbose");
    expect(list("claude-code")).toEqual(["h-claude", "p-claude", "unnamed"]);
  });
});

describe("skill doctor", () => {
  it("names a checkout's link to / that the presets do not follow and the agents would", async () => {
    const world = await agentsWorld();
    const link = join(world.cwd, ".agents", "skills", "everything");
    await symlink("/", link);
    const result = doctor(
      ["--cwd", world.cwd, "--home", world.home, "--agents", "agents,codex,claude-code"],
      world.home,
      200,
    );
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(
      ".agents/skills/everything: a link to /, the home folder or above its root, not followed (agents, codex; the agents follow it)",
    );
    const json = doctor(
      ["--json", "--cwd", world.cwd, "--home", world.home, "--agents", "agents"],
      world.home,
    );
    expect(JSON.parse(json.stdout).deliberate).toEqual([
      { agent: "agents", path: link, reason: "link-to-ancestor" },
    ]);
  });

  it("says per skill and agent where the model sees a user-only skill anyway, and where Copilot makes it unreachable", async () => {
    const world = await agentsWorld();
    const skills = join(world.project, ".agents", "skills");
    const write = async (name: string, extra: string, openai?: string) => {
      await mkdir(join(skills, name, "agents"), { recursive: true });
      await writeFile(join(skills, name, "SKILL.md"), `---\nname: ${name}\ndescription: d\n${extra}---\n`);
      if (openai) await writeFile(join(skills, name, "agents", "openai.yaml"), openai);
    };
    await write("by-claude", "disable-model-invocation: true\n");
    await write("by-codex", "", "policy:\n  allow_implicit_invocation: false\n");
    await write(
      "by-both",
      "disable-model-invocation: true\n",
      "policy:\n  allow_implicit_invocation: false\n",
    );
    const args = ["--cwd", world.cwd, "--home", world.home, "--agents", "codex,claude-code,copilot"];
    const text = doctor(args, world.home, 400).stdout;
    // Claude Code reads .claude/skills only: it loads none of these, and says nothing of them.
    const lines = text
      .split("\n")
      .filter((l) => l.includes('"by-'))
      .map((l) => l.replace(`${world.project}/`, ""));
    const unreachable = (name: string) =>
      `copilot: Copilot CLI lists "${name}" but refuses it to everyone, the user included, for disable-model-invocation: true (github/copilot-cli#4438): the skill is unreachable there (.agents/skills/${name}/SKILL.md)`;
    expect(lines).toEqual([
      unreachable("by-both"),
      'codex: Codex 0.171 does not read disable-model-invocation: true: its model sees "by-claude" and may invoke it on its own (it reads policy.allow_implicit_invocation: false in agents/openai.yaml) (.agents/skills/by-claude/SKILL.md)',
      unreachable("by-claude"),
      'copilot: Copilot CLI does not read policy.allow_implicit_invocation: false in agents/openai.yaml: its model sees "by-codex" and may invoke it on its own (Copilot CLI has no way to keep a skill from its model) (.agents/skills/by-codex/SKILL.md)',
    ]);
    const json = JSON.parse(doctor(["--json", ...args], world.home).stdout) as {
      skills: { name: string; userOnly?: string[]; cells: Record<string, { userOnly?: string }> }[];
    };
    const row = json.skills.find((s) => s.name === "by-codex");
    expect(row?.userOnly).toEqual(["openai.yaml"]);
    expect(row?.cells.codex?.userOnly).toBe("honoured");
    expect(row?.cells.copilot?.userOnly).toBe("ignored");
  });

  it("--json gives every (skill, agent) cell's reason on a tree laid out for every agent", async () => {
    const world = await agentsWorld();
    const result = doctor(["--json", "--cwd", world.cwd, "--home", world.home], world.home);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const report = JSON.parse(result.stdout) as {
      agents: string[];
      skills: { name: string; location: string; cells: Record<string, Cell> }[];
    };
    expect(report.agents).toEqual(DOCTOR_AGENTS);
    // Rows from this machine's own admin folder (/etc/codex/skills), if any, are not ours.
    const ours = report.skills.filter((s) => s.location.startsWith(`${world.base}/`));
    const got = Object.fromEntries(
      ours.map((s) => [
        s.location.slice(world.base.length + 1),
        {
          name: s.name,
          cells: DOCTOR_AGENTS.map((agent) => {
            const cell = s.cells[agent];
            if (!cell) return "missing";
            return cell.loaded ? (cell.name === s.name ? "ok" : `=${cell.name}`) : (cell.reason as string);
          }),
        },
      ]),
    );
    expect(got).toEqual(EXPECTED_CELLS);
  });

  it("prints a matrix that fits the terminal, and one summary line per agent", async () => {
    const world = await agentsWorld();
    // A skill whose folder and name hold terminal escapes: shown escaped, never raw.
    const evil = join(world.project, ".agents", "skills", "evil\u001b[2J");
    await mkdir(evil, { recursive: true });
    await writeFile(join(evil, "SKILL.md"), '---\nname: "evil\\e[31mred"\ndescription: x\n---\n');
    // Claude Code keys a skill by its folder and shows the name beside it.
    const named = join(world.project, ".claude", "skills", "folder-x");
    await mkdir(named, { recursive: true });
    await writeFile(join(named, "SKILL.md"), "---\nname: named-y\ndescription: x\n---\n");
    const result = doctor(
      ["--cwd", world.cwd, "--home", world.home, "--agents", "claude-code,codex,gemini"],
      world.home,
      100,
    );
    expect(result.stderr).toBe("");
    const lines = result.stdout.trimEnd().split("\n");
    for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(100);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: checks that none are printed
    expect(result.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(lines[0]).toMatch(/^SKILL\s+LOCATION\s+claude-code\s+codex\s+gemini$/);
    const row = lines.find((l) => l.startsWith("anon "));
    expect(row?.split(/\s{2,}/).slice(2)).toEqual(["not-scanned", "✓", "name-missing"]);
    const keyed = lines.find((l) => l.startsWith("folder-x "));
    expect(keyed?.split(/\s{2,}/).slice(2)).toEqual(["folder-x (named-y)", "not-scanned", "not-scanned"]);
    // One summary line per agent, then the config files in force.
    expect(lines.at(-1)).toMatch(/^config: none found/);
    expect(lines.slice(-4, -1).map((l) => l.split(/\s{2,}/)[0])).toEqual(["claude-code", "codex", "gemini"]);
    expect(lines.at(-3)).toContain("8 skills loaded");
    expect(lines.at(-3)).toContain("1 too-deep, 1 dot-folder");
  });

  it("counts the copies an agent keeps one of at random as its cells name them, not as shadowed", async () => {
    const examples = fileURLToPath(new URL("../../../../../examples/", import.meta.url));
    const user = await mkdtemp(join(tmpdir(), "skill-doctor-home-"));
    try {
      const args = [
        "--cwd",
        join(examples, "project"),
        "--home",
        join(examples, "home"),
        "--agents",
        "opencode",
      ];
      const result = doctor(args, user, 200);
      const lines = result.stdout.trimEnd().split("\n");
      // The copies it may pass over (a loaded one reads "✓ nondeterministic").
      const cells = lines.filter((l) => /\s{2}nondeterministic$/.test(l)).length;
      expect(cells).toBe(2);
      expect(lines.find((l) => /^opencode\s+\d+ skills loaded/.test(l))).toMatch(
        /^opencode\s+\d+ skills loaded, 2 nondeterministic$/,
      );
    } finally {
      await rm(user, { recursive: true, force: true });
    }
  });

  it("agrees with validate --target codex on a long description with runs of spaces: both load it (Codex 0.171 does)", async () => {
    const world = await agentsWorld();
    const skills = join(world.project, ".agents", "skills");
    const words = (count: number, gap: string) => Array.from({ length: count }, () => "ab").join(gap);
    // Codex counts each run of whitespace as one space: 999 and 1,025 characters.
    const descriptions = { spaced: `${words(333, "  ")}c`, over: `${words(341, "  ")}  cd` };
    for (const [name, description] of Object.entries(descriptions)) {
      await mkdir(join(skills, name), { recursive: true });
      await writeFile(
        join(skills, name, "SKILL.md"),
        `---\nname: ${name}\ndescription: ${description}\n---\n`,
      );
    }
    const result = doctor(
      ["--json", "--cwd", world.cwd, "--home", world.home, "--agents", "codex"],
      world.home,
    );
    expect(result.stderr).toBe("");
    const report = JSON.parse(result.stdout) as {
      skills: { location: string; cells: Record<string, Cell> }[];
    };
    const validate = spawnSync(
      process.execPath,
      [cli, "validate", "--json", "--target", "codex", join(skills, "spaced"), join(skills, "over")],
      { encoding: "utf8", env: { PATH: process.env.PATH, HOME: world.home, NO_COLOR: "1" }, timeout: 60_000 },
    );
    const checked = JSON.parse(validate.stdout) as {
      files: { path: string; diagnostics: { code: string; severity: string }[] }[];
    };
    const verdicts = Object.keys(descriptions).map((name) => {
      const path = join(skills, name, "SKILL.md");
      const cell = report.skills.find((s) => s.location === path)?.cells.codex;
      const long = checked.files
        .find((f) => f.path === path)
        ?.diagnostics.find((d) => d.code === "description-too-long");
      const verdict = long === undefined ? "loads" : long.severity === "error" ? "too-long" : "loads, warned";
      return [name, cell?.loaded ? "loads" : cell?.reason, verdict];
    });
    expect(verdicts).toEqual([
      ["spaced", "loads", "loads"],
      ["over", "loads", "loads, warned"],
    ]);
  });

  it("says in words what a preset's one winner cannot show: Codex lists every copy of a name", async () => {
    const world = await agentsWorld();
    for (const dir of [
      join(world.project, ".agents", "skills", "pdf"),
      join(world.home, ".agents", "skills", "pdf"),
    ]) {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, "SKILL.md"), "---\nname: pdf\ndescription: fill forms\n---\n");
    }
    const result = doctor(
      ["--cwd", world.project, "--home", world.home, "--agents", "codex,claude-code"],
      world.home,
      200,
    );
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain(
      "codex lists both copies of 'pdf' (~/.agents/skills/pdf/SKILL.md, .agents/skills/pdf/SKILL.md): the model sees two 'pdf' skills",
    );
    expect(result.stdout).not.toMatch(/claude-code (lists|keeps)/);
  });

  it("beyond 40 skills: each agent's summary first, then a row per way the agents treat a skill; --all every skill", async () => {
    const world = await agentsWorld();
    const tree = join(world.project, ".agents", "skills");
    for (let i = 0; i < 45; i++) {
      const name = `same-${String(i).padStart(2, "0")}`;
      await mkdir(join(tree, name), { recursive: true });
      await writeFile(join(tree, name, "SKILL.md"), `---\nname: ${name}\ndescription: d\n---\n`);
    }
    const only = join(world.project, ".codex", "skills", "codex-only");
    await mkdir(only, { recursive: true });
    await writeFile(join(only, "SKILL.md"), "---\nname: codex-only\ndescription: d\n---\n");
    // Both read .agents/skills; only Codex reads .codex/skills.
    const args = ["--cwd", world.project, "--home", world.home, "--agents", "codex,gemini"];
    const brief = doctor(args, world.home, 120);
    expect(brief.stderr).toBe("");
    const lines = brief.stdout.split("\n");
    // The summaries come before any table row.
    const firstSummary = lines.findIndex((l) => /^codex\s+\S/.test(l));
    const header = lines.findIndex((l) => l.startsWith("SKILL"));
    expect(firstSummary).toBeGreaterThanOrEqual(0);
    expect(header).toBeGreaterThan(firstSummary);
    // The 45 skills both agents load share one row with the world's others loaded alike, counted.
    expect(lines.filter((l) => /^same-\d\d/.test(l))).toEqual([]);
    const alike = /^\S+ \+(\d+)\s.*✓\s+✓$/m.exec(brief.stdout);
    expect(Number(alike?.[1])).toBeGreaterThanOrEqual(45);
    expect(brief.stdout).toMatch(/^codex-only( \+\d+)?\s.*✓\s+not-scanned$/m);
    expect(lines.length).toBeLessThan(30);
    expect(brief.stdout).toMatch(
      /skills in \d+ rows, one per way the agents treat them \(\+N: that many more alike\); --all lists every skill/,
    );
    const all = doctor([...args, "--all"], world.home, 120);
    expect(all.stdout).toMatch(/^same-07\s/m);
    expect(all.stdout).toMatch(/^codex-only\s/m);
  });

  it("refuses an unknown agent with a usage error", async () => {
    const world = await agentsWorld();
    const result = doctor(["--cwd", world.cwd, "--agents", "codex,vscode"], world.home);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('Unknown agent "vscode"');
  });
});
