// What skills cost to list, past start-up, whole processes: `skill list --json` (the built CLI)
// and Codex's `skills/list` (`codex app-server`, offline) over the same project, once with no
// skills and once with N, medians of interleaved runs. Reports the marginal cost per 1,000
// skills, ours and Codex's, and their ratio (DESIGN §12.4: at most half of Codex's).
//
//   node scripts/agents-real/marginal.mjs [--prefix /tmp/agents-real] [--skills 1900] [--runs 7] [--no-write]
//
// 1,900 skills by default: the most under the 2,000 that Codex 0.171 lists of one project (it
// stops at 1,999), and nearly twice the cost of 1,000 over the same start-up, so the
// difference of two medians moves less from run to run.
//
// Needs `pnpm build` and Codex installed by `node scripts/agents-real/run.mjs --agents codex`
// (into --prefix). The skills are the real-skill catalog's names and descriptions
// (packages/search/test/__fixtures__/catalog.json) with bodies of about 11 KB, the size of the
// bench's skills. Writes scripts/agents-real/marginal-output.md unless --no-write.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { codexSkillsListInput } from "./codex-rpc.mjs";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const CODEX = { pkg: "@openai/codex", version: "0.171.0" };

function parseArgs(argv) {
  const args = { prefix: "/tmp/agents-real", skills: 1900, runs: 7, write: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--prefix") args.prefix = argv[++i];
    else if (a === "--skills") args.skills = Number(argv[++i]);
    else if (a === "--runs") args.runs = Number(argv[++i]);
    else if (a === "--no-write") args.write = false;
    else throw new Error(`unknown argument ${a}`);
  }
  return args;
}

/** A body of about 11 KB: a heading, a paragraph, then sections of plain sentences. */
function body(name, description, i) {
  const words = "render parse deploy review table chart sheet form test build query cache".split(" ");
  const sentence = (k) =>
    `${Array.from({ length: 12 }, (_, j) => words[(i * 7 + k * 3 + j) % words.length]).join(" ")}.`;
  const sections = Array.from(
    { length: 12 },
    (_, s) => `## Step ${s + 1}\n\n${Array.from({ length: 12 }, (_, k) => sentence(s * 12 + k)).join(" ")}\n`,
  );
  return `# ${name}\n\n${description}\n\n${sections.join("\n")}`;
}

/** A project (a git root) with `count` skills in `.agents/skills`, and an empty home. */
function tree(root, count) {
  const { skills } = JSON.parse(
    readFileSync(join(repo, "packages/search/test/__fixtures__/catalog.json"), "utf8"),
  );
  const valid = skills.filter((s) => /^[a-z0-9]+(-[a-z0-9]+)*$/.test(s.name) && s.name.length <= 64);
  const project = join(root, "project");
  const home = join(root, "home");
  mkdirSync(join(project, ".git"), { recursive: true });
  writeFileSync(join(project, ".git", "HEAD"), "ref: refs/heads/main\n");
  mkdirSync(home, { recursive: true });
  for (let i = 0; i < count; i++) {
    const s = valid[i % valid.length];
    const name = i < valid.length ? s.name : `${s.name}-${Math.floor(i / valid.length) + 1}`;
    const dir = join(project, ".agents", "skills", name);
    mkdirSync(dir, { recursive: true });
    const text = `---\nname: ${name}\ndescription: ${JSON.stringify(s.description)}\n---\n${body(name, s.description, i)}`;
    writeFileSync(join(dir, "SKILL.md"), text);
  }
  return { project, home };
}

/** Runs a process to its end (or until `closeAfter` says it answered); wall time in ms and stdout. */
function timed(cmd, args, { cwd, env, input, closeAfter }) {
  return new Promise((resolveRun, reject) => {
    const start = performance.now();
    const child = spawn(cmd, args, { cwd, env, stdio: ["pipe", "pipe", "pipe"], detached: true });
    let stdout = "";
    let stderr = "";
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      const ms = performance.now() - start;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
      resolveRun({ ms, stdout, stderr });
    };
    child.stdout.on("data", (d) => {
      stdout += d;
      if (closeAfter?.(stdout)) finish();
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", finish);
    if (input) child.stdin.write(input);
    else child.stdin.end();
  });
}

const jsonLines = (text) =>
  text
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .flatMap((l) => {
      try {
        return [JSON.parse(l)];
      } catch {
        return [];
      }
    });

function runners(prefix) {
  const node = process.execPath;
  const path = `${join(prefix, "node22")}:/usr/local/bin:/usr/bin:/bin`;
  const env = (home) => ({ PATH: path, HOME: home, TERM: "dumb", NO_COLOR: "1", OPENAI_API_KEY: "sk-dummy" });
  const codexInput = (cwd) => codexSkillsListInput(cwd, "marginal");
  const ourList = async ({ project, home }, flags) => {
    const cli = join(repo, "apps/demo/dist/cli.js");
    const r = await timed(node, [cli, "list", "--json", ...flags, "--cwd", project, "--home", home], {
      cwd: project,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, NO_COLOR: "1" },
    });
    return { ms: r.ms, count: JSON.parse(r.stdout).skills.length };
  };
  return {
    // `skill list` as a user runs it: from the second run here on, each unchanged SKILL.md is
    // stat()ed and its head taken from the cache below HOME (the warm-up run fills it).
    ours: (t) => ourList(t, []),
    // Every SKILL.md opened and its first 4 KiB read and parsed, as on a first run.
    "ours, every file read": (t) => ourList(t, ["--no-head-cache"]),
    codex: async ({ project, home }) => {
      const bin = join(prefix, "codex", "node_modules", ".bin", "codex");
      const r = await timed(bin, ["app-server"], {
        cwd: project,
        env: env(home),
        input: codexInput(project),
        closeAfter: (out) => jsonLines(out).some((m) => m.id === 2),
      });
      const answer = jsonLines(r.stdout).find((m) => m.id === 2);
      if (!answer?.result) throw new Error(`codex: no skills/list answer (${r.stderr.split("\n")[0]})`);
      const listed = answer.result.data.flatMap((d) => d.skills);
      return { ms: r.ms, count: listed.filter((s) => s.path.startsWith(project)).length };
    },
  };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const root = mkdtempSync(join(tmpdir(), "skill-marginal-"));
  try {
    const trees = { empty: tree(join(root, "empty"), 0), full: tree(join(root, "full"), args.skills) };
    const who = runners(args.prefix);
    const names = Object.keys(who);
    const samples = Object.fromEntries(names.map((name) => [name, { empty: [], full: [] }]));
    // A warm-up each (file cache, our head cache, Codex's first-run setup in its home), then
    // interleaved runs.
    for (const name of names) for (const t of ["empty", "full"]) await who[name](trees[t]);
    for (let run = 0; run < args.runs; run++) {
      for (const name of names) {
        for (const t of ["empty", "full"]) {
          const r = await who[name](trees[t]);
          const expected = t === "empty" ? 0 : args.skills;
          if (r.count !== expected) throw new Error(`${name} listed ${r.count} skills of ${expected}`);
          samples[name][t].push(r.ms);
        }
      }
    }
    const per1000 = (s) => ((median(s.full) - median(s.empty)) / args.skills) * 1000;
    const cost = Object.fromEntries(names.map((name) => [name, per1000(samples[name])]));
    const f = (n) => n.toFixed(0);
    const row = (label, name) =>
      `| ${label} | ${f(median(samples[name].empty))} ms | ${f(median(samples[name].full))} ms | ${f(cost[name])} ms |`;
    const ratio = (name) => (cost[name] / cost.codex).toFixed(2);
    const lines = [
      `# The marginal cost of skills, ours and Codex's`,
      "",
      `\`node scripts/agents-real/marginal.mjs --skills ${args.skills} --runs ${args.runs}\` (Codex ${CODEX.version}, Node ${process.versions.node}; medians of ${args.runs} interleaved runs, whole processes).`,
      "",
      `| | no skills | ${args.skills} skills | per 1,000 skills past start-up |`,
      "|---|---|---|---|",
      row("`skill list --json` (head cache warm)", "ours"),
      row("`skill list --json --no-head-cache` (every SKILL.md read)", "ours, every file read"),
      row("Codex `skills/list` (reads every SKILL.md)", "codex"),
      "",
      `ours / Codex: ${ratio("ours")}× (target ≤ 0.5×: ${cost.ours / cost.codex <= 0.5 ? "met" : "missed"}); every SKILL.md read: ${ratio("ours, every file read")}×`,
      "",
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
    if (args.write)
      writeFileSync(join(repo, "scripts/agents-real/marginal-output.md"), `${lines.join("\n")}\n`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
