// `pnpm bench [--size L]`: measures every group side by side, saves bench/.trees/results.json,
// fills the tables of BENCHMARKS.md between its markers and draws its two charts.
import * as fs from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { BENCH_DIR, errorText, LOCAL_GROUPS, log, measureAll, TREES_DIR } from "./measure.js";
import { fillMarkers, reportBlocks } from "./report.js";
import type { BenchResults } from "./results.js";
import { latencyChart, scalingChart } from "./svg.js";
import { checkTargets, evaluateTargets } from "./targets.js";

const REPORT = join(BENCH_DIR, "..", "BENCHMARKS.md");
const DEFAULTS = { size: "S", runs: "5", warmup: "1", seed: "42", delay: "20" } as const;
const NUMBERS = ["runs", "warmup", "seed", "delay"] as const;

function parseOptions(argv: readonly string[]) {
  const numbers = Object.fromEntries(
    Object.entries(DEFAULTS).map(([k, v]) => [k, { type: "string", default: v } as const]),
  ) as Record<keyof typeof DEFAULTS, { type: "string"; default: string }>;
  const { values: v } = parseArgs({
    args: argv.filter((a) => a !== "--"),
    options: {
      ...numbers,
      ...{ only: { type: "string" }, out: { type: "string" }, render: { type: "string" } },
      check: { type: "boolean", default: false },
    },
  });
  const [runs, warmup, seed, delayMs] = NUMBERS.map((name) => {
    const [n, least] = [Number(v[name]), name === "runs" ? 1 : 0];
    if (Number.isInteger(n) && n >= least) return n;
    throw new Error(`--${name} expects an integer ≥ ${least}, found ${v[name]}`);
  }) as [number, number, number, number];
  const size = v.size.toUpperCase();
  if (size !== "S" && size !== "L") throw new Error(`--size expects S or L, found ${v.size}`);
  const only = (v.only ?? "local,remote").split(",").flatMap((g) => (g === "local" ? LOCAL_GROUPS : [g]));
  const unknown = only.find((g) => g !== "remote" && !LOCAL_GROUPS.includes(g));
  if (unknown)
    throw new Error(`--only expects local, ${LOCAL_GROUPS.join(", ")} or remote; found ${unknown}`);
  // The command as run, with the options that change what is measured.
  const set = (["size", ...NUMBERS] as const).filter((k) => v[k].toUpperCase() !== DEFAULTS[k]);
  const cwd = process.env.INIT_CWD ?? process.cwd();
  return {
    ...{ ...v, size, only: new Set(only), runs, warmup, seed, delayMs },
    command: ["pnpm bench", ...set.map((k) => `--${k} ${v[k]}`)].join(" "),
    render: v.render && resolve(cwd, v.render),
    out: v.out ? resolve(cwd, v.out) : v.only ? join(TREES_DIR, "BENCHMARKS-partial.md") : REPORT,
  };
}

/** Draws the charts beside `out`, fills its markers (from BENCHMARKS.md when `out` does not exist). */
function writeReport(out: string, results: BenchResults): void {
  const [stem, dir] = [basename(out).replace(/\.md$/i, ""), dirname(out)];
  const charts: Record<string, string> = {};
  fs.mkdirSync(dir, { recursive: true });
  const drawn = { scaling: scalingChart(results), latency: latencyChart(results) };
  for (const [name, svg] of Object.entries(drawn)) {
    if (!svg) continue;
    charts[name] = `${stem}-${name}.svg`;
    fs.writeFileSync(join(dir, charts[name]), svg);
  }
  const blocks = reportBlocks(results, charts);
  const { text, unplaced } = fillMarkers(fs.readFileSync(fs.existsSync(out) ? out : REPORT, "utf8"), blocks);
  fs.writeFileSync(out, text);
  log(`wrote ${out}${unplaced.length > 0 ? ` (no markers for: ${unplaced.join(", ")})` : ""}`);
}

/** The exit code: 1 when an approach did not find what it should, or with `--check` when a target was missed. */
function verdict(results: BenchResults, check: boolean): number {
  const checked = checkTargets(evaluateTargets(results));
  for (const line of checked.lines) log(`  ${line}`);
  const problems = Object.entries(results.groups).flatMap(([name, g]) => [
    ...(g.problem ? [`${name}: ${g.problem}`] : []),
    ...g.stats.flatMap((s) => (s.problem ? [`${name} ${s.id}: ${s.problem}`] : [])),
  ]);
  for (const p of problems) log(`MISMATCH ${p}`);
  return problems.length > 0 ? 1 : check ? checked.code : 0;
}

async function measure(o: ReturnType<typeof parseOptions>): Promise<BenchResults> {
  const [started, loadStart] = [performance.now(), loadavg()[0] ?? 0];
  const groups = await measureAll(o);
  const cpu = cpus();
  const machine = {
    ...{ cpu: cpu[0]?.model.trim() ?? "unknown CPU", cores: cpu.length, memGiB: totalmem() / 1024 ** 3 },
    ...{ node: process.version, platform: `${process.platform} ${process.arch}` },
    ...{ date: new Date().toISOString().slice(0, 10), loadStart, loadEnd: loadavg()[0] ?? 0 },
  };
  const { command, runs, warmup, seed, delayMs } = o;
  const durationMs = performance.now() - started;
  const results = { command, machine, runs, warmup, seed, delayMs, durationMs, groups };
  fs.mkdirSync(TREES_DIR, { recursive: true });
  fs.writeFileSync(join(TREES_DIR, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  return results;
}

let o: ReturnType<typeof parseOptions> | undefined;
try {
  o = parseOptions(process.argv.slice(2));
  const read = o.render && (JSON.parse(fs.readFileSync(o.render, "utf8")) as BenchResults);
  const results = read || (await measure(o));
  writeReport(o.out, results);
  process.exitCode = verdict(results, o.check);
} catch (error) {
  // A wrong option in one line; anything else with its stack.
  const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
  log(o ? stack : `${errorText(error)} (options: bench/README.md)`);
  process.exitCode = 2;
}
