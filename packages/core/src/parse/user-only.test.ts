import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { validateSkillFile } from "./parse-skill.js";
import { userOnlyNote, userOnlySpellings, userOnlyVerdict } from "./user-only.js";

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** A skill folder with `extra` frontmatter lines and, when given, an `agents/openai.yaml`. */
async function skillFile(name: string, extra: string, openai?: string): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "skill-core-user-only-"));
  dirs.push(root);
  const dir = join(root, name);
  await mkdir(join(dir, "agents"), { recursive: true });
  await writeFile(
    join(dir, "SKILL.md"),
    `---\nname: ${name}\ndescription: Ships it\n${extra}---\n# Deploy\n`,
  );
  if (openai !== undefined) await writeFile(join(dir, "agents", "openai.yaml"), openai);
  return join(dir, "SKILL.md");
}

const DMI = "disable-model-invocation: true\n";
const OPENCODE = "metadata:\n  opencode/autoinvoke: false\n";
const CODEX = "policy:\n  allow_implicit_invocation: false\n";

describe("user-only spellings, agent by agent", () => {
  it("names the spellings a skill uses", () => {
    expect(userOnlySpellings({ "disable-model-invocation": "yes" })).toEqual(["disable-model-invocation"]);
    expect(userOnlySpellings({ metadata: { "opencode/autoinvoke": "false" } }, true)).toEqual([
      "opencode/autoinvoke",
      "openai.yaml",
    ]);
    expect(userOnlySpellings({ metadata: { "opencode/autoinvoke": true } })).toEqual([]);
  });

  it.each([
    ["codex", ["disable-model-invocation"], "ignored"],
    ["codex", ["openai.yaml"], "honoured"],
    ["codex", ["disable-model-invocation", "openai.yaml"], "honoured"],
    ["claude-code", ["opencode/autoinvoke"], "ignored"],
    ["claude-code", ["disable-model-invocation"], "honoured"],
    ["opencode", ["opencode/autoinvoke", "disable-model-invocation"], "ignored"],
    ["copilot", ["disable-model-invocation"], "unreachable"],
    ["copilot", ["openai.yaml"], "ignored"],
    ["pi", ["disable-model-invocation"], "honoured"],
    ["amp", ["disable-model-invocation"], undefined],
    ["codex", [], undefined],
  ] as const)("%s with %j: %s", (agent, spellings, verdict) => {
    expect(userOnlyVerdict(agent, spellings)).toBe(verdict);
  });

  it("says in one sentence where the model sees the skill anyway, and where nobody can reach it", () => {
    expect(userOnlyNote("codex", ["disable-model-invocation"], "deploy")).toBe(
      'Codex 0.171 does not read disable-model-invocation: true: its model sees "deploy" and may invoke it on its own (it reads policy.allow_implicit_invocation: false in agents/openai.yaml)',
    );
    expect(userOnlyNote("opencode", ["opencode/autoinvoke"], "deploy")).toBe(
      'opencode 1.18 does not read metadata.opencode/autoinvoke: false: its model sees "deploy" and may invoke it on its own (opencode 1.18 has no way to keep a skill from its model)',
    );
    expect(userOnlyNote("copilot", ["disable-model-invocation"], "deploy")).toBe(
      'Copilot CLI lists "deploy" but refuses it to everyone, the user included, for disable-model-invocation: true (github/copilot-cli#4438): the skill is unreachable there',
    );
    expect(userOnlyNote("claude-code", ["disable-model-invocation"], "deploy")).toBeUndefined();
  });
});

describe("validateSkillFile: user-only by target", () => {
  const codes = async (file: string, target: "codex" | "claude-code" | "spec", strict = false) =>
    (await validateSkillFile(file, { target, strict }))
      .filter((d) => d.code.startsWith("user-only"))
      .map((d) => [d.code, d.severity]);

  it("codex: warns when the skill says user-only only in SKILL.md, reads its agents/openai.yaml", async () => {
    expect(await codes(await skillFile("deploy", DMI), "codex")).toEqual([["user-only-ignored", "warning"]]);
    expect(await codes(await skillFile("deploy", DMI), "codex", true)).toEqual([
      ["user-only-ignored", "error"],
    ]);
    expect(await codes(await skillFile("deploy", DMI, CODEX), "codex")).toEqual([]);
    expect(await codes(await skillFile("deploy", "", CODEX), "codex")).toEqual([]);
    // A string is not Codex's boolean: the sidecar says nothing, and the skill's own key is not read.
    expect(
      await codes(await skillFile("deploy", DMI, 'policy:\n  allow_implicit_invocation: "false"\n'), "codex"),
    ).toEqual([["user-only-ignored", "warning"]]);
  });

  it("claude-code: warns for opencode's key alone; spec judges no agent", async () => {
    const opencodeOnly = await skillFile("deploy", OPENCODE);
    const findings = await validateSkillFile(opencodeOnly, { target: "claude-code" });
    expect(findings.find((d) => d.code === "user-only-ignored")?.message).toBe(
      `Claude Code does not read metadata.opencode/autoinvoke: false: its model sees "deploy" and may invoke it on its own (it reads disable-model-invocation: true) in ${opencodeOnly}`,
    );
    expect(await codes(await skillFile("deploy", DMI + OPENCODE), "claude-code")).toEqual([]);
    expect(await codes(opencodeOnly, "spec")).toEqual([]);
  });
});
