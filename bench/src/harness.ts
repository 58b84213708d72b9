// Fresh child processes, run interleaved, and their runs summed up as rows.
import { spawn } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { ChildTask } from "./approaches/index.js";
import { distribution, int } from "./format.js";
import type { ChildResult } from "./protocol.js";
import type { Stats, Summary } from "./results.js";

/** One measured run, with what the parent observed around it: the server's counts, a wrong result on disk. */
export interface RunRecord extends ChildResult {
  readonly server?: Readonly<Record<string, number>>;
  readonly problem?: string | undefined;
}

const here = fileURLToPath(import.meta.url);
const fromSource = here.endsWith(".ts");
const CHILD = join(dirname(here), fromSource ? "child.ts" : "child.js");

export function runChild(task: ChildTask): Promise<ChildResult> {
  const args = [...(fromSource ? ["--import", "tsx"] : []), CHILD, JSON.stringify(task)];
  // A pinned environment: a variable of the caller's shell could change the roots an approach
  // scans. Children run from the bench package, where `tsx` resolves (tests run from source).
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", TMPDIR: process.env.TMPDIR };
  const child = spawn(process.execPath, args, { cwd: resolve(dirname(here), ".."), env });
  const out = { stdout: "", stderr: "" };
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out.stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (out.stderr += chunk));
  return new Promise((done, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      const line = out.stdout.trim().split("\n").pop() ?? "";
      if (code === 0 && line.startsWith("{")) return done(JSON.parse(line) as ChildResult);
      const why = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      reject(new Error(`${task.approach} ${why}: ${(out.stderr.trim() || out.stdout.trim()).slice(-2000)}`));
    });
  });
}

/** One approach in an interleaved series: a row of its group's table. */
export interface Plan {
  readonly id: string;
  /** Builds the task of one run (e.g. with a fresh cache folder). */
  readonly task: () => ChildTask | Promise<ChildTask>;
  /** Runs after each run, warm-ups too; what it returns is added to the run's record. */
  readonly after?: ((result: ChildResult) => Partial<RunRecord>) | undefined;
  readonly check?: ((record: RunRecord) => string | undefined) | undefined;
}

/** Runs every plan `warmup + runs` times, interleaved (ABCABC…) so that machine noise hits all alike. */
type Series = { readonly warmup: number; readonly runs: number; readonly prefix: string };
export async function interleave(plans: readonly Plan[], series: Series) {
  const records = new Map<string, RunRecord[]>(plans.map((p) => [p.id, []]));
  for (let round = 0; round < series.warmup + series.runs; round++) {
    for (const plan of plans) {
      const result = await runChild(await plan.task());
      const record: RunRecord = { ...result, ...plan.after?.(result) };
      const warmup = round < series.warmup;
      if (!warmup) records.get(plan.id)?.push(record);
      const run = warmup ? "warm-up" : `run ${round - series.warmup + 1}/${series.runs}`;
      const took = `${record.ms.toFixed(1)} ms, ${(record.maxRssKB / 1024).toFixed(1)} MB, found ${record.found}`;
      process.stderr.write(`  ${series.prefix} ${run} ${plan.id}: ${took}\n`);
    }
  }
  return { stats: plans.map((plan) => statsOf(plan, records.get(plan.id) ?? [])), records };
}

export function summarize(values: readonly number[]): Summary {
  const { median, min, max } = distribution(values);
  return { median, min, max };
}

/** A plan's runs as a row: wall time, peak RSS, skills found, the first problem, the server's counts. */
export function statsOf(plan: Pick<Plan, "id" | "check">, records: readonly RunRecord[]): Stats {
  const found = records.map((r) => r.found);
  const [lo, hi] = [Math.min(...found), Math.max(...found)].map(int);
  const problem = records.map((r) => r.problem ?? plan.check?.(r)).find((p) => p !== undefined);
  const counted = Object.keys(records[0]?.server ?? {});
  const more = Object.fromEntries(counted.map((k) => [k, summarize(records.map((r) => r.server?.[k] ?? 0))]));
  return {
    id: plan.id,
    time: summarize(records.map((r) => r.ms)),
    rssMB: summarize(records.map((r) => r.maxRssKB / 1024)),
    found: lo === hi ? (lo as string) : `${lo}–${hi}`,
    problem,
    ...(counted.length > 0 ? { more } : {}),
  };
}

/** Every sample the runs' children took, by name: series concatenated, single numbers collected. */
export function samplesOf(records: readonly RunRecord[]): Record<string, number[]> {
  const samples: Record<string, number[]> = {};
  for (const r of records)
    for (const [k, v] of Object.entries(r.samples ?? {})) samples[k] = [...(samples[k] ?? []), ...[v].flat()];
  return samples;
}

/** Why a run does not match what the generator wrote, or `undefined` when it matches. */
export function mismatch(record: ChildResult, expected: { skills: number; checksum: string }) {
  if (record.found !== expected.skills) return `found ${record.found} skills, expected ${expected.skills}`;
  if (record.checksum !== undefined && record.checksum !== expected.checksum)
    return `checksum ${record.checksum}, expected ${expected.checksum}`;
  return record.failed ? `${record.failed} files failed to load` : undefined;
}
