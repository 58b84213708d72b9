// `pnpm bench [--size L]`: measures every approach side by side, writes bench/.trees/results.json,
// then fills the tables of BENCHMARKS.md between its markers and draws the two charts beside it.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { runChild } from "./harness.js";
import { layoutOf } from "./layout.js";
import {
  measureChanges,
  measureDoctor,
  measureLoad,
  measureMcp,
  measureSearch,
  measureStartup,
} from "./measure-local.js";
import { measureRemote } from "./measure-remote.js";
import { BENCH_DIR, errorText, log, TREES_DIR } from "./paths.js";
import { summarizeProfile } from "./profile.js";
import { fillMarkers, reportBlocks } from "./report.js";
import type { BenchResults, Group, Machine } from "./results.js";
import { latencyChart, scalingChart } from "./svg.js";
import { checkTargets, EARLIER, evaluateTargets, LIMITS, REFERENCE, WARM_REFERENCE } from "./targets.js";
import { DEFAULT_SEED, ensureTree, type TreeManifest } from "./tree.js";

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
  --out FILE     the report whose marked tables are filled (default: BENCHMARKS.md at the
                 repository root; with --only, bench/.trees/BENCHMARKS-partial.md); a file
                 that does not exist starts as a copy of BENCHMARKS.md
  --render FILE  measure nothing: fill the report (and draw its charts) again from the results
                 of an earlier run (bench/.trees/results.json); --check then checks those
                 results, --note replaces the run's notes`;

const SIZES = { XS: 100, S: 1_000, L: 10_000 } as const;
const LOCAL_GROUPS = ["load", "changes", "startup", "doctor", "mcp", "search"];
const REPORT = join(BENCH_DIR, "..", "BENCHMARKS.md");

function parseOptions(argv: readonly string[]) {
  const { values: v } = parseArgs({
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
  const size = v.size.toUpperCase();
  if (size !== "S" && size !== "L") throw new Error(`--size expects S or L, found ${v.size}`);
  const only = new Set(
    (v.only ?? "local,remote").split(",").flatMap((g) => (g === "local" ? LOCAL_GROUPS : [g])),
  );
  for (const g of only) {
    if (g !== "remote" && !LOCAL_GROUPS.includes(g))
      throw new Error(`--only expects groups among local, ${LOCAL_GROUPS.join(", ")}, remote; found ${g}`);
  }
  const cwd = process.env.INIT_CWD ?? process.cwd();
  const defaults = { runs: "5", warmup: "1", seed: String(DEFAULT_SEED), delay: "20" } as const;
  const changed = (["runs", "warmup", "seed", "delay"] as const).filter((k) => v[k] !== defaults[k]);
  return {
    ...v,
    size,
    runs: count("runs", v.runs, 1),
    warmup: count("warmup", v.warmup, 0),
    seed: count("seed", v.seed, 0),
    delayMs: count("delay", v.delay, 0),
    only,
    command: [
      "pnpm bench",
      ...(size === "L" ? ["--size L"] : []),
      ...changed.map((k) => `--${k} ${v[k]}`),
    ].join(" "),
    render: v.render === undefined ? undefined : resolve(cwd, v.render),
    out: v.out
      ? resolve(cwd, v.out)
      : v.only === undefined
        ? REPORT
        : join(TREES_DIR, "BENCHMARKS-partial.md"),
  };
}

type Options = ReturnType<typeof parseOptions>;

function machine(loadStart: number): Machine {
  const cpu = cpus();
  const date = new Date().toISOString().slice(0, 10);
  const [node, platform, memGiB] = [
    process.version,
    `${process.platform} ${process.arch}`,
    totalmem() / 1024 ** 3,
  ];
  return {
    cpu: cpu[0]?.model.trim() ?? "unknown CPU",
    cores: cpu.length,
    memGiB,
    node,
    platform,
    date,
    loadStart,
    loadEnd: loadavg()[0] ?? 0,
  };
}

/** Every group `--only` asks for, in the order they run. */
async function measure(
  options: Options,
): Promise<{ groups: Record<string, Group>; manifests: Map<string, TreeManifest> }> {
  const groups: Record<string, Group> = {};
  const manifests = new Map<string, TreeManifest>();
  const has = (g: string) => options.only.has(g);
  if (LOCAL_GROUPS.some((g) => g !== "search" && has(g))) {
    for (const [size, skills] of Object.entries(SIZES).filter(([s]) => s !== "L" || options.size === "L")) {
      const t0 = performance.now();
      const { manifest, reused } = ensureTree(TREES_DIR, { skills, seed: options.seed });
      const took = ((performance.now() - t0) / 1000).toFixed(1);
      log(
        `${size}: ${reused ? "reusing" : "generated"} tree of ${manifest.skills} skills, ${manifest.files} files (${took} s)`,
      );
      manifests.set(size, manifest);
      if (has("load")) groups[`load-${size}`] = await measureLoad(manifest, size, options);
      if (has("changes")) groups[`changes-${size}`] = await measureChanges(manifest, size);
      if (size === "XS" && has("startup")) groups.startup = await measureStartup(manifest, options);
      if (size === "S" && has("doctor")) groups.doctor = await measureDoctor(manifest, options);
      if (size === "S" && has("mcp")) groups.mcp = await measureMcp(manifest, options);
    }
  }
  if (has("search")) groups.search = await measureSearch(options);
  if (has("remote")) Object.assign(groups, await measureRemote(options));
  return { groups, manifests };
}

/** One extra run of ours under `node --cpu-prof`, summarized by package and by function. */
async function profileOurs(manifest: TreeManifest, size: string) {
  const dir = join(TREES_DIR, "profiles", `${size}-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  await runChild(
    { approach: "ours", input: layoutOf(manifest) },
    { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${dir}`] },
  );
  const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
  if (!file) throw new Error(`node --cpu-prof wrote no profile in ${dir}`);
  log(`profile: ${join(dir, file)}`);
  return summarizeProfile(join(dir, file));
}

/** Fills the report's markers (starting from BENCHMARKS.md when `out` does not exist) and draws the charts beside it. */
function writeReport(out: string, results: BenchResults): void {
  const stem = basename(out).replace(/\.md$/i, "");
  const local = ["XS", "S", "L"].flatMap((size) => {
    const group = results.groups[`load-${size}`];
    return group ? [{ size, skills: Number(group.facts?.skills), stats: group.stats }] : [];
  });
  const change = ["L", "S", "XS"]
    .map((s) => results.groups[`changes-${s}`])
    .find((g) => g?.samples?.update?.length);
  const charts = {
    ...(local.length > 0 ? { scaling: `${stem}-scaling.svg` } : {}),
    ...(change ? { latency: `${stem}-latency.svg` } : {}),
  };
  mkdirSync(dirname(out), { recursive: true });
  if (charts.scaling) {
    const warm = (size: string, statMs: number) =>
      size === "XS" ? statMs + (LIMITS.warm.XS as number) : statMs * (LIMITS.warm[size] as number);
    const targets = [
      {
        label: "target for ours (floor × limit)",
        of: "ours",
        reference: REFERENCE,
        limitMs: (size: string, ms: number) => ms * (LIMITS.load[size] as number),
      },
      { label: "target for warm (stat × limit)", of: "warm", reference: WARM_REFERENCE, limitMs: warm },
    ];
    writeFileSync(join(dirname(out), charts.scaling), scalingChart(local, targets));
  }
  if (charts.latency && change) {
    const debounceMs = Number(change.facts?.debounceMs);
    const limits = { updateMs: LIMITS.updateMs, eventMs: debounceMs + LIMITS.eventOverDebounceMs };
    writeFileSync(
      join(dirname(out), charts.latency),
      latencyChart({ skills: Number(change.facts?.skills), debounceMs, ...change.samples }, limits),
    );
  }
  const template = readFileSync(existsSync(out) ? out : REPORT, "utf8");
  const { text, unplaced } = fillMarkers(template, reportBlocks(results, charts));
  writeFileSync(out, text);
  log(`wrote ${out}${unplaced.length > 0 ? ` (no markers for: ${unplaced.join(", ")})` : ""}`);
}

/** The run's exit code: 1 when an approach did not find what it should (or, with `--check`, a target was missed). */
function verdict(results: BenchResults, check: boolean): number {
  const checked = checkTargets(evaluateTargets(results));
  for (const line of checked.lines) log(`  ${line}`);
  for (const row of evaluateTargets(results, EARLIER))
    log(`  (earlier) ${row.verdict.padEnd(12)} ${row.what}: ${row.measured}`);
  const problems = Object.entries(results.groups).flatMap(([name, g]) => [
    ...(g.problem ? [`${name}: ${g.problem}`] : []),
    ...g.stats.flatMap((s) => (s.problem ? [`${name} ${s.id}: ${s.problem}`] : [])),
  ]);
  for (const p of problems) log(`MISMATCH ${p}`);
  return problems.length > 0 ? 1 : check ? checked.code : 0;
}

async function main(): Promise<number> {
  let options: Options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    log(`${errorText(error)}\n\n${USAGE}`);
    return 2;
  }
  if (options.help) {
    log(USAGE);
    return 0;
  }
  if (options.render !== undefined) {
    const read = JSON.parse(readFileSync(options.render, "utf8")) as BenchResults;
    // Notes are words about the run, not measurements: given again, they replace the run's.
    const results = options.note.length > 0 ? { ...read, notes: options.note } : read;
    writeReport(options.out, results);
    return verdict(results, options.check);
  }
  const started = performance.now();
  const loadStart = loadavg()[0] ?? 0;
  const { groups, manifests } = await measure(options);
  const { runs, warmup, seed, delayMs, command } = options;
  const partial = {
    command,
    runs,
    warmup,
    seed,
    delayMs,
    notes: options.note,
    groups,
    machine: machine(loadStart),
    durationMs: 0,
  };
  const loadMissed = evaluateTargets(partial).some((r) => r.verdict === "missed" && r.id.startsWith("load-"));
  const profiles: Record<string, ReturnType<typeof summarizeProfile>> = {};
  if (options.profile || loadMissed) {
    for (const [size, manifest] of manifests)
      if (groups[`load-${size}`]) profiles[size] = await profileOurs(manifest, size);
  }
  const results: BenchResults = {
    ...partial,
    ...(Object.keys(profiles).length > 0 ? { profiles } : {}),
    machine: machine(loadStart),
    durationMs: performance.now() - started,
  };
  mkdirSync(TREES_DIR, { recursive: true });
  writeFileSync(join(TREES_DIR, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  writeReport(options.out, results);
  return verdict(results, options.check);
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
