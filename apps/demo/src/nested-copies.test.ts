// @module-tag slow: every test here runs the built `skill` CLI in a child process.
// A nested skill installed with its parent is found twice: `list` and `doctor` say of the copy
// inside the parent that it is, and keep calling a real shadow a shadow.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { nestedInstall, removeTempDirs, writeSkill } from "@skill/test-utils";
import { afterEach, describe, expect, it } from "vitest";

const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));

afterEach(removeTempDirs);

function skill(args: readonly string[], home: string) {
  const result = spawnSync(process.execPath, [cli, ...args], {
    encoding: "utf8",
    env: { PATH: process.env.PATH, HOME: home, NO_COLOR: "1", SKILL_FORCE_TTY: "200" },
    timeout: 60_000,
  });
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
  return result.stdout;
}

/** The nested install, plus a real shadow: `review` in `.claude/skills` and in `.agents/skills`. */
async function world() {
  const nested = await nestedInstall();
  const claude = await writeSkill(join(nested.project, ".claude", "skills", "review"));
  const agents = await writeSkill(join(nested.skills, "review"));
  return { ...nested, claude, agents, at: ["--cwd", nested.project, "--home", nested.home] };
}

describe("skill list on a nested install", () => {
  it("counts the copy inside its parent apart from real shadows, and --verbose says whose parent", async () => {
    const { home, at } = await world();
    expect(skill(["list", ...at], home)).toContain(
      "3 skills, 1 shadowed, 1 nested copy (inside its parent skill) — run with --verbose",
    );
    const verbose = skill(["list", "--verbose", ...at], home);
    expect(verbose).toContain(
      "  nested   child: .agents/skills/parent/child/SKILL.md, inside its parent 'parent', replaces .agents/skills/child/SKILL.md\n",
    );
    expect(verbose).toContain(
      "  shadowed review: .agents/skills/review/SKILL.md replaces .claude/skills/review/SKILL.md\n",
    );
    // Amp keeps the first match: the copy inside the parent is the one replaced.
    expect(skill(["list", "--verbose", "--preset", "amp", ...at], home)).toContain(
      "  nested   child: .agents/skills/child/SKILL.md replaces .agents/skills/parent/child/SKILL.md, inside its parent 'parent'\n",
    );
  });

  it("--json marks the nested copy's pair with its parent, and leaves the real shadow as it was", async () => {
    const { home, at, inside, own, claude, agents } = await world();
    const data = JSON.parse(skill(["list", "--json", ...at], home)) as { shadowed: unknown[] };
    expect(data.shadowed).toEqual([
      { name: "child", kept: inside, dropped: own, nested: { parent: "parent", inside } },
      { name: "review", kept: agents, dropped: claude },
    ]);
  });
});

describe("skill doctor on a nested install", () => {
  it("says `inside parent` of the copy inside its parent, `also in parent` of the other, and `shadowed` of a real shadow", async () => {
    const { home, at } = await world();
    const lines = skill(["doctor", "--agents", "default,amp", ...at], home).split("\n");
    const cells = (location: string) =>
      lines
        .find((l) => l.includes(` ${location} `))
        ?.split(/\s{2,}/)
        .slice(2);
    expect(cells(".agents/skills/parent/child/SKILL.md")).toEqual(["✓", "inside parent"]);
    expect(cells(".agents/skills/child/SKILL.md")).toEqual(["also in parent", "✓"]);
    expect(cells(".claude/skills/review/SKILL.md")).toEqual(["shadowed", "shadowed"]);
    expect(lines.join(" ")).toContain("inside X: a nested skill's copy inside its parent X");
    expect(lines.find((l) => l.startsWith("default "))).toMatch(
      /^default\s+3 skills loaded, 1 shadowed, 1 nested copy$/,
    );
  });

  it("--json gives the shadowed cells of the nested pair `nested: { parent, inside }`, not the real shadow's", async () => {
    const { home, at, inside, own, claude, agents } = await world();
    const report = JSON.parse(skill(["doctor", "--json", "--agents", "default,amp", ...at], home)) as {
      skills: { location: string; cells: Record<string, unknown> }[];
    };
    const cells = (location: string) => report.skills.find((s) => s.location === location)?.cells;
    const nested = { parent: "parent", inside };
    expect(cells(inside)?.amp).toEqual({ loaded: false, reason: "shadowed", detail: own, nested });
    expect(cells(own)?.default).toEqual({ loaded: false, reason: "shadowed", detail: inside, nested });
    expect(cells(claude)?.default).toEqual({ loaded: false, reason: "shadowed", detail: agents });
  });
});
