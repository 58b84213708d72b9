// @module-tag slow: every test here runs the built `skill` CLI in a child process.
import { spawn, spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import stringWidth from "string-width";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type RunResult, runNode } from "../test/run-node.js";

// What a newcomer meets first: closed pipes, odd configs, wrong paths, long lists, wide
// characters and hostile names. Each test builds its own project in a temp folder.

const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));

// Several runs of the CLI per test, on a machine that may be busy: time bounds that matter
// are asserted inside the tests.
vi.setConfig({ testTimeout: 60_000 });

let root: string;

/** Runs the built CLI with only the environment given (plus PATH, HOME and NO_COLOR). */
function run(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<RunResult> {
  return runNode(cli, args, {
    cwd: options.cwd ?? root,
    home: root,
    ...(options.env ? { env: options.env } : {}),
  });
}

function skillMd(name: string, description = `The ${name} skill.`): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n`;
}

/** A project folder with `.agents/skills/<folder>/SKILL.md` for each entry; returns its path. */
async function project(skills: Record<string, string>, name = "p"): Promise<string> {
  const dir = await mkdtemp(join(root, `${name}-`));
  for (const [folder, text] of Object.entries(skills)) {
    await mkdir(join(dir, ".agents", "skills", folder), { recursive: true });
    await writeFile(join(dir, ".agents", "skills", folder, "SKILL.md"), text);
  }
  return dir;
}

const ESC = "\u001b";
// Control characters the CLI never writes itself when colour is off (NO_COLOR=1).
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point of the check
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "skill-first-run-"));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("a closed pipe", () => {
  it("ends list, list --json, prompt and validate quietly with exit 0", async () => {
    const dir = await project(
      Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`s-${i}`, skillMd(`s-${i}`)])),
    );
    for (const args of [["list"], ["list", "--json"], ["prompt"], ["validate"]]) {
      // `true` exits without reading: the CLI's first write meets a closed pipe.
      const quoted = [cli, "--cwd", dir, "--home", root, ...args].map((a) => `'${a}'`).join(" ");
      const shell = spawnSync(
        "bash",
        ["-c", `'${process.execPath}' ${quoted} | true; echo "exit=\${PIPESTATUS[0]}" >&2`],
        {
          encoding: "utf8",
          env: { PATH: process.env.PATH ?? "", HOME: root, NO_COLOR: "1" },
        },
      );
      expect(shell.stderr, args.join(" ")).toBe("exit=0\n");
    }
  });
});

describe("skill.config.json and opencode.json", () => {
  it("reads opencode.json with other tools' keys, a BOM, comments and trailing commas", async () => {
    const dir = await project({ "secret-x": skillMd("secret-x"), open: skillMd("open") });
    await writeFile(
      join(dir, "opencode.json"),
      `\uFEFF{
  // opencode's own settings
  "$schema": "https://opencode.ai/config.json",
  "model": "anthropic/claude-sonnet-4-5",
  "mcp": { "docs": { "type": "local", "command": ["docs-server"] } },
  "permission": { "skill": { "secret-*": "deny", }, },
  /* per agent */
  "agent": { "build": { "model": "x", "permission": { "skill": { "open": "deny" } } } },
}`,
    );
    const { code, stdout, stderr } = await run(["--cwd", dir, "list", "--json"]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(JSON.parse(stdout).hidden).toEqual(["open", "secret-x"]);
    const verbose = await run(["--cwd", dir, "list", "--verbose"], { env: { SKILL_FORCE_TTY: "100" } });
    expect(verbose.stderr).toBe(
      `skill: warning: ${join(dir, "opencode.json")}: ignored keys not used here: model, agent.build.model, mcp\n`,
    );
  });

  it("does not let a malformed config in the current folder block validate PATH, pack DIR or pull URL", async () => {
    const dir = await project({ good: skillMd("good") });
    await writeFile(join(dir, "skill.config.json"), "{ this is not json");
    const skills = join(dir, ".agents", "skills");
    const validated = await run(["validate", join(skills, "good")], { cwd: dir });
    expect(validated.stderr).toBe("");
    expect(validated.code).toBe(0);
    const packed = await run(["pack", skills, "--json"], { cwd: dir });
    expect(packed.code).toBe(0);
    const pulled = await run(["pull", "http://127.0.0.1:9/none/", "--cache", join(dir, "cache")], {
      cwd: dir,
    });
    expect(pulled.stderr).not.toContain("not valid JSON");
    expect(pulled.stderr).toContain("127.0.0.1:9");
    // A command that reads the config still says what is wrong with it.
    const listed = await run(["list"], { cwd: dir });
    expect(listed.code).toBe(1);
    expect(listed.stderr).toMatch(/skill\.config\.json: not valid JSON \(.* at line 1, column \d+\)/);
  });

  it("refuses a FIFO or a device named as the config at once, instead of hanging or reading forever", async () => {
    const dir = await project({ good: skillMd("good") });
    const fifo = spawnSync("mkfifo", [join(dir, "skill.config.json")]);
    expect(fifo.status).toBe(0);
    const started = Date.now();
    const listed = await run(["list"], { cwd: dir });
    expect(listed.code).toBe(1);
    expect(listed.stderr).toContain("expected a regular file, found a FIFO");
    expect(Date.now() - started).toBeLessThan(9_000);
    await rm(join(dir, "skill.config.json"));
    await symlink("/dev/zero", join(dir, "skill.config.json"));
    const zero = await run(["list"], { cwd: dir });
    expect(zero.code).toBe(1);
    expect(zero.stderr).toContain("expected a regular file, found a device");
  });

  it("refuses a config over 1 MiB without parsing it", async () => {
    const dir = await project({});
    await writeFile(join(dir, "skill.config.json"), `{"skills":{},"x":"${"a".repeat(1024 * 1024)}"}`);
    const { code, stderr } = await run(["list"], { cwd: dir });
    expect(code).toBe(1);
    expect(stderr).toContain("the limit is 1048576");
  });
});

describe("wrong paths and names", () => {
  it("exits 1 for list --cwd of a folder that does not exist", async () => {
    const { code, stdout, stderr } = await run(["list", "--cwd", "/nonexistent/project"]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toBe("skill: --cwd /nonexistent/project: no such folder\n");
  });

  it("exits 1 for an --home that is no folder, and a --config that does not exist, each saying so", async () => {
    const home = await run(["list", "--home", "/nonexistent/home"]);
    expect([home.code, home.stdout, home.stderr]).toEqual([
      1,
      "",
      "skill: --home /nonexistent/home: no such folder\n",
    ]);
    await writeFile(join(root, "a-file.txt"), "x");
    const file = await run(["list", "--home", join(root, "a-file.txt")]);
    expect(file.stderr).toBe(`skill: --home ${join(root, "a-file.txt")}: not a folder\n`);
    // An empty value (an unset "$VAR") is not the folder the command runs in.
    const empty = await run(["list", "--home", ""]);
    expect([empty.code, empty.stderr]).toEqual([2, "skill: --home needs a folder, found an empty value\n"]);
    const config = await run(["list", "--config", "/nonexistent/skill.config.json"]);
    expect([config.code, config.stderr]).toEqual([
      1,
      "skill: Cannot read config /nonexistent/skill.config.json: no such file\n",
    ]);
  });

  it("warns about an --agent the config does not name", async () => {
    const dir = await project({ a: skillMd("a") });
    await writeFile(join(dir, "skill.config.json"), JSON.stringify({ agent: { review: {} } }));
    const { code, stderr } = await run(["list", "--agent", "nosuchagent"], { cwd: dir });
    expect(code).toBe(0);
    expect(stderr).toBe(
      `skill: warning: agent 'nosuchagent' is not in ${join(dir, "skill.config.json")}; only the global permission rules apply (agents there: review)\n`,
    );
    expect((await run(["list", "--agent", "review"], { cwd: dir })).stderr).toBe("");
  });

  it("says no SKILL.md was found and exits 1 when validate is given an empty folder", async () => {
    const empty = await mkdtemp(join(root, "empty-"));
    const { code, stderr } = await run(["validate", empty]);
    expect(code).toBe(1);
    expect(stderr).toBe(`skill: no SKILL.md found in ${basename(empty)}\n`);
  });

  it("says why when the skill asked for failed to load", async () => {
    const dir = await project({ broken: "---\nname: broken\n---\nno description\n" });
    const { code, stderr } = await run(["show", "broken"], { cwd: dir });
    expect(code).toBe(1);
    expect(stderr).toContain('Skill "broken" not found');
    expect(stderr).toContain(".agents/skills/broken/SKILL.md may be it, but it failed to load:");
    expect(stderr).toContain("Missing frontmatter field 'description'");
  });
});

describe("long lists", () => {
  it("points a missing name to similar names and skill search, not to 20 arbitrary names; all of them with --verbose", async () => {
    const names = Array.from({ length: 30 }, (_, i) => `skill-${String(i).padStart(2, "0")}`);
    const dir = await project(Object.fromEntries(names.map((n) => [n, skillMd(n)])));
    const { code, stderr } = await run(["show", "nope"], { cwd: dir });
    expect(code).toBe(1);
    expect(stderr).toBe(
      'skill: Skill "nope" not found, and none of the 30 skills here has a similar name. `skill search "nope"` finds skills by what they do; `skill list` shows them all.\n',
    );
    const typo = await run(["show", "skill-1"], { cwd: dir });
    expect(typo.stderr).toBe(
      'skill: Skill "skill-1" not found. Did you mean "skill-01", "skill-10", "skill-11"? `skill search "skill-1"` finds skills by what they do.\n',
    );
    const verbose = await run(["show", "nope", "--verbose"], { cwd: dir });
    expect(verbose.stderr).toBe(`skill: Skill "nope" not found. Available skills: ${names.join(", ")}\n`);
  });

  it("prompt ranks names the --preset agent would refuse last: Codex takes a name with capitals, the specification does not", async () => {
    const names = Array.from({ length: 12 }, (_, i) => `skill-${String(i).padStart(2, "0")}`);
    const skills = Object.fromEntries(
      names.map((n) => [n, skillMd(n, `What ${n} does, ${"at length ".repeat(6)}.`)]),
    );
    const dir = await project({
      ...skills,
      "Aa-Upper": skillMd("Aa-Upper", `Sorts first, ${"at length ".repeat(6)}.`),
    });
    const budget = ["prompt", "--json", "--budget", "700"];
    const spec = JSON.parse((await run(budget, { cwd: dir })).stdout);
    const codex = JSON.parse((await run([...budget, "--preset", "codex"], { cwd: dir })).stdout);
    expect(spec.omitted.length).toBeGreaterThan(0);
    expect(spec.omitted).toContain("Aa-Upper");
    expect(codex.included).toContain("Aa-Upper");
  });

  it("says when show's file list stops at 512, since files beyond it go unseen there", async () => {
    const dir = await project({ many: skillMd("many"), few: skillMd("few") });
    await mkdir(join(dir, ".agents", "skills", "many", "data"));
    for (let i = 0; i < 520; i++)
      await writeFile(join(dir, ".agents", "skills", "many", "data", `f${i}.txt`), "x");
    const many = await run(["show", "many"], { cwd: dir });
    expect(many.code).toBe(0);
    expect(many.stderr).toBe(
      "skill: note: 512 files are listed at most, and this skill has that many or more; `skill audit many` reads them all\n",
    );
    expect((await run(["show", "few"], { cwd: dir })).stderr).toBe("");
  });

  it("caps the names prompt --budget left out", async () => {
    const names = Array.from({ length: 40 }, (_, i) => `skill-${String(i).padStart(2, "0")}`);
    const dir = await project(Object.fromEntries(names.map((n) => [n, skillMd(n)])));
    const { code, stderr } = await run(["prompt", "--budget", "0"], { cwd: dir });
    expect(code).toBe(0);
    expect(stderr).toMatch(
      /^budget 0: not even one skill fits, so there is no catalog \(a harness leaves it out of the prompt\)\nbudget 0: left out 40 skills: skill-00, .*skill-19 and 20 more \(--verbose lists all\)\nthe model can load those only by exact name; --search adds the skill_search tool, which finds them by what they do\n$/,
    );
    const verbose = await run(["prompt", "--budget", "0", "--verbose"], { cwd: dir });
    expect(verbose.stderr).toContain(names.join(", "));
  });

  it("says why prompt prints no catalog in a folder without skills, and --style json is still JSON", async () => {
    const dir = await project({});
    const xml = await run(["prompt"], { cwd: dir });
    expect(xml.code).toBe(0);
    expect(xml.stdout).toBe("");
    expect(xml.stderr).toBe(
      "no skill for agent 'build' here, so there is no catalog (a harness leaves it out of the prompt)\n",
    );
    const json = await run(["prompt", "--style", "json"], { cwd: dir });
    expect(JSON.parse(json.stdout)).toEqual([]);
  });
});

describe("skill watch", () => {
  it("says why a skill vanished when its YAML breaks", async () => {
    const dir = await project({ fragile: skillMd("fragile") });
    const child = spawn(process.execPath, [cli, "--cwd", dir, "--home", root, "watch"], {
      env: { PATH: process.env.PATH ?? "", HOME: root, NO_COLOR: "1" },
    });
    let stdout = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    const until = async (text: string) => {
      for (let i = 0; i < 300 && !stdout.includes(text); i++) await new Promise((r) => setTimeout(r, 50));
      expect(stdout).toContain(text);
    };
    try {
      await until("Watching 1 skills");
      const file = join(dir, ".agents", "skills", "fragile", "SKILL.md");
      await writeFile(file, "---\nname: fragile\ndescription: [unclosed\n---\n");
      await until("-fragile");
      await until(`failed .agents/skills/fragile/SKILL.md: Failed to parse frontmatter`);
    } finally {
      const exited = new Promise((r) => child.on("close", r));
      child.kill("SIGINT");
      await exited;
    }
  });
});

describe("numeric flags", () => {
  it("takes only digits for --budget and --limit", async () => {
    for (const bad of ["", " ", "0x10", "1e3", "-1", "NaN", "Infinity", "99999999999999999999"]) {
      const budget = await run(["prompt", "--budget", bad]);
      expect(budget.code, `--budget ${JSON.stringify(bad)}`).toBe(2);
      expect(budget.stderr).toContain("expected a whole number");
      expect((await run(["show", "x", "--limit", bad])).code, `--limit ${JSON.stringify(bad)}`).toBe(2);
    }
    expect((await run(["prompt", "--budget", "100"])).code).toBe(0);
  });
});

describe("the terminal", () => {
  it("fits list into 100 columns by display width, CJK and emoji names aligned", async () => {
    const dir = await project({
      "pdf-tools": skillMd(
        "pdf-tools",
        `Extract text and tables from PDF files. ${"Long words. ".repeat(20)}`,
      ),
      日本語スキル: skillMd("日本語スキル", "日本語の説明文です。".repeat(10)),
      "emoji-🚀": skillMd(
        "emoji-🚀",
        "Launch things 🚀🚀🚀 with a very long description that goes on and on.",
      ),
      "deep/very/deeply/nested/folder/of/skills/for/testing/location/cuts": skillMd("cuts"),
    });
    const { code, stdout } = await run(["list"], { cwd: dir, env: { SKILL_FORCE_TTY: "100" } });
    expect(code).toBe(0);
    const table = stdout.split("\n").filter((l) => l.includes("project:"));
    expect(table).toHaveLength(4);
    for (const line of stdout.split("\n")) expect(stringWidth(line), line).toBeLessThanOrEqual(100);
    // The SOURCE column starts at the same display column on every line.
    const starts = table.map((l) => stringWidth(l.slice(0, l.indexOf("project:"))));
    expect(new Set(starts).size).toBe(1);
    // Narrower than the table: the location column goes, so descriptions can be read.
    expect(stdout).not.toContain("LOCATION");
    expect(stdout).toContain("Extract text and tables from PDF files.");
    const wide = await run(["list"], { cwd: dir, env: { SKILL_FORCE_TTY: "160" } });
    expect(wide.stdout).toContain("LOCATION");
    for (const line of wide.stdout.split("\n")) expect(stringWidth(line), line).toBeLessThanOrEqual(160);
    expect(
      (await run(["list", "--verbose"], { cwd: dir, env: { SKILL_FORCE_TTY: "100" } })).stdout,
    ).toContain("SKILL.md");
  });

  it("keeps a pipe's lines three fields each, whatever tabs and line breaks a skill holds", async () => {
    const dir = await project({
      "tab\there": skillMd("tabbed", '"Reads\\tforms.\\n\\nThen\\tfills them."'),
      plain: skillMd("plain"),
    });
    const { code, stdout, stderr } = await run(["list"], { cwd: dir });
    expect(code).toBe(0);
    expect(stderr).toBe("");
    const lines = stdout.trimEnd().split("\n");
    expect(lines.map((line) => line.split("\t").length)).toEqual([3, 3]);
    const tabbed = lines.find((line) => line.startsWith("tabbed\t"))?.split("\t");
    expect(tabbed?.[1]).toBe("Reads forms. Then fills them.");
    expect(tabbed?.[2]).toBe(join(dir, ".agents", "skills", "tab\\u0009here", "SKILL.md"));
  });

  it("gives a long name a third of 80 columns at most, and the description the rest", async () => {
    const long = "a-skill-name-that-runs-on-for-forty-four-chars";
    const dir = await project({
      [long]: skillMd(long, `Reads the invoices and files them by month. ${"More words here. ".repeat(10)}`),
      pdf: skillMd("pdf", "Extract text and tables from PDF files."),
    });
    const { stdout } = await run(["list"], { cwd: dir, env: { SKILL_FORCE_TTY: "80" } });
    const row = stdout.split("\n").find((l) => l.startsWith("a-skill-name")) ?? "";
    expect(stringWidth(row)).toBeLessThanOrEqual(80);
    // The name is cut to a third of the width; the description keeps far more than 20 columns.
    expect(row.indexOf("…")).toBeLessThanOrEqual(26);
    expect(row).toContain("Reads the invoices and files them");
  });

  it("keeps validate within 80 columns: the message wraps under its rule", async () => {
    const dir = await project({
      "wrong-folder": skillMd("right-name", `A description. ${"Long words here. ".repeat(8)}`),
    });
    const { stdout } = await run(["validate"], { cwd: dir, env: { COLUMNS: "80" } });
    for (const line of stdout.split("\n")) expect(stringWidth(line), line).toBeLessThanOrEqual(80);
    expect(stdout).toMatch(/SKILL\.md:2 +warning +name-mismatch\n {4}\S/);
  });

  it("shows the global flags in a subcommand's --help", async () => {
    const { code, stdout } = await run(["list", "--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("Global Options:");
    expect(stdout).toContain("--cwd <dir>");
  });
});

describe("control characters from skill files", () => {
  it("never reach the terminal from list, validate, show (a body too) or prompt", async () => {
    const folder = `evil${ESC}[2J${ESC}]0;title\u0007`;
    const dir = await project({
      [folder]: skillMd("evil-skill"),
      named: `---\nname: "bad${"\\e"}[31mname"\ndescription: d\n---\n`,
      "body-escapes": `${skillMd("body-escapes")}clear ${ESC}[2J title ${ESC}]0;x\u0007\n\tindented\n`,
    });
    const outputs = [
      await run(["list"], { cwd: dir }),
      await run(["list", "--verbose"], { cwd: dir }),
      await run(["validate"], { cwd: dir }),
      await run(["validate", join(dir, ".agents", "skills", folder)], { cwd: dir }),
      await run(["show", `missing${ESC}[2J`], { cwd: dir }),
      await run(["prompt", "--budget", "0"], { cwd: dir }),
      await run(["show", "body-escapes"], { cwd: dir }),
    ];
    for (const { stdout, stderr } of outputs) {
      expect(stdout).not.toMatch(CONTROL);
      expect(stderr).not.toMatch(CONTROL);
    }
    expect(outputs[0]?.stdout).toContain("evil\\u001b[2J");
    expect(outputs[6]?.stdout).toContain("clear \\u001b[2J title \\u001b]0;x\\u0007\n\tindented\n");
    // --json keeps the exact bytes, inside JSON's own escaping.
    const json = await run(["show", "body-escapes", "--json"], { cwd: dir });
    expect(JSON.parse(json.stdout).content).toContain(`clear ${ESC}[2J title`);
    expect(outputs[4]?.stderr).toContain("bad\\u001b[31mname");
    expect(outputs[5]?.stderr).toContain("bad\\u001b[31mname");
  });
});
