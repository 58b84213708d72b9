import { execFileSync } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SkillService } from "@skill/core";
import { memoryLogger, removeTempDirs, tempWorld, writeSkill } from "@skill/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { corpora, sharedCorpusMissing } from "../../../fixtures/corpus.mjs";
import type { DiscoveryOptions } from "./discovery-options.js";
import { isClaudeCodeDisabled, isExternalDisabled } from "./env-flags.js";
import { discoveryRoots } from "./roots.js";
import { agentProfile, discoverySources } from "./sources.js";

afterEach(removeTempDirs);

async function load(options: DiscoveryOptions) {
  const logger = memoryLogger();
  const service = new SkillService({ sources: discoverySources({ env: {}, logger, ...options }), logger });
  const report = await service.discoverAndLoad();
  return { service, report, logger };
}

const names = (service: SkillService) => service.all().map((s) => s.name);

describe("the reference agent's discovery cases (opencode preset)", () => {
  it("finds skills in project .opencode/skill and .opencode/skills", async () => {
    const { home, project } = await tempWorld();
    await writeSkill(join(project, ".opencode", "skill", "test-skill"));
    await writeSkill(join(project, ".opencode", "skills", "other-skill"));
    const { service, report } = await load({ cwd: project, home, preset: "opencode" });
    expect(names(service)).toEqual(["other-skill", "test-skill"]);
    expect(service.get("test-skill")?.location).toBe(
      join(project, ".opencode", "skill", "test-skill", "SKILL.md"),
    );
    expect(service.get("test-skill")?.description).toBe("The test-skill skill.");
    expect(service.get("test-skill")?.source).toBe(`project:${join(project, ".opencode")}`);
    expect(report.failed).toEqual([]);
  });

  it("returns the skill's folder from dirs()", async () => {
    const { home, project } = await tempWorld();
    await writeSkill(join(project, ".opencode", "skill", "dir-skill"));
    const { service } = await load({ cwd: project, home, preset: "opencode" });
    expect(service.dirs()).toEqual([join(project, ".opencode", "skill", "dir-skill")]);
  });

  it("finds several skills in one folder", async () => {
    const { home, project } = await tempWorld();
    await writeSkill(join(project, ".opencode", "skill", "skill-one"));
    await writeSkill(join(project, ".opencode", "skill", "skill-two"));
    const { service } = await load({ cwd: project, home, preset: "opencode" });
    expect(names(service)).toEqual(["skill-one", "skill-two"]);
  });

  it("yields no skill, and no crash, for a SKILL.md without frontmatter", async () => {
    const { home, project } = await tempWorld();
    const file = await writeSkill(
      join(project, ".opencode", "skill", "no-frontmatter"),
      undefined,
      "# No Frontmatter\n\nJust some content without YAML frontmatter.\n",
    );
    const { service, report } = await load({ cwd: project, home, preset: "opencode" });
    expect(service.all()).toEqual([]);
    expect(report.failed.map((f) => [f.path, f.error.code])).toEqual([[file, "PARSE_ERROR"]]);
  });

  it("finds project .claude/skills and .agents/skills, alone and together", async () => {
    const { home, project } = await tempWorld();
    await writeSkill(join(project, ".claude", "skills", "claude-skill"));
    let { service } = await load({ cwd: project, home, preset: "opencode" });
    expect(service.get("claude-skill")?.location).toBe(
      join(project, ".claude", "skills", "claude-skill", "SKILL.md"),
    );
    await writeSkill(join(project, ".agents", "skills", "agent-skill"));
    ({ service } = await load({ cwd: project, home, preset: "opencode" }));
    expect(names(service)).toEqual(["agent-skill", "claude-skill"]);
    expect(service.get("agent-skill")?.location).toBe(
      join(project, ".agents", "skills", "agent-skill", "SKILL.md"),
    );
  });

  it("finds global ~/.claude/skills and ~/.agents/skills", async () => {
    const { home, project } = await tempWorld();
    await writeSkill(join(home, ".claude", "skills", "global-test-skill"));
    await writeSkill(join(home, ".agents", "skills", "global-agent-skill"));
    const { service } = await load({ cwd: project, home, preset: "opencode" });
    expect(names(service)).toEqual(["global-agent-skill", "global-test-skill"]);
    expect(service.get("global-test-skill")?.source).toBe("global:.claude");
    expect(service.get("global-agent-skill")?.source).toBe("global:.agents");
  });

  it("returns nothing when no skills exist", async () => {
    const { home, project } = await tempWorld();
    const { service, report, logger } = await load({ cwd: project, home, preset: "opencode" });
    expect(service.all()).toEqual([]);
    expect(report).toEqual({ loaded: 0, failed: [], shadowed: [], diagnostics: [] });
    expect(logger.warnings).toEqual([]);
  });

  it("counts four folders in dirs() when two of four skills share a name", async () => {
    const { home, project } = await tempWorld();
    await writeSkill(join(project, ".opencode", "skill", "agent-skill"), "opencode-skill");
    await writeSkill(join(project, ".opencode", "skills", "agent-skill"), "opencode-skill");
    await writeSkill(join(project, ".claude", "skills", "claude-skill"));
    await writeSkill(join(project, ".agents", "skills", "agent-skill"));
    const { service, report } = await load({ cwd: project, home, preset: "opencode" });
    expect(service.dirs()).toHaveLength(4);
    expect(names(service)).toEqual(["agent-skill", "claude-skill", "opencode-skill"]);
    expect(report.shadowed).toEqual([
      {
        name: "opencode-skill",
        kept: join(project, ".opencode", "skills", "agent-skill", "SKILL.md"),
        dropped: join(project, ".opencode", "skill", "agent-skill", "SKILL.md"),
      },
    ]);
  });
});

describe("default preset", () => {
  it("lists roots lowest precedence first: global, then each project level down to cwd, then paths", async () => {
    const { home, project } = await tempWorld();
    const cwd = join(project, "packages", "app");
    await mkdir(cwd, { recursive: true });
    const roots = discoveryRoots({ cwd, home, env: {}, paths: ["extra"] });
    expect(roots).toEqual([
      { id: "global:.claude", dirs: [join(home, ".claude", "skills")] },
      { id: "global:.agents", dirs: [join(home, ".agents", "skills")] },
      { id: "global:.config/agents", dirs: [join(home, ".config", "agents", "skills")] },
      ...[project, join(project, "packages"), cwd].flatMap((level) => [
        { id: `project:${join(level, ".claude")}`, dirs: [join(level, ".claude", "skills")] },
        { id: `project:${join(level, ".agents")}`, dirs: [join(level, ".agents", "skills")] },
      ]),
      { id: `config:${join(cwd, "extra")}`, dirs: [join(cwd, "extra")], configured: "extra" },
    ]);
    expect(discoverySources({ cwd, home, env: {} }).map((s) => s.id)).toEqual(
      roots.slice(0, -1).map((r) => r.id),
    );
  });

  it("lets the project win over global, and the nearest project level over farther ones", async () => {
    const { home, project } = await tempWorld();
    const cwd = join(project, "packages", "app");
    await writeSkill(join(home, ".claude", "skills", "review"));
    await writeSkill(join(home, ".agents", "skills", "lint"));
    await writeSkill(join(project, ".claude", "skills", "review"));
    await writeSkill(join(project, ".agents", "skills", "lint"));
    await writeSkill(join(cwd, ".claude", "skills", "lint"));
    await writeSkill(join(project, "packages", ".agents", "skills", "deploy"));
    await writeSkill(join(cwd, ".claude", "skills", "deploy"));
    const { service, report, logger } = await load({ cwd, home });
    expect(service.get("review")?.location).toBe(join(project, ".claude", "skills", "review", "SKILL.md"));
    expect(service.get("lint")?.location).toBe(join(cwd, ".claude", "skills", "lint", "SKILL.md"));
    expect(service.get("deploy")?.location).toBe(join(cwd, ".claude", "skills", "deploy", "SKILL.md"));
    expect(report.shadowed).toHaveLength(4);
    expect(logger.warnings.every((w) => w.message.startsWith("Duplicate skill name:"))).toBe(true);
  });

  it("lets .agents win over .claude at the same level", async () => {
    const { home, project } = await tempWorld();
    await writeSkill(join(project, ".claude", "skills", "pdf"));
    await writeSkill(join(project, ".agents", "skills", "pdf"));
    const { service } = await load({ cwd: project, home });
    expect(service.get("pdf")?.location).toBe(join(project, ".agents", "skills", "pdf", "SKILL.md"));
  });

  it("finds skills nested inside a skill folder", async () => {
    const { home, project } = await tempWorld();
    await writeSkill(join(project, ".claude", "skills", "outer"));
    await writeSkill(join(project, ".claude", "skills", "outer", "parts", "inner"));
    const { service } = await load({ cwd: project, home });
    expect(names(service)).toEqual(["inner", "outer"]);
  });

  it("stops the project walk at the git worktree root, a .git file included", async () => {
    const { base, home } = await tempWorld();
    const repo = join(base, "worktree");
    const cwd = join(repo, "src");
    await mkdir(cwd, { recursive: true });
    await writeFile(join(repo, ".git"), "gitdir: /elsewhere/.git/worktrees/w\n");
    await writeSkill(join(base, ".claude", "skills", "above-the-repo"));
    await writeSkill(join(repo, ".claude", "skills", "repo-root"));
    const { service } = await load({ cwd, home });
    expect(names(service)).toEqual(["repo-root"]);
    expect(
      discoveryRoots({ cwd, home, env: {} })
        .filter((r) => r.id.startsWith("project:"))
        .map((r) => r.id),
    ).toEqual([
      `project:${join(repo, ".claude")}`,
      `project:${join(repo, ".agents")}`,
      `project:${join(cwd, ".claude")}`,
      `project:${join(cwd, ".agents")}`,
    ]);
  });

  it("outside a git repository searches cwd alone, and still finds its skills", async () => {
    const { base, home } = await tempWorld();
    const cwd = join(base, "loose", "dir");
    await writeSkill(join(base, "loose", ".claude", "skills", "parent-skill"));
    await writeSkill(join(cwd, ".agents", "skills", "here"));
    const { service } = await load({ cwd, home });
    expect(names(service)).toEqual(["here"]);
  });

  it("takes an explicit stopAt, and warns about one that is not above cwd", async () => {
    const { base, home, project } = await tempWorld();
    const cwd = join(project, "a", "b");
    const ids = (options: Partial<DiscoveryOptions>) =>
      discoveryRoots({ cwd, home, env: {}, ...options })
        .filter((r) => r.id.endsWith(".agents") && r.id.startsWith("project:"))
        .map((r) => r.id);
    expect(ids({ stopAt: join(project, "a") })).toEqual([
      `project:${join(project, "a", ".agents")}`,
      `project:${join(cwd, ".agents")}`,
    ]);
    const logger = memoryLogger();
    expect(ids({ stopAt: join(base, "elsewhere"), logger })).toEqual([`project:${join(cwd, ".agents")}`]);
    expect(logger.warnings.map((w) => w.message)).toEqual([
      `stopAt ${join(base, "elsewhere")} is not ${cwd} or one of its parents; only ${cwd} is searched for project skills`,
    ]);
  });

  it("resolves configured paths (relative to cwd, ~/ to home), ranks them highest, and only warns when one is missing", async () => {
    const { base, home, project } = await tempWorld();
    await writeSkill(join(project, "tools", "skills", "tool"));
    await writeSkill(join(home, "shared", "pdf"));
    await writeSkill(join(base, "abs", "abs-skill"));
    await writeSkill(join(project, ".agents", "skills", "pdf"));
    const { service, report, logger } = await load({
      cwd: project,
      home,
      paths: ["tools/skills", "~/shared", join(base, "abs"), "missing"],
    });
    expect(names(service)).toEqual(["abs-skill", "pdf", "tool"]);
    expect(service.get("pdf")?.location).toBe(join(home, "shared", "pdf", "SKILL.md"));
    expect(service.get("pdf")?.source).toBe(`config:${join(home, "shared")}`);
    expect(report.failed).toEqual([]);
    expect(logger.warnings.map((w) => w.message)).toEqual([
      `Skill path not found: ${join(project, "missing")} (configured as "missing")`,
      expect.stringMatching(/^Duplicate skill name: pdf/),
    ]);
  });

  it("never hangs on a FIFO named SKILL.md: scanned past with a warning, never loaded", {
    tags: ["slow"],
  }, async () => {
    const { home, project } = await tempWorld();
    await writeSkill(join(project, ".claude", "skills", "good"));
    await mkdir(join(project, ".claude", "skills", "pipe"), { recursive: true });
    execFileSync("mkfifo", [join(project, ".claude", "skills", "pipe", "SKILL.md")]);
    const { service, report, logger } = await load({ cwd: project, home });
    expect(names(service)).toEqual(["good"]);
    expect(report.failed).toEqual([]);
    expect(logger.warnings.map((w) => w.message)).toEqual([
      `Skipping ${join(project, ".claude", "skills", "pipe", "SKILL.md")}: expected a SKILL.md file, found a FIFO`,
    ]);
  });

  it("reports each source's folders and sorted files", async () => {
    const { home, project } = await tempWorld();
    await writeSkill(join(project, ".claude", "skills", "b"));
    await writeSkill(join(project, ".claude", "skills", "a"));
    const source = discoverySources({ cwd: project, home, env: {} }).find(
      (s) => s.id === `project:${join(project, ".claude")}`,
    );
    expect(await source?.scan({})).toEqual({
      entries: [
        { location: join(project, ".claude", "skills", "a", "SKILL.md") },
        { location: join(project, ".claude", "skills", "b", "SKILL.md") },
      ],
      dirs: [join(project, ".claude", "skills")],
      diagnostics: [],
    });
    const missing = discoverySources({ cwd: project, home, env: {} }).find((s) => s.id === "global:.agents");
    expect(await missing?.scan({})).toEqual({
      entries: [],
      dirs: [join(home, ".agents", "skills")],
      diagnostics: [],
    });
  });
});

describe("OPENCODE_DISABLE_EXTERNAL_SKILLS and the two Claude Code flags", () => {
  const claudeFlags = ["OPENCODE_DISABLE_CLAUDE_CODE_SKILLS", "OPENCODE_DISABLE_CLAUDE_CODE"];
  const flags = ["OPENCODE_DISABLE_EXTERNAL_SKILLS", ...claudeFlags];

  it("reads 1 and true in any case as set, anything else as unset", () => {
    for (const flag of flags) {
      for (const value of ["1", "true", "TRUE", "True"]) {
        expect(isClaudeCodeDisabled({ [flag]: value }), flag).toBe(true);
        expect(isExternalDisabled({ [flag]: value }), flag).toBe(flag === "OPENCODE_DISABLE_EXTERNAL_SKILLS");
      }
      for (const value of ["0", "false", "", "yes", " 1", undefined]) {
        expect(isClaudeCodeDisabled({ [flag]: value })).toBe(false);
        expect(isExternalDisabled({ [flag]: value })).toBe(false);
      }
    }
    expect(isExternalDisabled({})).toBe(false);
    expect(isClaudeCodeDisabled({})).toBe(false);
  });

  it("OPENCODE_DISABLE_EXTERNAL_SKILLS drops every .claude and .agents root; the Claude Code flags drop the .claude roots only (opencode 1.18.33); configured paths stay", async () => {
    const { home, project } = await tempWorld();
    await writeSkill(join(home, ".claude", "skills", "g-claude"));
    await writeSkill(join(home, ".agents", "skills", "g-agents"));
    await writeSkill(join(home, ".config", "agents", "skills", "g-shared"));
    await writeSkill(join(project, ".claude", "skills", "p-claude"));
    await writeSkill(join(project, ".agents", "skills", "p-agents"));
    await writeSkill(join(project, "configured", "c-path"));
    await writeSkill(join(project, ".opencode", "skill", "o-skill"));
    const all = ["c-path", "g-agents", "g-claude", "g-shared", "p-agents", "p-claude"];
    for (const flag of flags) {
      const external = flag === "OPENCODE_DISABLE_EXTERNAL_SKILLS";
      for (const value of ["1", "true", "TRUE"]) {
        const { service } = await load({ cwd: project, home, paths: ["configured"], env: { [flag]: value } });
        expect(names(service), `${flag}=${value}`).toEqual(
          external ? ["c-path"] : ["c-path", "g-agents", "g-shared", "p-agents"],
        );
        const opencode = await load({ cwd: project, home, preset: "opencode", env: { [flag]: value } });
        expect(names(opencode.service), `${flag}=${value} (opencode)`).toEqual(
          external ? ["o-skill"] : ["g-agents", "o-skill", "p-agents"],
        );
      }
      for (const value of ["0", "false", ""]) {
        const { service } = await load({ cwd: project, home, paths: ["configured"], env: { [flag]: value } });
        expect(names(service), `${flag}=${value}`).toEqual(all);
      }
    }
  });

  it("reads process.env when no env is given", () => {
    const saved = process.env.OPENCODE_DISABLE_CLAUDE_CODE;
    process.env.OPENCODE_DISABLE_CLAUDE_CODE = "1";
    try {
      expect(isClaudeCodeDisabled()).toBe(true);
      expect(discoveryRoots({ cwd: "/x/y", home: "/h", stopAt: "/x/y" }).map((r) => r.id)).toEqual([
        "global:.agents",
        "global:.config/agents",
        "project:/x/y/.agents",
      ]);
    } finally {
      if (saved === undefined) delete process.env.OPENCODE_DISABLE_CLAUDE_CODE;
      else process.env.OPENCODE_DISABLE_CLAUDE_CODE = saved;
    }
  });
});

describe("agent presets", () => {
  const dirsOf = (options: DiscoveryOptions) =>
    discoveryRoots(options).map((r) => [r.id, ...r.dirs.map((d) => d.replace(options.cwd, "<cwd>"))]);

  it("opencode adds ~/.config/opencode, project .opencode, ~/.opencode and $OPENCODE_CONFIG_DIR", () => {
    const base = { cwd: "/p", home: "/h", stopAt: "/p", preset: "opencode" } as const;
    expect(dirsOf({ ...base, env: {} })).toEqual([
      ["global:.claude", "/h/.claude/skills"],
      ["global:.config/opencode", "/h/.config/opencode/skill", "/h/.config/opencode/skills"],
      ["global:.agents", "/h/.agents/skills"],
      ["project:/p/.claude", "<cwd>/.claude/skills"],
      ["project:/p/.agents", "<cwd>/.agents/skills"],
      ["project:/p/.opencode", "<cwd>/.opencode/skill", "<cwd>/.opencode/skills"],
      ["global:.opencode", "/h/.opencode/skill", "/h/.opencode/skills"],
    ]);
    expect(
      dirsOf({
        ...base,
        env: {
          XDG_CONFIG_HOME: "/xdg",
          OPENCODE_CONFIG_DIR: "~/oc",
          OPENCODE_DISABLE_PROJECT_CONFIG: "true",
        },
      }).map((r) => r[0]),
    ).toEqual([
      "global:.claude",
      "global:/xdg/opencode",
      "global:.agents",
      "project:/p/.claude",
      "project:/p/.agents",
      "global:.opencode",
      "global:oc",
    ]);
  });

  it("claude-code reads .claude/skills only, and lets personal skills win over the project's", async () => {
    const { home, project } = await tempWorld();
    expect(dirsOf({ cwd: project, home, env: {}, preset: "claude-code" })).toEqual([
      [`project:${join(project, ".claude")}`, "<cwd>/.claude/skills"],
      ["global:.claude", join(home, ".claude", "skills")],
    ]);
    expect(
      dirsOf({ cwd: project, home, env: { CLAUDE_CONFIG_DIR: "/cc" }, preset: "claude-code" }).map(
        (r) => r[0],
      ),
    ).toEqual([`project:${join(project, ".claude")}`, "global:/cc"]);
    await writeSkill(join(home, ".claude", "skills", "review"));
    await writeSkill(join(project, ".claude", "skills", "review"));
    await writeSkill(join(project, ".agents", "skills", "ignored-by-claude"));
    const { service } = await load({ cwd: project, home, preset: "claude-code" });
    expect(names(service)).toEqual(["review"]);
    expect(service.get("review")?.location).toBe(join(home, ".claude", "skills", "review", "SKILL.md"));
  });

  it("codex reads <systemDir>/codex/skills, $CODEX_HOME/skills (and its .system), ~/.agents/skills, <root>/.codex/skills and project .agents/skills", async () => {
    const { home, project } = await tempWorld();
    expect(dirsOf({ cwd: project, home, env: {}, preset: "codex" })).toEqual([
      ["admin:/etc/codex", "/etc/codex/skills"],
      ["system:codex", join(home, ".codex", "skills", ".system")],
      ["global:.codex", join(home, ".codex", "skills")],
      ["global:.agents", join(home, ".agents", "skills")],
      [`project:${join(project, ".codex")}`, "<cwd>/.codex/skills"],
      [`project:${join(project, ".agents")}`, "<cwd>/.agents/skills"],
    ]);
    expect(dirsOf({ cwd: project, home, env: {}, preset: "codex", systemDir: "/opt/sys" })[0]).toEqual([
      "admin:/opt/sys/codex",
      "/opt/sys/codex/skills",
    ]);
    expect(
      dirsOf({ cwd: project, home, env: { CODEX_HOME: "/ch" }, preset: "codex" }).map((r) => r[0]),
    ).toContain("global:/ch");
    await writeSkill(join(home, ".codex", "skills", ".system", "skill-creator"));
    await writeSkill(join(project, ".agents", "skills", "repo-skill"));
    await writeSkill(join(project, ".claude", "skills", "not-for-codex"));
    const { service } = await load({
      cwd: project,
      home,
      preset: "codex",
      env: { OPENCODE_DISABLE_CLAUDE_CODE: "1" },
    });
    expect(names(service)).toEqual(["repo-skill", "skill-creator"]);
  });

  it("agents reads ~/.agents/skills, ~/.config/agents/skills and project .agents/skills", () => {
    expect(dirsOf({ cwd: "/p", home: "/h", stopAt: "/p", env: {}, preset: "agents" })).toEqual([
      ["global:.agents", "/h/.agents/skills"],
      ["global:.config/agents", "/h/.config/agents/skills"],
      ["project:/p/.agents", "<cwd>/.agents/skills"],
    ]);
  });

  it("refuses an unknown preset with a SkillError naming the presets", () => {
    expect(() => discoveryRoots({ cwd: "/p", preset: "vscode" as "agents" })).toThrow(
      expect.objectContaining({
        code: "INVALID_FIELD",
        message: expect.stringMatching(/^Unknown discovery preset "vscode" \(expected one of: default, /),
      }),
    );
  });
});

describe("options from plain JavaScript or JSON", () => {
  it("refuses a missing or empty cwd, and a home that is no path, naming the option", () => {
    const refused = (options: unknown, field: string, found: string) =>
      expect(() => discoverySources(options as { cwd: string })).toThrow(
        expect.objectContaining({
          code: "INVALID_FIELD",
          field,
          message: `Invalid discovery option ${field}: expected the path of a folder, found ${found}`,
        }),
      );
    refused({}, "cwd", "undefined");
    refused({ cwd: "" }, "cwd", "an empty string");
    refused({ cwd: "/p", home: 42 }, "home", "a number");
  });
});

describe("the real-skill corpus through SkillService", () => {
  it.each(corpora)("loads every SKILL.md of $label from a configured path", async ({ dir, expected }) => {
    const { home, project } = await tempWorld();
    const { service, report } = await load({ cwd: project, home, paths: [join(dir, "real")] });
    expect(report.failed).toEqual([]);
    expect(service.dirs()).toHaveLength(expected.summary.skills);
    expect(names(service)).toEqual([...new Set(expected.skills.map((s) => String(s.name).trim()))].sort());
    // A name found more than once: the last path in sorted order wins, the others are shadowed.
    const shadowed = expected.duplicates.flatMap((d) => d.paths.slice(1).map(() => d.name));
    expect(report.shadowed.map((s) => s.name)).toEqual(shadowed);
    for (const d of expected.duplicates) {
      expect(service.get(d.name)?.location).toBe(join(dir, [...d.paths].sort().at(-1) as string));
    }
    expect(expected.duplicates.length).toBeGreaterThan(0);
  });

  if (sharedCorpusMissing) it.skip(sharedCorpusMissing, () => {});
});

describe("what a source's scan passed over (SourceScan.skipped)", () => {
  it("lists each skipped path with its reason, sorted, under the preset's rules", async () => {
    const { base, home, project } = await tempWorld();
    const skills = join(project, ".agents", "skills");
    await writeSkill(join(skills, "seen"));
    await writeSkill(join(skills, "a", "b", "c", "d", "e", "f", "too-deep"));
    await writeSkill(join(skills, ".curated", "hidden"));
    await writeSkill(join(skills, "node_modules", "pkg"));
    const target = await writeSkill(join(base, "elsewhere", "linked"));
    await mkdir(join(skills, "linked"), { recursive: true });
    await symlink(target, join(skills, "linked", "SKILL.md"));
    await symlink(join(base, "gone"), join(skills, "dangling"));
    const { sources } = agentProfile({
      cwd: project,
      home,
      env: {},
      preset: "codex",
      systemDir: join(base, "etc"),
    });
    const source = sources.find((s) => s.id === `project:${join(project, ".agents")}`);
    const scan = await source?.scan({});
    // Codex 0.171 enters node_modules.
    expect(scan?.entries).toEqual([
      { location: join(skills, "node_modules", "pkg", "SKILL.md") },
      { location: join(skills, "seen", "SKILL.md") },
    ]);
    expect(scan?.skipped).toEqual([
      { path: join(skills, ".curated"), reason: "dot-folder" },
      { path: join(skills, "a", "b", "c", "d", "e", "f", "too-deep"), reason: "too-deep" },
      { path: join(skills, "dangling"), reason: "dangling-symlink" },
      { path: join(skills, "linked", "SKILL.md"), reason: "symlinked-file" },
    ]);
    // A scan that passed nothing over has no `skipped`.
    const plain = discoverySources({ cwd: project, home, env: {} }).find((s) => s.id === "global:.agents");
    expect(await plain?.scan({})).not.toHaveProperty("skipped");
  });
});
