// Each preset rule here was measured by running the real agent offline on a tree of edge
// cases (scripts/agents-real/run.mjs); the trees below are small copies of those cases.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SkillService } from "@skill/core";
import { removeTempDirs, tempDir, tempWorld, writeSkill } from "@skill/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { compareAgents } from "./compare.js";
import type { DiscoveryOptions } from "./discovery-options.js";
import { agentProfile } from "./sources.js";

afterEach(removeTempDirs);

/** What the preset loads, as `name → path relative to base`, for files under `base` only. */
async function loaded(base: string, options: DiscoveryOptions): Promise<Record<string, string>> {
  const { sources, rules } = agentProfile({ env: {}, systemDir: join(base, "no-etc"), ...options });
  const service = new SkillService({ sources, ...rules });
  await service.discoverAndLoad();
  const out: Record<string, string> = {};
  for (const skill of service.all()) {
    if (skill.location.startsWith(`${base}/`)) out[skill.name] = skill.location.slice(base.length + 1);
  }
  return out;
}

describe("presets as the real agents load them", () => {
  it("gemini (0.61.0) reads .gemini/skills and .agents/skills of the cwd only, not of the folders above", async () => {
    const { base, home, project } = await tempWorld();
    const cwd = join(project, "sub");
    await writeSkill(join(project, ".gemini", "skills", "top-gemini"));
    await writeSkill(join(project, ".agents", "skills", "top-agents"));
    await writeSkill(join(cwd, ".gemini", "skills", "here-gemini"));
    await writeSkill(join(cwd, ".agents", "skills", "here-agents"));
    await writeSkill(join(home, ".agents", "skills", "home-agents"));
    expect(await loaded(base, { cwd, home, preset: "gemini" })).toEqual({
      "here-gemini": "project/sub/.gemini/skills/here-gemini/SKILL.md",
      "here-agents": "project/sub/.agents/skills/here-agents/SKILL.md",
      "home-agents": "home/.agents/skills/home-agents/SKILL.md",
    });
  });

  it("codex (0.171.0) reads .codex/skills at every level from the git root down to the cwd", async () => {
    const { base, home, project } = await tempWorld();
    const cwd = join(project, "sub", "deep");
    await writeSkill(join(project, ".codex", "skills", "top-codex"));
    await writeSkill(join(project, "sub", ".codex", "skills", "sub-codex"));
    await writeSkill(join(cwd, ".codex", "skills", "deep-codex"));
    await writeSkill(join(base, ".codex", "skills", "above-codex"));
    expect(await loaded(base, { cwd, home, preset: "codex" })).toEqual({
      "top-codex": "project/.codex/skills/top-codex/SKILL.md",
      "sub-codex": "project/sub/.codex/skills/sub-codex/SKILL.md",
      "deep-codex": "project/sub/deep/.codex/skills/deep-codex/SKILL.md",
    });
  });

  it("copilot (1.0.102) skips ~/.claude/skills and dot-folders, and keeps the first match: .github at the git root before .agents at the cwd, project before personal, ~/.copilot before ~/.agents", async () => {
    const { base, home, project } = await tempWorld();
    const cwd = join(project, "sub");
    await writeSkill(join(home, ".claude", "skills", "home-claude"));
    await writeSkill(join(home, ".copilot", "skills", "dup"), "dup-skill");
    await writeSkill(join(home, ".copilot", "skills", "personal"), "personal");
    await writeSkill(join(home, ".agents", "skills", "personal"), "personal");
    await writeSkill(join(project, ".github", "skills", "dup"), "dup-skill");
    await writeSkill(join(cwd, ".agents", "skills", "dup"), "dup-skill");
    await writeSkill(join(cwd, ".claude", "skills", "dup"), "dup-skill");
    await writeSkill(join(project, ".claude", "skills", ".hidden", "dotted"));
    await writeSkill(join(project, ".agents", "skills", ".dotted-folder"), "dotted-folder");
    await writeSkill(join(project, ".agents", "skills", "a", "b", "c", "d", "e", "f", "depth7"));
    expect(await loaded(base, { cwd, home, preset: "copilot" })).toEqual({
      "dup-skill": "project/.github/skills/dup/SKILL.md",
      personal: "home/.copilot/skills/personal/SKILL.md",
      depth7: "project/.agents/skills/a/b/c/d/e/f/depth7/SKILL.md",
    });
  });

  it("pi (0.73.1) reads .pi/skills of the cwd only and keeps the first match: .pi, then .agents from the cwd upwards, then ~/.pi/agent, then ~/.agents", async () => {
    const { base, home, project } = await tempWorld();
    const cwd = join(project, "sub");
    await writeSkill(join(project, ".pi", "skills", "top-pi"));
    await writeSkill(join(cwd, ".pi", "skills", "dup"), "dup-skill");
    await writeSkill(join(cwd, ".agents", "skills", "dup"), "dup-skill");
    await writeSkill(join(cwd, ".agents", "skills", "near"), "near");
    await writeSkill(join(project, ".agents", "skills", "near"), "near");
    await writeSkill(join(project, ".agents", "skills", "over-home"), "over-home");
    await writeSkill(join(home, ".pi", "agent", "skills", "over-home"), "over-home");
    await writeSkill(join(home, ".pi", "agent", "skills", "user"), "user");
    await writeSkill(join(home, ".agents", "skills", "user"), "user");
    await writeSkill(join(home, ".agents", "skills", ".hidden", "dotted"));
    expect(await loaded(base, { cwd, home, preset: "pi" })).toEqual({
      "dup-skill": "project/sub/.pi/skills/dup/SKILL.md",
      near: "project/sub/.agents/skills/near/SKILL.md",
      "over-home": "project/.agents/skills/over-home/SKILL.md",
      user: "home/.pi/agent/skills/user/SKILL.md",
    });
  });

  it("amp (0.0.1790142911) reads ~/.agents/skills, walks past the git root, stops at depth 5, and keeps the first match: ~/.config/agents before ~/.agents, ~/.config/amp and the project", async () => {
    const { base, home, project } = await tempWorld();
    const cwd = join(project, "sub");
    await mkdir(cwd, { recursive: true });
    await writeSkill(join(base, ".agents", "skills", "above-agents"));
    await writeSkill(join(base, ".claude", "skills", "above-claude"));
    await writeSkill(join(home, ".agents", "skills", "home-agents"));
    await writeSkill(join(home, ".config", "agents", "skills", "dup"), "dup-skill");
    await writeSkill(join(home, ".agents", "skills", "dup"), "dup-skill");
    await writeSkill(join(home, ".config", "amp", "skills", "dup"), "dup-skill");
    await writeSkill(join(project, ".agents", "skills", "dup"), "dup-skill");
    await writeSkill(join(cwd, ".claude", "skills", "dup"), "dup-skill");
    await writeSkill(join(project, ".agents", "skills", "a", "b", "c", "d", "depth5"));
    await writeSkill(join(project, ".agents", "skills", "a", "b", "c", "d", "e", "depth6"));
    await writeSkill(join(project, ".agents", "skills", ".hidden", "dotted"));
    expect(await loaded(base, { cwd, home, preset: "amp" })).toEqual({
      "above-agents": ".agents/skills/above-agents/SKILL.md",
      "above-claude": ".claude/skills/above-claude/SKILL.md",
      "home-agents": "home/.agents/skills/home-agents/SKILL.md",
      "dup-skill": "home/.config/agents/skills/dup/SKILL.md",
      depth5: "project/.agents/skills/a/b/c/d/depth5/SKILL.md",
      dotted: "project/.agents/skills/.hidden/dotted/SKILL.md",
    });
  });

  it("amp (0.0.1790142911) keeps a project .claude copy over the ~/.claude one, and ~/.agents over the project's", async () => {
    // `amp skill list --json` in the project: `pair-claude-home-repo` listed from
    // proj/.claude/skills (not ~/.claude/skills), `pair-agents-home-repo` from ~/.agents/skills.
    const { base, home, project } = await tempWorld();
    await writeSkill(join(home, ".claude", "skills", "claude-pair"), "claude-pair");
    await writeSkill(join(project, ".claude", "skills", "claude-pair"), "claude-pair");
    await writeSkill(join(home, ".agents", "skills", "agents-pair"), "agents-pair");
    await writeSkill(join(project, ".agents", "skills", "agents-pair"), "agents-pair");
    await writeSkill(join(home, ".claude", "skills", "home-only"), "home-only");
    expect(await loaded(base, { cwd: project, home, preset: "amp" })).toEqual({
      "claude-pair": "project/.claude/skills/claude-pair/SKILL.md",
      "agents-pair": "home/.agents/skills/agents-pair/SKILL.md",
      "home-only": "home/.claude/skills/home-only/SKILL.md",
    });
  });

  it("outside a git repository, opencode (1.18.33), Claude Code (2.1.332), Copilot (1.0.102) and pi (0.73.1) read the folders above the cwd; Codex (0.171.0) does not", async () => {
    const base = await tempDir();
    const home = join(base, "home");
    const cwd = join(base, "plain");
    await mkdir(cwd, { recursive: true });
    await writeSkill(join(base, ".agents", "skills", "above-agents"));
    await writeSkill(join(base, ".claude", "skills", "above-claude"));
    await writeSkill(join(cwd, ".agents", "skills", "here-agents"));
    const above = { "above-agents": ".agents/skills/above-agents/SKILL.md" };
    const aboveClaude = { "above-claude": ".claude/skills/above-claude/SKILL.md" };
    const here = { "here-agents": "plain/.agents/skills/here-agents/SKILL.md" };
    expect(await loaded(base, { cwd, home, preset: "opencode" })).toEqual({
      ...above,
      ...aboveClaude,
      ...here,
    });
    expect(await loaded(base, { cwd, home, preset: "claude-code" })).toEqual(aboveClaude);
    expect(await loaded(base, { cwd, home, preset: "copilot" })).toEqual({
      ...above,
      ...aboveClaude,
      ...here,
    });
    expect(await loaded(base, { cwd, home, preset: "pi" })).toEqual({ ...above, ...here });
    expect(await loaded(base, { cwd, home, preset: "codex" })).toEqual(here);
    // An explicit stopAt still bounds the walk.
    expect(await loaded(base, { cwd, home, preset: "copilot", stopAt: cwd })).toEqual(here);
  });
});

// The last mile: cases of scripts/agents-real/run.mjs's tree (`<label>-long-name-xxx…`,
// `-colon-description`, `-unclosed-quote`) that the real agents read otherwise than the
// specification; each comment quotes what the agent printed for it.
describe("the agents' own readings of a SKILL.md", () => {
  const long = `long-name-${"x".repeat(60)}`; // 70 characters
  const fm = (body: string) => `---\n${body}\n---\nBody.\n`;

  async function world(files: Record<string, string>) {
    const { base, home, project } = await tempWorld();
    for (const [name, text] of Object.entries(files))
      await writeSkill(join(project, ".agents", "skills", name), undefined, text);
    return { base, cwd: project, home };
  }

  it("codex (0.171.0) skips a name over 64 characters", async () => {
    // `codex app-server` skills/list: no entry for the 70-character name (its log: "invalid
    // name: exceeds maximum length of 64 characters"); a plain name beside it is listed.
    const { base, cwd, home } = await world({
      [long]: fm(`name: ${long}\ndescription: too long a name`),
      plain: fm("name: plain\ndescription: fine"),
    });
    expect(await loaded(base, { cwd, home, preset: "codex" })).toEqual({
      plain: "project/.agents/skills/plain/SKILL.md",
    });
  });

  it("codex (0.171.0) loads a plain description holding ': ', quoting that line alone; other broken YAML refuses", async () => {
    // `codex app-server` skills/list: `agents-colon-description` listed with its description
    // `tag-sNN Use when: a colon follows a word (agents)`; `agents-broken-yaml`
    // (`description: tag broken: yaml: here` then `  - [unclosed`) not listed ("invalid YAML").
    // Its loader quotes a `key: value` line whose value holds `: ` and parses once more.
    const { base, cwd, home } = await world({
      colon: fm("name: colon\ndescription: Use when: a colon follows a word"),
      broken: fm("name: broken\ndescription: broken: yaml: here\n  - [unclosed"),
    });
    expect(await loaded(base, { cwd, home, preset: "codex" })).toEqual({
      colon: "project/.agents/skills/colon/SKILL.md",
    });
    const { sources, rules } = agentProfile({
      env: {},
      systemDir: join(base, "no-etc"),
      cwd,
      home,
      preset: "codex",
    });
    const service = new SkillService({ sources, ...rules });
    await service.discoverAndLoad();
    expect(service.get("colon")?.description).toBe("Use when: a colon follows a word");
    // The default preset (lenient) folds the indented line into the value and loads both.
    expect(Object.keys(await loaded(base, { cwd, home })).sort()).toEqual(["broken", "colon"]);
  });

  it("codex (0.171.0) keeps a skill whose agents/openai.yaml says allow_implicit_invocation: false from its model, and no other user-only spelling", async () => {
    // `codex debug prompt-input` (the model's prompt, offline) lists under <skills_instructions>
    // `- dmi: tag dmi desc (file: r1/dmi/SKILL.md)`, `- oc: …`, `- plain: …` and `- polstr: …`,
    // and no `pol` line; `codex app-server` skills/list lists all five, each `"enabled": true`.
    const { base, cwd, home } = await world({
      dmi: fm("name: dmi\ndescription: tag dmi desc\ndisable-model-invocation: true"),
      oc: fm("name: oc\ndescription: tag oc desc\nmetadata:\n  opencode/autoinvoke: false"),
      plain: fm("name: plain\ndescription: tag plain desc"),
      pol: fm("name: pol\ndescription: tag pol desc"),
      polstr: fm("name: polstr\ndescription: tag polstr desc"),
    });
    const skills = join(cwd, ".agents", "skills");
    await mkdir(join(skills, "pol", "agents"));
    await writeFile(
      join(skills, "pol", "agents", "openai.yaml"),
      "policy:\n  allow_implicit_invocation: false\n",
    );
    await mkdir(join(skills, "polstr", "agents"));
    await writeFile(
      join(skills, "polstr", "agents", "openai.yaml"),
      'policy:\n  allow_implicit_invocation: "false"\n',
    );
    const { sources, rules } = agentProfile({
      env: {},
      systemDir: join(base, "no-etc"),
      cwd,
      home,
      preset: "codex",
    });
    const service = new SkillService({ sources, ...rules });
    await service.discoverAndLoad();
    const ours = (s: { location: string }) => s.location.startsWith(`${base}/`);
    expect(
      service
        .all()
        .filter(ours)
        .map((s) => s.name)
        .sort(),
    ).toEqual(["dmi", "oc", "plain", "pol", "polstr"]);
    // What the model is shown: the preset's modelInvocable, with the spellings Codex does not read
    // told apart by `userOnlyVerdict` (`skill doctor` says so per skill).
    const invocable = Object.fromEntries(
      service
        .all()
        .filter(ours)
        .map((s) => [s.name, s.modelInvocable]),
    );
    expect(invocable).toEqual({ dmi: false, oc: false, plain: true, pol: false, polstr: true });
    const report = await compareAgents({
      env: {},
      systemDir: join(base, "no-etc"),
      cwd,
      home,
      agents: ["codex"],
    });
    const seen = report.skills
      .filter((row) => row.location.startsWith(`${base}/`))
      .map((row) => [row.name, row.cells.codex?.loaded === true && row.cells.codex.userOnly !== "honoured"]);
    expect(Object.fromEntries(seen)).toEqual({ dmi: true, oc: true, plain: true, pol: false, polstr: true });
  });

  it("amp (0.0.1790142911) refuses a name over 64 characters", async () => {
    // `amp skill list --json`: no entry for it ("Invalid skill name" in its log); a plain name loads.
    const { base, cwd, home } = await world({
      [long]: fm(`name: ${long}\ndescription: too long a name`),
      plain: fm("name: plain\ndescription: fine"),
    });
    expect(await loaded(base, { cwd, home, preset: "amp" })).toEqual({
      plain: "project/.agents/skills/plain/SKILL.md",
    });
  });

  it("copilot (1.0.102) loads a name of ASCII letters, digits, '-', '_', '.', ':' and spaces, and refuses the rest", async () => {
    // `copilot skill list --json` listed `Upper_Name`, `UPPER`, `dot.name`, `colon:x`,
    // `double--hyphen`, `trail-`, `12digits`; it refused `-lead`, `Bad!`, `a@b` and `ünïcode`:
    // "Skill name must start with an ASCII letter or number and contain only ASCII letters
    // (a-z, A-Z), numbers, hyphens, underscores, dots, colons, and spaces".
    const names = ["Upper_Name", "UPPER", "dot.name", "colon:x", "double--hyphen", "trail-", "12digits"];
    const refused = ["-lead", "Bad!", "a@b", "ünïcode"];
    const files: Record<string, string> = {};
    for (const [i, name] of [...names, ...refused].entries())
      files[`s${i}`] = fm(`name: "${name}"\ndescription: probe`);
    const { base, cwd, home } = await world(files);
    expect(Object.keys(await loaded(base, { cwd, home, preset: "copilot" })).sort()).toEqual(
      [...names].sort(),
    );
  });

  it("amp (0.0.1790142911) loads a lower-case skill.md in every root; the others do not", async () => {
    // `amp skill list --json` listed `agents-lower-case-file`, `claude-lower-case-file` and
    // `home-agents-lower-case-file` (each folder holding only `skill.md`) from project
    // .agents/.claude and ~/.agents; the six other agents listed none of them.
    const { base, home, project } = await tempWorld();
    for (const [root, name] of [
      [join(project, ".agents", "skills"), "lower"],
      [join(project, ".claude", "skills"), "lower-claude"],
      [join(home, ".agents", "skills"), "lower-home"],
    ] as const) {
      await mkdir(join(root, name, "scripts"), { recursive: true });
      await writeFile(join(root, name, "skill.md"), fm(`name: ${name}\ndescription: lower-case file`));
      await writeFile(join(root, name, "scripts", "run.sh"), "echo hi\n");
    }
    // A folder with both names is one skill: SKILL.md's.
    await writeSkill(
      join(project, ".agents", "skills", "both"),
      undefined,
      fm("name: both\ndescription: upper"),
    );
    await writeFile(
      join(project, ".agents", "skills", "both", "skill.md"),
      fm("name: both-lower\ndescription: lower"),
    );
    const options = { cwd: project, home, env: {}, systemDir: join(base, "no-etc") };
    expect(await loaded(base, { ...options, preset: "amp" })).toEqual({
      both: "project/.agents/skills/both/SKILL.md",
      lower: "project/.agents/skills/lower/skill.md",
      "lower-claude": "project/.claude/skills/lower-claude/skill.md",
      "lower-home": "home/.agents/skills/lower-home/skill.md",
    });
    for (const preset of ["codex", "claude-code", "opencode", "copilot", "gemini", "pi"] as const)
      expect(Object.keys(await loaded(base, { ...options, preset }))).not.toContain("lower");
    // Its own file is the skill's text, not one of its files.
    const { sources, rules } = agentProfile({ ...options, preset: "amp" });
    const service = new SkillService({ sources, ...rules });
    await service.discoverAndLoad();
    expect(await service.files("lower")).toEqual(["scripts/run.sh"]);
    expect(new TextDecoder().decode(await service.readFile("lower", "skill.md"))).toContain("name: lower");
    // `skill doctor` says why the others pass it over.
    const report = await compareAgents({ ...options, agents: ["amp", "codex"] });
    const row = report.skills.find((r) => r.location.endsWith("/lower/skill.md"));
    expect(row?.cells.amp).toMatchObject({ loaded: true, name: "lower" });
    expect(row?.cells.codex).toEqual({
      loaded: false,
      reason: "not-scanned",
      detail: "file-name: skill.md (it reads SKILL.md)",
    });
  });

  it("pi (0.73.1) loads a flat .md file directly in its own roots, not in .agents/skills; the others never", async () => {
    // `pi --mode rpc` get_commands listed `skill:pi-flat-file` and `skill:home-pi-flat-file`
    // (files `.pi/skills/pi-flat-file.md`, `~/.pi/agent/skills/home-pi-flat-file.md`), and not
    // `agents-flat-file` (`.agents/skills/agents-flat-file.md`); no other agent listed any.
    const { base, home, project } = await tempWorld();
    const flat = async (dir: string, file: string, text: string) => {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, file), text);
    };
    await flat(join(project, ".pi", "skills"), "pi-flat.md", fm("name: pi-flat\ndescription: flat"));
    await flat(join(project, ".pi", "skills"), "stem-only.md", fm("description: no name, the stem is"));
    await flat(join(project, ".pi", "skills"), "notes.md", "# Notes\n\nNo frontmatter.\n");
    await flat(
      join(home, ".pi", "agent", "skills"),
      "home-flat.md",
      fm("name: home-flat\ndescription: flat"),
    );
    await flat(
      join(project, ".agents", "skills"),
      "agents-flat.md",
      fm("name: agents-flat\ndescription: flat"),
    );
    await writeSkill(
      join(project, ".pi", "skills", "folder"),
      undefined,
      fm("name: folder\ndescription: a folder"),
    );
    const options = { cwd: project, home, env: {}, systemDir: join(base, "no-etc") };
    expect(await loaded(base, { ...options, preset: "pi" })).toEqual({
      "pi-flat": "project/.pi/skills/pi-flat.md",
      "stem-only": "project/.pi/skills/stem-only.md",
      "home-flat": "home/.pi/agent/skills/home-flat.md",
      folder: "project/.pi/skills/folder/SKILL.md",
    });
    for (const preset of ["codex", "claude-code", "opencode", "copilot", "gemini", "amp"] as const)
      expect(
        Object.keys(await loaded(base, { ...options, preset })).filter((n) => n.includes("flat")),
      ).toEqual([]);
    // A flat skill is its file alone: it bundles nothing, and its folder's other files are not its own.
    const { sources, rules } = agentProfile({ ...options, preset: "pi" });
    const service = new SkillService({ sources, ...rules });
    await service.discoverAndLoad();
    expect(await service.files("pi-flat")).toEqual([]);
    await expect(service.readFile("pi-flat", "notes.md")).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(new TextDecoder().decode(await service.readFile("pi-flat", "pi-flat.md"))).toContain(
      "name: pi-flat",
    );
    const report = await compareAgents({ ...options, agents: ["pi", "codex"] });
    const row = report.skills.find((r) => r.location.endsWith("/.pi/skills/pi-flat.md"));
    expect(row?.cells.pi).toMatchObject({ loaded: true, name: "pi-flat" });
    expect(row?.cells.codex).toMatchObject({ loaded: false, reason: "not-scanned" });
  });

  it("gemini (0.61.0) loads an unclosed double-quoted description, reading it line by line", async () => {
    // `gemini skills list --all`: `unclosed-quote` listed, its description beginning with the
    // quote as written (its YAML parser refuses the file; it falls back to reading lines).
    const { base, cwd, home } = await world({
      "unclosed-quote": fm('name: unclosed-quote\ndescription: "an unclosed quoted scalar'),
    });
    const { sources, rules } = agentProfile({
      env: {},
      systemDir: join(base, "no-etc"),
      cwd,
      home,
      preset: "gemini",
    });
    const service = new SkillService({ sources, ...rules });
    await service.discoverAndLoad();
    expect(service.get("unclosed-quote")?.description).toBe('"an unclosed quoted scalar');
    expect(await loaded(base, { cwd, home, preset: "codex" })).toEqual({});
  });
});
