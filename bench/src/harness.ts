import { spawn } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { ChildTask } from "./approaches/index.js";
import type { ChildResult } from "./protocol.js";
import type { ServerStats } from "./remote-server.js";

/** One measured run, with what the parent observed around it. */
export interface RunRecord extends ChildResult {
  /** Requests the loopback server saw during the run. */
  readonly server?: ServerStats;
  /** Why the result on disk is wrong, as checked by the parent. */
  readonly problem?: string;
}

const here = fileURLToPath(import.meta.url);
const fromSource = here.endsWith(".ts");
const CHILD = join(dirname(here), fromSource ? "child.ts" : "child.js");
/** Children run from the bench package, where `tsx` resolves when running from source (tests). */
const BENCH_DIR = resolve(dirname(here), "..");

export interface ChildOptions {
  /** Extra node flags, e.g. `--cpu-prof`. */
  readonly nodeArgs?: readonly string[];
}

/** Runs one task in a fresh `node` process and returns what it measured. */
export function runChild(task: ChildTask, options: ChildOptions = {}): Promise<ChildResult> {
  const args = [
    ...(fromSource ? ["--import", "tsx"] : []),
    ...(options.nodeArgs ?? []),
    CHILD,
    JSON.stringify(task),
  ];
  return new Promise((resolvePromise, reject) => {
    // A pinned environment: variables such as OPENCODE_DISABLE_CLAUDE_CODE in the caller's
    // shell would change which roots an approach scans, and so what it finds.
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
    };
    const child = spawn(process.execPath, args, { cwd: BENCH_DIR, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code, signal) => {
      const line = stdout.trim().split("\n").pop() ?? "";
      if (code !== 0 || !line.startsWith("{")) {
        const why = signal ? `was killed by ${signal}` : `exited with code ${code}`;
        reject(
          new Error(`${task.approach} ${why}: ${stderr.trim().slice(-2000) || stdout.trim().slice(-2000)}`),
        );
        return;
      }
      resolvePromise(JSON.parse(line) as ChildResult);
    });
  });
}

/** One approach in an interleaved series. */
export interface Plan {
  readonly id: string;
  /** Builds the task of one run (e.g. with a fresh cache directory). */
  readonly task: () => ChildTask | Promise<ChildTask>;
  readonly nodeArgs?: readonly string[];
  /** Runs after each run (warm-ups too); what it returns is added to the run's record. */
  readonly after?: (
    result: ChildResult,
  ) => Promise<Partial<RunRecord> | undefined> | Partial<RunRecord> | undefined;
}

export interface SeriesOptions {
  readonly warmup: number;
  readonly runs: number;
  readonly onRun?: (event: {
    readonly id: string;
    readonly round: number;
    readonly warmup: boolean;
    readonly record: RunRecord;
  }) => void;
}

/**
 * Runs every plan `warmup + runs` times, interleaved (ABCABC…) so that machine noise hits all
 * alike; returns the measured runs (warm-ups dropped) by plan id.
 */
export async function interleave(
  plans: readonly Plan[],
  options: SeriesOptions,
): Promise<Map<string, RunRecord[]>> {
  const records = new Map<string, RunRecord[]>(plans.map((p) => [p.id, []]));
  for (let round = 0; round < options.warmup + options.runs; round++) {
    for (const plan of plans) {
      const result = await runChild(await plan.task(), plan.nodeArgs ? { nodeArgs: plan.nodeArgs } : {});
      const record: RunRecord = { ...result, ...(await plan.after?.(result)) };
      const warmup = round < options.warmup;
      if (!warmup) records.get(plan.id)?.push(record);
      options.onRun?.({ id: plan.id, round, warmup, record });
    }
  }
  return records;
}

export interface Summary {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN };
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median =
    sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  return { median, min: sorted[0] as number, max: sorted[sorted.length - 1] as number };
}

/** What a run must have found. */
export interface Expected {
  readonly skills: number;
  readonly checksum: string;
}

/** Why a run does not match what the generator wrote, or `undefined` when it matches. */
export function mismatch(record: ChildResult, expected: Expected): string | undefined {
  if (record.found !== expected.skills) return `found ${record.found} skills, expected ${expected.skills}`;
  if (record.checksum !== undefined && record.checksum !== expected.checksum) {
    return `checksum ${record.checksum}, expected ${expected.checksum}`;
  }
  if (record.failed) return `${record.failed} files failed to load`;
  return undefined;
}
