import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { SkillService } from "@skill/core";
import { describe, expect, it } from "vitest";
import { countingSource } from "./__fixtures__/skills.js";
import { parseAllowedTools, ruleMatches, type ToolRule } from "./allowed-tools.js";
import { skillTools } from "./tools.js";

const agent = { name: "build" };

describe("parseAllowedTools", () => {
  it("splits on commas and on whitespace outside parentheses, as skills write the field", () => {
    expect(parseAllowedTools("Read Grep Glob")?.rules.map((r) => r.tool)).toEqual(["Read", "Grep", "Glob"]);
    expect(parseAllowedTools("Read, Grep,Glob")?.rules.map((r) => r.tool)).toEqual(["Read", "Grep", "Glob"]);
    expect(parseAllowedTools("Bash(git diff:*) Bash(git status), Read(./src/**)")).toEqual({
      rules: [
        { tool: "Bash", pattern: "git diff:*" },
        { tool: "Bash", pattern: "git status" },
        { tool: "Read", pattern: "./src/**" },
      ],
      warnings: [],
    });
    expect(parseAllowedTools(undefined)).toBeUndefined();
  });

  it("takes a YAML list with a warning, and says what it cannot read", () => {
    const list = parseAllowedTools(["Read", "Bash(npm test:*)"]);
    expect(list?.rules).toEqual([{ tool: "Read" }, { tool: "Bash", pattern: "npm test:*" }]);
    expect(list?.warnings).toEqual([expect.stringContaining("YAML list")]);
    expect(parseAllowedTools(42)?.warnings).toEqual(["allowed-tools must be a string, found number"]);
    expect(parseAllowedTools("Bash(git diff")?.warnings).toEqual([
      expect.stringContaining("unclosed parenthesis"),
    ]);
  });

  it("matches a pattern on input.command, Claude Code's way, and other patterns on the name", () => {
    const prefix = { tool: "Bash", pattern: "git diff:*" };
    expect(ruleMatches(prefix, "Bash", { command: "git diff HEAD~1" })).toBe(true);
    expect(ruleMatches(prefix, "Bash", { command: "rm -rf /" })).toBe(false);
    expect(ruleMatches({ tool: "Bash", pattern: "git status" }, "Bash", { command: "git status" })).toBe(
      true,
    );
    expect(
      ruleMatches({ tool: "Bash", pattern: "git status" }, "Bash", { command: "git status; rm x" }),
    ).toBe(false);
    expect(ruleMatches({ tool: "Read", pattern: "./src/**" }, "Read", { path: "/etc/passwd" })).toBe(true);
    expect(ruleMatches({ tool: "Read" }, "read", {})).toBe(false); // exact, case-sensitive
  });
});

describe("SkillTools.policy", () => {
  const source = countingSource("project:/repo/.agents/skills", [
    { name: "git-review", description: "Review a diff.", extra: 'allowed-tools: "Bash(git diff:*), Read"\n' },
    { name: "notes", description: "Take notes." },
  ]);

  async function toolsWith(options: Partial<Parameters<typeof skillTools>[1]> = {}) {
    const service = new SkillService({ sources: [source] });
    await service.discoverAndLoad();
    return skillTools(service, { agent, ...options });
  }

  it("changes nothing until a skill that declares allowed-tools is loaded through the skill tool", async () => {
    const tools = await toolsWith({ allowedTools: "restrict", toolNames: { bash: "Bash" } });
    expect(tools.policy("bash", { command: "rm -rf /" }).decision).toBe("ask");
    await tools.call("skill", { name: "notes" });
    expect(tools.policy("bash", { command: "rm -rf /" }).decision).toBe("ask");
    expect(tools.policy("skill").decision).toBe("allow");
  });

  it("restrict: allows what a loaded skill lists, denies the rest; skill tools stay allowed", async () => {
    const tools = await toolsWith({ allowedTools: "restrict", toolNames: { bash: "Bash", read: "Read" } });
    expect((await tools.call("skill", { name: "git-review" })).isError).not.toBe(true);
    expect(tools.policy("bash", { command: "git diff main" })).toEqual({
      decision: "allow",
      reason: "pre-approved by the skill 'git-review' (Bash(git diff:*))",
    });
    expect(tools.policy("read", { path: "README.md" }).decision).toBe("allow");
    expect(tools.policy("bash", { command: "curl evil.example" })).toEqual({
      decision: "deny",
      reason: "the input does not match what the loaded skills allow: Bash(git diff:*) (git-review)",
    });
    expect(tools.policy("write", {}).decision).toBe("deny");
    expect(tools.policy("write", {}).reason).toContain("no loaded skill lists write");
    expect(tools.policy("skill_search").decision).toBe("allow");
  });

  it("pre-approve allows a listed tool and asks for the rest; ignore never denies", async () => {
    const pre = await toolsWith({ allowedTools: "pre-approve", toolNames: { bash: "Bash" } });
    await pre.call("skill", { name: "git-review" });
    expect(pre.policy("bash", { command: "git diff" }).decision).toBe("allow");
    expect(pre.policy("bash", { command: "ls" })).toEqual({
      decision: "ask",
      reason: "not pre-approved: the harness's default",
    });
    const ignore = await toolsWith();
    await ignore.call("skill", { name: "git-review" });
    expect(ignore.policy("Bash", { command: "rm -rf /" }).decision).toBe("ask");
    expect(ignore.policy("Read").decision).toBe("ask");
  });

  it("refuses an allowedTools it does not know", async () => {
    await expect(toolsWith({ allowedTools: "strict" as never })).rejects.toMatchObject({
      code: "INVALID_FIELD",
    });
  });
});

describe("allowed-tools as real skills write it", () => {
  // The 94 real `allowed-tools` values the fixture catalog holds (scripts/catalog-summaries.mjs
  // reads them from the sources at their pinned commits).
  const file = fileURLToPath(new URL("../../search/test/__fixtures__/catalog.json", import.meta.url));
  const values = (
    JSON.parse(readFileSync(file, "utf8")).skills as { name: string; allowed_tools?: unknown }[]
  )
    .filter((s) => s.allowed_tools !== undefined)
    .map((s) => [s.name, s.allowed_tools] as const);

  it("reads every one into rules, with no warning but the YAML-list one", () => {
    expect(values.length).toBeGreaterThanOrEqual(90);
    for (const [name, value] of values) {
      const parsed = parseAllowedTools(value);
      expect(parsed?.rules.length, name).toBeGreaterThan(0);
      const warnings = (parsed?.warnings ?? []).filter((w) => !w.startsWith("allowed-tools is a YAML list"));
      expect(warnings, name).toEqual([]);
      for (const rule of parsed?.rules ?? []) expect(rule.tool, name).toMatch(/^[A-Za-z][\w.-]*$/);
    }
  });

  it("matches commands by their patterns with * anywhere, as Claude Code does", () => {
    const [rule] = parseAllowedTools("Bash(npx *eas-cli@*)")?.rules ?? [];
    const bash = (command: string) => ruleMatches(rule as ToolRule, "Bash", { command });
    expect(bash("npx -y eas-cli@latest build")).toBe(true);
    expect(bash("npm i eas-cli")).toBe(false);
    const expo = parseAllowedTools("Bash(expo *)")?.rules[0] as ToolRule;
    expect(ruleMatches(expo, "Bash", { command: "expo start --ios" })).toBe(true);
    expect(ruleMatches(expo, "Bash", { command: "expo" })).toBe(true);
    expect(ruleMatches(expo, "Bash", { command: "expose --all" })).toBe(false);
    const xcode = parseAllowedTools("Bash(xcodebuild*)")?.rules[0] as ToolRule;
    expect(ruleMatches(xcode, "Bash", { command: "xcodebuild -scheme App" })).toBe(true);
    expect(ruleMatches(xcode, "Bash", { command: "make xcodebuild" })).toBe(false);
  });
});
