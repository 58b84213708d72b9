// @module-tag slow: every test here runs the built `skill` CLI in a child process.
import { type ChildProcess, spawn } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { silentServer, until } from "@skill/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs helper shared with the demo script
import { serveDir } from "../scripts/serve.mjs";
import { type RunResult, runNode } from "../test/run-node.js";

const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));

// The environment of whoever runs the tests must not reach the CLI: set variables that change
// what the CLI finds, and check that every test still passes (the CLI runs with cleanEnv).
Object.assign(process.env, {
  OPENCODE_DISABLE_CLAUDE_CODE: "1",
  OPENCODE_DISABLE_EXTERNAL_SKILLS: "1",
  CLAUDE_CONFIG_DIR: "/nonexistent/claude",
  CODEX_HOME: "/nonexistent/codex",
  OPENCODE_CONFIG_DIR: "/nonexistent/opencode",
  XDG_CACHE_HOME: "/nonexistent/cache",
  COLUMNS: "40",
  FORCE_COLOR: "1",
});

/** Only what a test sets, plus PATH: nothing of the caller's environment. */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root, NO_COLOR: "1", ...extra };
}
const examples = fileURLToPath(new URL("../../../examples/", import.meta.url));

/** Runs a node script; asynchronous so the in-process test server keeps answering. */
function runScript(
  script: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<RunResult> {
  return runNode(script, args, {
    cwd: options.cwd ?? root,
    home: root,
    ...(options.env ? { env: options.env } : {}),
  });
}

/** Runs the built `skill` binary. */
function run(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<RunResult> {
  return runScript(cli, args, options);
}

let root: string;
let project: string;
let home: string;
let cache: string;
let server: { url: string; close(): Promise<void>; requests: string[] };
let base: string[];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "skill-cli-"));
  project = join(root, "project");
  home = join(root, "home");
  cache = join(root, "cache");
  await cp(join(examples, "project"), project, { recursive: true });
  await cp(join(examples, "home"), home, { recursive: true });
  server = await serveDir(join(examples, "remote-pack"), "/.well-known/agent-skills/");
  base = ["--cwd", project, "--home", home, "--cache", cache];
});

afterAll(async () => {
  await server?.close();
  await rm(root, { recursive: true, force: true });
});

describe("skill list", () => {
  it("shows what the agent sees and summarises shadowed and failed skills", async () => {
    const { code, stdout } = await run([...base, "list"], { env: { SKILL_FORCE_TTY: "200" } });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^NAME\s+DESCRIPTION\s+SOURCE\s+LOCATION/);
    expect(stdout).toContain("git-helper");
    expect(stdout).toContain("team-skills/release-notes/SKILL.md");
    expect(stdout).toContain("8 skills, 2 shadowed, 1 failed — run with --verbose");
  });

  it("writes a line per skill in a pipe, name, description and location between tabs, and the notes to stderr", async () => {
    const { code, stdout, stderr } = await run([...base, "list"]);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(8);
    for (const line of lines) expect(line.split("\t")).toHaveLength(3);
    const notes = lines.find((line) => line.startsWith("release-notes\t"))?.split("\t");
    expect(notes?.[2]).toBe(join(project, "team-skills", "release-notes", "SKILL.md"));
    expect(notes?.[1]).not.toMatch(/…$/);
    expect(stderr).toContain("8 skills, 2 shadowed, 1 failed — run with --verbose");
  });

  it("does not follow a checkout's link to / and names it, even without --verbose", async () => {
    const dir = join(root, "link-to-root");
    await mkdir(join(dir, ".agents", "skills", "ok"), { recursive: true });
    await mkdir(join(dir, ".git"), { recursive: true });
    await writeFile(
      join(dir, ".agents", "skills", "ok", "SKILL.md"),
      "---\nname: ok\ndescription: Fine.\n---\n",
    );
    await symlink("/", join(dir, ".agents", "skills", "all"));
    const { code, stdout, stderr } = await run(["--cwd", dir, "--home", home, "--cache", cache, "list"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^ok\tFine\./m);
    expect(stderr).toMatch(/ skills?, 1 warning/);
    expect(stderr).toContain(
      `Not following symlink ${join(dir, ".agents", "skills", "all")}: it points to /, the filesystem root`,
    );
  });

  it("--json gives skills, shadowed and failed entries", async () => {
    const { code, stdout } = await run([...base, "list", "--json"]);
    expect(code).toBe(0);
    const data = JSON.parse(stdout);
    expect(data.skills.map((s: { name: string }) => s.name)).toEqual([
      "code-review",
      "commit-messages",
      "e2e",
      "git-helper",
      "internal-deploy",
      "pdf-tools",
      "release-notes",
      "testing",
    ]);
    expect(data.skills.find((s: { name: string }) => s.name === "code-review").location).toBe(
      join(project, ".claude/skills/code-review/SKILL.md"),
    );
    expect(data.shadowed).toContainEqual({
      name: "code-review",
      kept: join(project, ".claude/skills/code-review/SKILL.md"),
      dropped: join(home, ".claude/skills/code-review/SKILL.md"),
    });
    expect(data.failed).toEqual([
      expect.objectContaining({
        path: join(project, ".agents/skills/broken/SKILL.md"),
        code: "MISSING_FIELD",
      }),
    ]);
  });

  it("hides skills the agent is denied", async () => {
    const data = JSON.parse((await run([...base, "list", "--json", "--agent", "review"])).stdout);
    expect(data.skills.map((s: { name: string }) => s.name)).not.toContain("internal-deploy");
    expect(data.hidden).toEqual(["internal-deploy"]);
  });
});

describe("skill show", () => {
  it("prints the <skill_content> block with bundled files", async () => {
    const { code, stdout } = await run([...base, "show", "pdf-tools"]);
    expect(code).toBe(0);
    expect(stdout).toContain('<skill_content name="pdf-tools">');
    expect(stdout).toContain("# Skill: pdf-tools");
    expect(stdout).toContain(`Base directory for this skill: ${join(project, ".agents/skills/pdf-tools")}`);
    expect(stdout).toContain(join(project, ".agents/skills/pdf-tools/scripts/extract.py"));
    const data = JSON.parse((await run([...base, "show", "pdf-tools", "--json"])).stdout);
    expect(data.files).toEqual(["forms.md", "scripts/extract.py"]);
    expect(data.access).toBe("allow");
    // --limit cuts the list, and the block says how many files there are.
    const one = await run([...base, "show", "pdf-tools", "--limit", "1"]);
    expect(one.stdout).toContain("Note: 2 files are bundled; the first 1 (sorted) are listed.");
    expect(one.stdout).toContain(`<file>${join(project, ".agents/skills/pdf-tools/forms.md")}</file>`);
    expect(one.stdout).not.toContain(
      `<file>${join(project, ".agents/skills/pdf-tools/scripts/extract.py")}</file>`,
    );
  });

  it("names the available skills when one is missing", async () => {
    const { code, stdout, stderr } = await run([...base, "show", "x"]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      'skill: Skill "x" not found. Available skills: code-review, commit-messages, e2e, git-helper, internal-deploy, pdf-tools, release-notes, testing\n',
    );
  });

  it("says which skill a mistyped name may mean, in show, why and audit", async () => {
    const show = await run([...base, "show", "pdf-tool"]);
    expect(show.stderr).toContain('Skill "pdf-tool" not found. Did you mean "pdf-tools"?');
    const why = await run([...base, "why", "git-helpr"]);
    expect(why.stdout).toContain("No skill named 'git-helpr' is installed here. Did you mean 'git-helper'?");
    const audit = await run([...base, "audit", "comit-messages"]);
    expect(audit.stderr).toContain('Did you mean "commit-messages"?');
  });

  it("treats a skill denied to the agent as missing, and names no denied skill", async () => {
    const extra = join(project, ".agents/skills/internal-secrets");
    await mkdir(extra, { recursive: true });
    await writeFile(
      join(extra, "SKILL.md"),
      "---\nname: internal-secrets\ndescription: Keys.\n---\nsecret body\n",
    );
    try {
      const hidden = JSON.parse((await run([...base, "list", "--agent", "review", "--json"])).stdout).hidden;
      expect(hidden).toEqual(["internal-deploy", "internal-secrets"]);
      for (const name of hidden) {
        const { code, stdout, stderr } = await run([...base, "show", name, "--agent", "review"]);
        expect(code).toBe(1);
        expect(stdout).toBe("");
        expect(stderr).toMatch(new RegExp(`^skill: Skill "${name}" not found\\. Available skills: `));
        for (const denied of hidden) expect(stderr.split(`"${name}"`).join("")).not.toContain(denied);
        expect(stderr).not.toContain("secret body");
      }
      // The same skill is there for an agent that may see it.
      expect((await run([...base, "show", "internal-secrets"])).stdout).toContain("secret body");
    } finally {
      await rm(extra, { recursive: true, force: true });
    }
  });
});

describe("skill prompt", () => {
  it("prints the XML catalog without the denied skill", async () => {
    const { code, stdout } = await run([...base, "prompt", "--agent", "review"]);
    expect(code).toBe(0);
    expect(stdout.startsWith("<available_skills>\n")).toBe(true);
    expect(stdout).toContain("<name>pdf-tools</name>");
    expect(stdout).not.toContain("internal-deploy");
  });

  it("says on stderr what a budget left out", async () => {
    const { code, stdout, stderr } = await run([...base, "prompt", "--budget", "120", "--json"]);
    expect(code).toBe(0);
    const data = JSON.parse(stdout);
    expect(data.text.length).toBeLessThanOrEqual(120);
    expect(data.omitted.length).toBeGreaterThan(0);
    const human = await run([...base, "prompt", "--budget", "120"]);
    expect(human.stderr).toContain(`left out ${data.omitted.length} skills: ${data.omitted.join(", ")}`);
    expect(stderr).toBe("");
  });

  it("rejects an unknown style as a usage error", async () => {
    const { code, stderr } = await run([...base, "prompt", "--style", "yaml"]);
    expect(code).toBe(2);
    expect(stderr).toContain("yaml");
  });
});

describe("skill validate", () => {
  it("reports file:line and rule ids, exit 1 on errors", async () => {
    const { code, stdout } = await run([...base, "validate"]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/\.agents\/skills\/broken\/SKILL\.md:1\s+error\s+description-missing/);
    expect(stdout).toMatch(/\.agents\/skills\/testing\/e2e\/SKILL\.md:3\s+warning\s+yaml-repaired/);
    expect(stdout).toContain("11 files checked: 9 clean, 1 error, 1 warning");
  });

  it("--strict turns spec findings into errors", async () => {
    const dir = join(root, "strict", "wrong-folder");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "SKILL.md"), "---\nname: right-name\ndescription: d\n---\n");
    expect((await run([...base, "validate", dir])).code).toBe(0);
    const strict = await run([...base, "validate", "--strict", "--json", dir]);
    expect(strict.code).toBe(1);
    const data = JSON.parse(strict.stdout);
    expect(data.files[0].diagnostics).toEqual([
      expect.objectContaining({ code: "name-mismatch", severity: "error", line: 2 }),
    ]);
  });

  it("judges a lower-case skill.md in a tree instead of saying no SKILL.md was found", async () => {
    const dir = join(root, "lower", "skills");
    await mkdir(join(dir, "notes"), { recursive: true });
    await writeFile(join(dir, "notes", "skill.md"), "---\nname: notes\ndescription: d\n---\n");
    const ref = await run([...base, "validate", "--target", "skills-ref", dir]);
    expect(ref.stdout).not.toContain("no SKILL.md");
    expect(ref.stdout).toContain("1 file checked for skills-ref: 1 clean");
    expect(ref.code).toBe(0);
    const spec = await run([...base, "validate", dir]);
    expect(spec.stdout).toMatch(/skill\.md\s+warning\s+file-name-case/);
  });

  it("counts findings by rule, most first, when there are several rules", async () => {
    const dir = join(root, "by-rule");
    for (const [folder, extra] of [
      ["one", "version: 1\n"],
      ["two", "version: 2\nauthor: me\n"],
      ["three", "tags: [a]\n"],
    ] as const) {
      await mkdir(join(dir, folder), { recursive: true });
      await writeFile(
        join(dir, folder, "SKILL.md"),
        `---\nname: other-${folder}\ndescription: d\n${extra}---\n`,
      );
    }
    const { stdout } = await run([...base, "validate", dir]);
    expect(stdout).toContain(
      "3 files checked: 0 clean, 0 errors, 7 warnings\n  warnings by rule: unknown-field 4, name-mismatch 3\n",
    );
    const json = JSON.parse((await run([...base, "validate", "--json", dir])).stdout);
    expect(json.byRule).toEqual({ error: {}, warning: { "unknown-field": 4, "name-mismatch": 3 } });
  });

  it("resolves relative paths against where it runs", async () => {
    const { code, stdout } = await run(["validate", "project/.agents/skills/pdf-tools"], { cwd: root });
    expect(code).toBe(0);
    expect(stdout).toContain("1 file checked: 1 clean");
  });
});

describe("skill pull, pack and remote skills", () => {
  it("downloads a pack and loads its skills", async () => {
    const pulled = await run([...base, "pull", server.url, "--json"]);
    expect(pulled.code).toBe(0);
    const data = JSON.parse(pulled.stdout);
    expect(data.packs[0].files).toHaveLength(2);
    expect(data.packs[0].fromCache).toBe(false);
    const listed = JSON.parse((await run([...base, "--url", server.url, "list", "--json"])).stdout);
    expect(listed.skills.map((s: { name: string }) => s.name)).toContain("remote-skill");
    const shown = await run([...base, "--url", server.url, "show", "remote-skill"]);
    expect(shown.stdout).toContain("reference.md");
  });

  it("reports an unreachable pack with exit 1", async () => {
    const { code, stderr } = await run([...base, "pull", "http://127.0.0.1:9/nothing/"]);
    expect(code).toBe(1);
    expect(stderr).toContain("http://127.0.0.1:9/nothing/");
  });

  it("pack writes the index.json that the bundled remote pack holds", async () => {
    const copy = join(root, "pack-copy");
    await cp(join(examples, "remote-pack"), copy, { recursive: true });
    await rm(join(copy, "index.json"));
    const { code, stdout } = await run([...base, "pack", copy, "--json"]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).manifest.skills.map((s: { name: string }) => s.name)).toEqual([
      "changelog-writer",
      "remote-skill",
    ]);
    // The committed examples/remote-pack/index.json (and its archive) is what `skill pack` writes today.
    expect(await readFile(join(copy, "index.json"), "utf8")).toBe(
      await readFile(join(examples, "remote-pack", "index.json"), "utf8"),
    );
    expect(await readFile(join(copy, "remote-skill.tar.gz"))).toEqual(
      await readFile(join(examples, "remote-pack", "remote-skill.tar.gz")),
    );
  });

  it("pack never publishes what a link in a skill leads to outside it; a nested skill is its own", async () => {
    const dir = join(root, "leaky-pack");
    const skill = join(dir, "leaky");
    await mkdir(join(skill, "forms"), { recursive: true });
    await mkdir(join(root, "private"), { recursive: true });
    await writeFile(join(root, "id_ed25519"), "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n");
    await writeFile(join(root, "private", "notes.md"), "private notes\n");
    await writeFile(join(skill, "SKILL.md"), "---\nname: leaky\ndescription: Links out\n---\nBody\n");
    await writeFile(join(skill, "guide.md"), "# Guide\n");
    await writeFile(join(skill, "forms", "SKILL.md"), "---\nname: forms\ndescription: Nested\n---\n");
    await symlink("../../id_ed25519", join(skill, "key"));
    await symlink("/etc/passwd", join(skill, "passwd"));
    await symlink(join(root, "private"), join(skill, "everything"));
    await symlink("guide.md", join(skill, "alias.md"));

    const { code, stdout } = await run([...base, "pack", dir, "--json"]);

    expect(code).toBe(0);
    const data = JSON.parse(stdout);
    expect(data.manifest.skills.map((s: { name: string; files?: string[] }) => [s.name, s.files])).toEqual([
      ["leaky", ["SKILL.md", "alias.md", "guide.md"]],
      ["forms", undefined],
    ]);
    expect(data.diagnostics.map((d: { code: string; path: string }) => [d.code, d.path])).toEqual([
      ["link-outside", join(skill, "everything")],
      ["link-outside", join(skill, "key")],
      ["link-outside", join(skill, "passwd")],
      ["nested-skill", join(skill, "forms", "SKILL.md")],
    ]);
    const archive = gunzipSync(await readFile(join(dir, "leaky.tar.gz"))).toString("latin1");
    for (const secret of ["PRIVATE KEY", "private notes", "root:x:0:0", "name: forms"]) {
      expect(archive).not.toContain(secret);
    }
    expect(archive).toContain("# Guide");

    const text = await run([...base, "pack", dir]);
    expect(text.code).toBe(0);
    expect(text.stderr).toContain(`! Not packed: ${join(skill, "key")} is a symbolic link`);
  });

  it("pack writes nothing and exits 1 when a skill cannot be listed", async () => {
    const dir = join(root, "bad-pack");
    await mkdir(join(dir, "broken"), { recursive: true });
    await writeFile(join(dir, "broken", "SKILL.md"), "no frontmatter\n");
    const { code, stderr } = await run([...base, "pack", dir]);
    expect(code).toBe(1);
    expect(stderr).toContain("not listed");
    expect(stderr).toContain("nothing written");
    await expect(readFile(join(dir, "index.json"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("pull exits 1 and names each entry that failed, and why", async () => {
    const dir = join(root, "half-pack");
    await cp(join(examples, "remote-pack"), dir, { recursive: true });
    const index = JSON.parse(await readFile(join(dir, "index.json"), "utf8"));
    index.skills[0].digest = `sha256:${"0".repeat(64)}`;
    index.skills.push({ name: "../escape", type: "skill-md", url: "x", digest: index.skills[0].digest });
    await writeFile(join(dir, "index.json"), JSON.stringify(index));
    const half = await serveDir(dir);
    try {
      const { code, stdout, stderr } = await run([...base, "pull", `${half.url}index.json`]);
      expect(code).toBe(1);
      expect(stdout).toContain("1 skill, 2 skipped");
      expect(stderr).toMatch(/✗ changelog-writer \(INTEGRITY_ERROR\): Digest mismatch/);
      expect(stderr).toMatch(/✗ \.\.\/escape \(UNSAFE_PATH\): unsafe name/);
    } finally {
      await half.close();
    }
  });

  it("pull exits 1 when a pack lists no skill", async () => {
    const dir = join(root, "empty-pack");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "index.json"), '{"skills": []}');
    const empty = await serveDir(dir);
    try {
      const { code, stderr } = await run([...base, "pull", `${empty.url}index.json`]);
      expect(code).toBe(1);
      expect(stderr).toContain("the pack lists no skill");
    } finally {
      await empty.close();
    }
  });

  it("--offline serves the cached pack without a request; verify finds it intact, then tampered", async () => {
    const own = ["--cwd", project, "--home", home, "--cache", join(root, "offline-cache")];
    expect((await run([...own, "pull", server.url])).code).toBe(0);
    const before = server.requests.length;
    const listed = await run([...own, "--offline", "--url", server.url, "list", "--json"]);
    expect(JSON.parse(listed.stdout).skills.map((s: { name: string }) => s.name)).toContain("remote-skill");
    const pulled = await run([...own, "--offline", "pull", server.url]);
    expect(pulled.stdout).toContain("offline, the cached copy");
    expect(server.requests.length).toBe(before);

    const verified = await run([...own, "verify", server.url]);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toContain("2 cached skills checked");
    const data = JSON.parse((await run([...own, "--offline", "pull", server.url, "--json"])).stdout);
    const skill = data.packs[0].files.find((f: string) => f.includes("remote-skill"));
    await writeFile(join(dirname(skill), "reference.md"), "edited\n");
    const tampered = await run([...own, "verify", server.url]);
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toContain("reference.md changed since it was pulled");
  });

  it("a load with a stale cached pack and a silent server ends soon after --timeout", {
    timeout: 30_000,
  }, async () => {
    const silent = await silentServer();
    const own = ["--cwd", project, "--home", home, "--cache", join(root, "stale-cache")];
    // Cache the pack under the silent server's URL, then make the copy old enough to revalidate.
    const pack = join(root, "stale-pack");
    await cp(join(examples, "remote-pack"), pack, { recursive: true });
    const real = await serveDir(pack);
    const url = `${silent.url}index.json`;
    try {
      const pulled = await run([...own, "pull", `${real.url}index.json`, "--json"]);
      const dir = dirname(dirname(JSON.parse(pulled.stdout).packs[0].files[0]));
      const { urlToDirName } = await import("@skill/remote");
      await cp(dir, join(root, "stale-cache", urlToDirName(url)), { recursive: true });
      const statePath = join(root, "stale-cache", urlToDirName(url), ".state.json");
      const state = JSON.parse(await readFile(statePath, "utf8"));
      state.checkedAt = "2000-01-01T00:00:00.000Z";
      await writeFile(statePath, JSON.stringify(state));
    } finally {
      await real.close();
    }
    try {
      const started = Date.now();
      const listed = await run([...own, "--timeout", "300", "--url", url, "list", "--json"]);
      expect(Date.now() - started).toBeLessThan(8_000);
      expect(JSON.parse(listed.stdout).skills.map((s: { name: string }) => s.name)).toContain("remote-skill");
    } finally {
      await silent.close();
    }
  });

  it("--timeout bounds the wait for a server that never answers", { timeout: 30_000 }, async () => {
    const silent = await silentServer();
    try {
      const started = Date.now();
      const { code, stderr } = await run([...base, "--timeout", "300", "pull", `${silent.url}index.json`]);
      expect(code).toBe(1);
      expect(stderr).toContain("timed out after 300 ms");
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await silent.close();
    }
  });
});

describe("skill why", () => {
  it("names the deciding rule and its layer", async () => {
    const { code, stdout } = await run([...base, "why", "internal-deploy", "--agent", "review"]);
    expect(code).toBe(0);
    expect(stdout).toContain("Agent 'review' does not see 'internal-deploy'.");
    expect(stdout).toContain('skill "internal-*" → deny');
    const data = JSON.parse((await run([...base, "why", "release-notes", "--json"])).stdout);
    expect(data).toMatchObject({ agent: "build", action: "ask", layer: "config", visible: true });
    expect(data.rule).toEqual({ permission: "skill", pattern: "release-*", action: "ask" });
  });

  it("says what the --preset agent does with copies its one winner cannot show", async () => {
    const dir = join(root, "copies");
    const skillHome = join(root, "copies-home");
    await mkdir(join(dir, ".git"), { recursive: true });
    for (const at of [join(dir, ".agents", "skills", "pdf"), join(skillHome, ".agents", "skills", "pdf")]) {
      await mkdir(at, { recursive: true });
      await writeFile(join(at, "SKILL.md"), "---\nname: pdf\ndescription: Fill forms.\n---\n");
    }
    const args = ["--cwd", dir, "--home", skillHome, "--cache", cache, "why", "pdf"];
    const codex = await run([...args, "--preset", "codex"]);
    expect(codex.stdout).toContain(
      "codex lists all 2 copies of 'pdf' (.agents/skills/pdf/SKILL.md, ~/.agents/skills/pdf/SKILL.md): the model sees 2 'pdf' skills.",
    );
    const opencode = await run([...args, "--preset", "opencode"]);
    expect(opencode.stdout).toContain("opencode keeps one of the 2 copies of 'pdf'");
    expect(opencode.stdout).toContain("which one changes from run to run");
    const json = JSON.parse((await run([...args, "--preset", "codex", "--json"])).stdout);
    expect(json.copies).toEqual({
      kind: "duplicate-listed",
      locations: [
        join(dir, ".agents", "skills", "pdf", "SKILL.md"),
        join(skillHome, ".agents", "skills", "pdf", "SKILL.md"),
      ],
    });
    expect((await run([...args, "--preset", "pi"])).stdout).not.toMatch(/copies of/);
  });

  it("says a missing name is missing, exits 1, and gives the rule that would apply", async () => {
    const { code, stdout } = await run([...base, "why", "nosuch"]);
    expect(code).toBe(1);
    expect(stdout.split("\n")[0]).toBe("No skill named 'nosuch' is installed here.");
    expect(stdout).toContain("skill search 'nosuch' finds skills by what they do");
    expect(stdout).toContain("Agent 'build' would see a skill named 'nosuch'.");
    expect(stdout).not.toContain("sees 'nosuch'");
    const json = await run([...base, "why", "nosuch", "--json"]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ skill: "nosuch", exists: false });
  });
});

describe("errors and usage", () => {
  it("explains a bad config in one line, naming the key", async () => {
    const config = join(root, "bad.json");
    await writeFile(config, JSON.stringify({ permission: { skill: { "internal-*": "hide" } } }));
    const { code, stdout, stderr } = await run([...base, "--config", config, "list"]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toContain("permission.skill.internal-*");
    expect(stderr).not.toMatch(/\n\s+at /);
    // Unknown keys are other tools' settings: ignored, and named once under --verbose (--json:
    // stderr holds only what the config says).
    await writeFile(config, JSON.stringify({ model: "x" }));
    const quiet = await run([...base, "--config", config, "list", "--json"]);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe("");
    const verbose = await run([...base, "--config", config, "list", "--json", "--verbose"]);
    expect(verbose.stderr).toBe(`skill: warning: ${config}: ignored key not used here: model\n`);
    // A misspelt key of ours is said on every run: its rules would silently not apply.
    await writeFile(config, JSON.stringify({ skils: {} }));
    const misspelt = await run([...base, "--config", config, "list", "--json"]);
    expect(misspelt.stderr).toBe(
      `skill: warning: ${config}: unknown key 'skils' is ignored; did you mean 'skills'?\n`,
    );
    await writeFile(config, "{ not json");
    expect((await run([...base, "--config", config, "list"])).stderr).toContain("not valid JSON");
  });

  it("exits 2 on usage mistakes and 0 on --help and --version", async () => {
    expect((await run(["list", "--no-such-flag"])).code).toBe(2);
    expect((await run(["frobnicate"])).code).toBe(2);
    expect((await run(["show"])).code).toBe(2);
    const help = await run(["show", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: skill show [options] <name>");
    const version = await run(["--version"]);
    const pkg = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8"));
    expect(version.stdout.trim()).toBe(pkg.version);
  });
});

describe("skill watch", () => {
  it("sees a new skill appear", async () => {
    const child: ChildProcess = spawn(process.execPath, [cli, ...base, "watch", "--json"], {
      env: cleanEnv(),
    });
    const lines: Record<string, unknown>[] = [];
    let buffer = "";
    child.stdout?.on("data", (d) => {
      buffer += d;
      let at = buffer.indexOf("\n");
      while (at >= 0) {
        lines.push(JSON.parse(buffer.slice(0, at)));
        buffer = buffer.slice(at + 1);
        at = buffer.indexOf("\n");
      }
    });
    try {
      await until(() => lines.some((l) => l.event === "ready"));
      const dir = join(project, ".agents/skills/fresh-skill");
      await mkdir(dir, { recursive: true });
      await writeFile(
        join(dir, "SKILL.md"),
        "---\nname: fresh-skill\ndescription: Appeared while watching\n---\n",
      );
      await until(() =>
        lines.some((l) => l.event === "skills" && (l.appeared as string[]).includes("fresh-skill")),
      );
      expect(lines).toContainEqual({ event: "added", path: join(dir, "SKILL.md") });
    } finally {
      const exited = new Promise((r) => child.on("close", r));
      child.kill("SIGINT");
      expect(await exited).toBe(0);
      await rm(join(project, ".agents/skills/fresh-skill"), { recursive: true, force: true });
    }
  });
});

describe("the demo script", () => {
  it("runs every step over the examples and exits 0", async () => {
    const script = fileURLToPath(new URL("../scripts/demo.mjs", import.meta.url));
    const result = await runScript(script, []);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Demo finished: every step behaved as expected.");
    const reviewPrompt = result.stdout.slice(
      result.stdout.indexOf("$ skill prompt --agent review"),
      result.stdout.indexOf("</available_skills>"),
    );
    expect(reviewPrompt).toContain("<name>pdf-tools</name>");
    expect(reviewPrompt).not.toContain("internal-deploy");
    expect(result.stdout).toContain('<skill_content name="remote-skill">');
  }, 60_000);
});

describe("skill validate --target", () => {
  async function skillDir(folder: string, text: string, file = "SKILL.md"): Promise<string> {
    const dir = join(root, "targets", folder);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, file), text);
    return dir;
  }

  it("codex and claude-code say where each ignores a user-only skill's spelling (agents/openai.yaml is Codex's own)", async () => {
    const dir = await skillDir(
      "quiet",
      "---\nname: quiet\ndescription: d\ndisable-model-invocation: true\n---\n",
    );
    const codex = await run([...base, "validate", "--target", "codex", "--json", dir]);
    expect(codex.code).toBe(0);
    const found = JSON.parse(codex.stdout).files[0].diagnostics;
    expect(found).toContainEqual(
      expect.objectContaining({
        code: "user-only-ignored",
        severity: "warning",
        message: expect.stringContaining(
          'Codex 0.171 does not read disable-model-invocation: true: its model sees "quiet"',
        ),
      }),
    );
    const claude = await run([...base, "validate", "--target", "claude-code", "--json", dir]);
    expect(JSON.parse(claude.stdout).files[0].diagnostics).toEqual([]);
    const own = await skillDir("own", "---\nname: own\ndescription: d\n---\n");
    await mkdir(join(own, "agents"));
    await writeFile(join(own, "agents", "openai.yaml"), "policy:\n  allow_implicit_invocation: false\n");
    const ownCodex = await run([...base, "validate", "--target", "codex", "--json", own]);
    expect(JSON.parse(ownCodex.stdout).files[0].diagnostics).toEqual([]);
    // Spelled only the Codex way, the skill is one Claude Code's model sees.
    const ownClaude = await run([...base, "validate", "--target", "claude-code", "--json", own]);
    expect(JSON.parse(ownClaude.stdout).files[0].diagnostics).toEqual([
      expect.objectContaining({ code: "user-only-ignored", severity: "warning" }),
    ]);
  });

  it("gh-publish refuses what gh skill publish refuses; spec only warns", async () => {
    const dir = await skillDir(
      "pub",
      "---\nname: pub\ndescription: d\nlicense: MIT\nallowed-tools:\n  - Bash\nmetadata:\n  github-ref: v1\n---\n",
    );
    const spec = await run([...base, "validate", dir]);
    expect(spec.code).toBe(0);
    expect(spec.stdout).toMatch(/SKILL\.md:5\s+warning\s+allowed-tools-not-string/);
    const gh = await run([...base, "validate", "--target", "gh-publish", "--json", dir]);
    expect(gh.code).toBe(1);
    const data = JSON.parse(gh.stdout);
    expect(data.target).toBe("gh-publish");
    expect(
      data.files[0].diagnostics.map((d: { code: string; severity: string }) => [d.code, d.severity]),
    ).toEqual([
      ["install-metadata", "error"],
      ["allowed-tools-not-string", "error"],
    ]);
    const human = await run([...base, "validate", "--target", "gh-publish", dir]);
    expect(human.stdout).toContain("1 file checked for gh-publish: 0 clean, 2 errors, 0 warnings");
  });

  it("skills-ref finds a lower-case skill.md in a folder and accepts a Unicode name", async () => {
    const dir = await skillDir("données", "---\nname: données\ndescription: d\n---\n", "skill.md");
    const ref = await run([...base, "validate", "--target", "skills-ref", dir]);
    expect(ref.code).toBe(0);
    expect(ref.stdout).toContain("1 file checked for skills-ref: 1 clean");
    const spec = await run([...base, "validate", join(dir, "skill.md")]);
    expect(spec.stdout).toMatch(/file-name-case/);
    expect(spec.stdout).toMatch(/name-invalid-chars/);
  });

  it("rejects an unknown target as a usage error", async () => {
    const { code, stderr } = await run([...base, "validate", "--target", "cursor"]);
    expect(code).toBe(2);
    expect(stderr).toContain("cursor");
  });
});

describe("skill prompt budget and rank", () => {
  let rankBase: string[];
  const described = (text: string) =>
    [...text.matchAll(/<name>([^<]*)<\/name>\n\s*<description>/g)].map((m) => m[1] as string);

  beforeAll(async () => {
    const rproject = join(root, "rank", "project");
    const rhome = join(root, "rank", "home");
    // One long word: a description cut to 24 characters is exactly 24 (no word boundary to cut at).
    const long = (n: string) => `${n}-${"does-a-specific-thing-well-".repeat(15)}`;
    for (let i = 0; i < 40; i++) {
      const name = `z-proj-${String(i).padStart(2, "0")}`;
      await mkdir(join(rproject, ".agents/skills", name), { recursive: true });
      await writeFile(
        join(rproject, ".agents/skills", name, "SKILL.md"),
        `---\nname: ${name}\ndescription: ${long(name)}\n---\n`,
      );
    }
    for (let i = 0; i < 3; i++) {
      const name = `a-user-${i}`;
      await mkdir(join(rhome, ".agents/skills", name), { recursive: true });
      await writeFile(
        join(rhome, ".agents/skills", name, "SKILL.md"),
        `---\nname: ${name}\ndescription: ${long(name)}\n---\n`,
      );
    }
    const rcache = join(root, "rank", "cache");
    rankBase = ["--cwd", rproject, "--home", rhome, "--cache", rcache, "--url", server.url];
    expect((await run([...rankBase, "pull", server.url])).code).toBe(0);
  }, 30_000);

  it("says the default budget and why in --help", async () => {
    const { stdout } = await run(["prompt", "--help"]);
    expect(stdout).toContain("default: 8000");
    expect(stdout).toMatch(/Claude Code's skill\s+listing\s+budget/);
    expect(stdout).toContain("--rank");
  });

  it("keeps to 8,000 characters by default, project skills first, then user, then remote", async () => {
    const { code, stdout } = await run([...rankBase, "prompt", "--json"]);
    expect(code).toBe(0);
    const data = JSON.parse(stdout);
    expect(data.budget).toBe(8000);
    expect(data.rank).toBe("source");
    expect(data.text.length).toBeLessThanOrEqual(8000);
    expect(data.text.length).toBeGreaterThan(7000);
    const kept = described(data.text);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.every((n) => n.startsWith("z-proj-"))).toBe(true);
    expect(kept.length).toBeLessThan(40);

    // With room for exactly 43 short descriptions: the 40 project skills and the 3 user ones.
    const listed = JSON.parse((await run([...rankBase, "list", "--json"])).stdout).skills as {
      name: string;
      location: string;
    }[];
    expect(listed.map((s) => s.name)).toContain("remote-skill");
    const namesOnly =
      "<available_skills>\n</available_skills>".length +
      listed.reduce(
        (sum, s) =>
          sum +
          `  <skill>\n    <name>${s.name}</name>\n    <location>${s.location}</location>\n  </skill>\n`
            .length,
        0,
      );
    const perDescription = "\n    <description></description>".length + 24;
    const budget = namesOnly + 43 * perDescription + 20;
    const some = JSON.parse(
      (await run([...rankBase, "prompt", "--json", "--budget", String(budget)])).stdout,
    );
    expect(some.omitted).toEqual([]);
    expect(described(some.text).sort()).toEqual(
      listed
        .map((s) => s.name)
        .filter((n) => n.startsWith("z-proj-") || n.startsWith("a-user-"))
        .sort(),
    );
  }, 30_000);

  it("--rank input gives descriptions by the input (name) order instead", async () => {
    const data = JSON.parse((await run([...rankBase, "prompt", "--json", "--rank", "input"])).stdout);
    const kept = described(data.text);
    expect(kept.slice(0, 5)).toEqual([
      "a-user-0",
      "a-user-1",
      "a-user-2",
      "changelog-writer",
      "remote-skill",
    ]);
  });

  it("caps the omitted names on stderr at 20, and lists all with --verbose", async () => {
    const { stderr } = await run([...rankBase, "prompt", "--budget", "500"]);
    const line = stderr.split("\n").find((l) => l.includes("left out")) ?? "";
    const omitted = Number(/left out (\d+) skill/.exec(line)?.[1]);
    expect(omitted).toBeGreaterThan(20);
    expect(line).toMatch(new RegExp(`and ${omitted - 20} more \\(--verbose lists all\\)$`));
    expect(line.split(", ")).toHaveLength(20);
    const verbose = await run([...rankBase, "--verbose", "prompt", "--budget", "500"]);
    const all = verbose.stderr.split("\n").find((l) => l.includes("left out")) ?? "";
    expect(all.split(", ")).toHaveLength(omitted);
    expect(all).not.toContain("more");
  }, 30_000);
});
