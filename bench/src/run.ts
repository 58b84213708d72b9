// `pnpm bench [--size L]`: measures every group side by side, saves bench/.trees/results.json,
// fills the tables of BENCHMARKS.md between its markers and draws its two charts.
import * as fs from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import * as measure from "./measure.js";
import { BENCH_DIR, errorText, log, TREES_DIR } from "./measure.js";
import { fillMarkers, reportBlocks } from "./report.js";
import type { BenchResults, Group } from "./results.js";
import { latencyChart, scalingChart } from "./svg.js";
import { checkTargets, EARLIER, evaluateTargets, limitOf, REFERENCE, WARM_REFERENCE } from "./targets.js";
import { ensureTree } from "./tree.js";

const USAGE = `Usage: pnpm bench [--size S|L] [--runs N] [--warmup N] [--seed N] [--delay MS] [--only GROUP,…]
                  [--check] [--note TEXT] [--out FILE]
       pnpm bench --render bench/.trees/results.json [--check] [--note TEXT] [--out FILE]
Groups: load, changes, startup, doctor, mcp, search, remote, or local (all but remote). More: bench/README.md`;
const LOCAL = ["load", "changes", "startup", "doctor", "mcp", "search"];
const REPORT = join(BENCH_DIR, "..", "BENCHMARKS.md");
const DEFAULTS = { size: "S", runs: "5", warmup: "1", seed: "42", delay: "20" } as const;

function parseOptions(argv: readonly string[]) {
  const text = (value?: string) =>
    ({ type: "string", ...(value === undefined ? {} : { default: value }) }) as const;
  const flag = { type: "boolean", default: false } as const;
  const { values: v } = parseArgs({
    args: argv.filter((a) => a !== "--"),
    options: {
      size: { type: "string", default: "S" },
      runs: { type: "string", default: "5" },
      warmup: { type: "string", default: "1" },
      seed: { type: "string", default: "42" },
      delay: { type: "string", default: "20" },
      only: text(),
      out: text(),
      render: text(),
      note: { type: "string", multiple: true, default: [] },
      check: flag,
      help: { ...flag, short: "h" },
    },
  });
  const count = (name: "runs" | "warmup" | "seed" | "delay", min: number) => {
    const n = Number(v[name]);
    if (Number.isInteger(n) && n >= min) return n;
    throw new Error(`--${name} expects an integer ≥ ${min}, found ${v[name]}`);
  };
  const size = v.size.toUpperCase();
  if (size !== "S" && size !== "L") throw new Error(`--size expects S or L, found ${v.size}`);
  const only = new Set((v.only ?? "local,remote").split(",").flatMap((g) => (g === "local" ? LOCAL : [g])));
  const unknown = [...only].find((g) => g !== "remote" && !LOCAL.includes(g));
  if (unknown) throw new Error(`--only expects local, ${LOCAL.join(", ")} or remote; found ${unknown}`);
  // The command as run, with the options that change what is measured.
  const set = (["size", "runs", "warmup", "seed", "delay"] as const).filter(
    (k) => v[k].toUpperCase() !== DEFAULTS[k],
  );
  const cwd = process.env.INIT_CWD ?? process.cwd();
  const [runs, warmup, seed, delayMs] = [
    count("runs", 1),
    count("warmup", 0),
    count("seed", 0),
    count("delay", 0),
  ];
  return {
    ...v,
    ...{ size, only, runs, warmup, seed, delayMs },
    command: ["pnpm bench", ...set.map((k) => `--${k} ${v[k]}`)].join(" "),
    render: v.render && resolve(cwd, v.render),
    out: v.out ? resolve(cwd, v.out) : v.only ? join(TREES_DIR, "BENCHMARKS-partial.md") : REPORT,
  };
}

type Options = ReturnType<typeof parseOptions>;

/** Every group `--only` asks for, in the order they run. */
async function measureAll(o: Options): Promise<Pick<BenchResults, "groups">> {
  const groups: Record<string, Group> = {};
  for (const [size, skills] of Object.entries({ XS: 100, S: 1_000, L: 10_000 })) {
    if ((size === "L" && o.size !== "L") || !LOCAL.some((g) => g !== "search" && o.only.has(g))) continue;
    const t0 = performance.now();
    const { manifest, reused } = ensureTree(TREES_DIR, { skills, seed: o.seed });
    const took = ((performance.now() - t0) / 1000).toFixed(1);
    log(
      `${size}: ${reused ? "reusing" : "generated"} tree of ${skills} skills, ${manifest.files} files (${took} s)`,
    );
    if (o.only.has("load")) groups[`load-${size}`] = await measure.measureLoad(manifest, size, o);
    if (o.only.has("changes")) groups[`changes-${size}`] = await measure.measureChanges(manifest, size);
    if (size === "XS" && o.only.has("startup")) groups.startup = await measure.measureStartup(manifest, o);
    if (size === "S" && o.only.has("doctor")) groups.doctor = await measure.measureDoctor(manifest, o);
    if (size === "S" && o.only.has("mcp")) groups.mcp = await measure.measureMcp(manifest, o);
  }
  if (o.only.has("search")) groups.search = await measure.measureSearch(o);
  if (o.only.has("remote")) Object.assign(groups, await measure.measureRemote(o));
  return { groups };
}

function run(o: Options, loadStart: number, durationMs: number): BenchResults {
  const [cpu, date] = [cpus(), new Date().toISOString().slice(0, 10)];
  const [node, platform, memGiB, loadEnd] = [
    process.version,
    `${process.platform} ${process.arch}`,
    totalmem() / 1024 ** 3,
    loadavg()[0] ?? 0,
  ];
  const machine = {
    cpu: cpu[0]?.model.trim() ?? "unknown CPU",
    cores: cpu.length,
    memGiB,
    node,
    platform,
    date,
    loadStart,
    loadEnd,
  };
  const { command, runs, warmup, seed, delayMs, note: notes } = o;
  return { command, machine, runs, warmup, seed, delayMs, notes, durationMs, groups: {} };
}

/** Draws the charts beside `out`, fills its markers (from BENCHMARKS.md when `out` does not exist). */
function writeReport(out: string, results: BenchResults): void {
  const [stem, dir] = [basename(out).replace(/\.md$/i, ""), dirname(out)];
  const local = ["XS", "S", "L"].flatMap((size) => {
    const group = results.groups[`load-${size}`];
    return group ? [{ size, skills: Number(group.facts?.skills), stats: group.stats }] : [];
  });
  const change = ["L", "S", "XS"]
    .map((s) => results.groups[`changes-${s}`])
    .find((g) => g?.samples?.update?.length);
  const charts: { scaling?: string; latency?: string } = {};
  fs.mkdirSync(dir, { recursive: true });
  if (local.length > 0) {
    const warm = (size: string, ms: number) =>
      size === "XS" ? ms + limitOf("warm-XS") : ms * limitOf(`warm-${size}`);
    const targets = [
      {
        label: "target for ours (floor × limit)",
        of: "ours",
        reference: REFERENCE,
        limitMs: (size: string, ms: number) => ms * limitOf(`load-${size}`),
      },
      { label: "target for warm (stat × limit)", of: "warm", reference: WARM_REFERENCE, limitMs: warm },
    ];
    charts.scaling = `${stem}-scaling.svg`;
    fs.writeFileSync(join(dir, charts.scaling), scalingChart(local, targets));
  }
  if (change) {
    const debounceMs = Number(change.facts?.debounceMs);
    const limits = { updateMs: limitOf("update-ms"), eventMs: debounceMs + limitOf("event-ms") };
    charts.latency = `${stem}-latency.svg`;
    fs.writeFileSync(
      join(dir, charts.latency),
      latencyChart({ skills: Number(change.facts?.skills), debounceMs, ...change.samples }, limits),
    );
  }
  const { text, unplaced } = fillMarkers(
    fs.readFileSync(fs.existsSync(out) ? out : REPORT, "utf8"),
    reportBlocks(results, charts),
  );
  fs.writeFileSync(out, text);
  log(`wrote ${out}${unplaced.length > 0 ? ` (no markers for: ${unplaced.join(", ")})` : ""}`);
}

/** The exit code: 1 when an approach did not find what it should, or with `--check` when a target was missed. */
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
  let o: Options;
  try {
    o = parseOptions(process.argv.slice(2));
  } catch (error) {
    log(`${errorText(error)}\n\n${USAGE}`);
    return 2;
  }
  if (o.help) {
    log(USAGE);
    return 0;
  }
  let results: BenchResults;
  if (o.render) {
    const read = JSON.parse(fs.readFileSync(o.render, "utf8")) as BenchResults;
    // Notes are words about the run, not measurements: given again, they replace the run's.
    results = o.note.length > 0 ? { ...read, notes: o.note } : read;
  } else {
    const [started, loadStart] = [performance.now(), loadavg()[0] ?? 0];
    const measured = await measureAll(o);
    results = { ...run(o, loadStart, performance.now() - started), ...measured };
    fs.mkdirSync(TREES_DIR, { recursive: true });
    fs.writeFileSync(join(TREES_DIR, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  }
  writeReport(o.out, results);
  return verdict(results, o.check);
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
