import { spawnSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import type { LocalOutput } from "./types.js";

export interface StartupInput {
  /** Arguments after `node` (e.g. `["-e", "0"]`, or the CLI's path and its arguments). */
  readonly args: readonly string[];
  /** The whole environment of the process: a clean one, so the machine's config plays no part. */
  readonly env: Readonly<Record<string, string>>;
}

/** `N skills` on a line of its own: the summary `skill list` ends with. */
export function skillsListed(stdout: string): number {
  const match = /^(\d+) skills?\b/m.exec(stdout);
  return match ? Number(match[1]) : 0;
}

/**
 * A whole process, start to exit: `node` with `args`, timed around a synchronous spawn. The
 * timing includes what spawning costs; every command run this way pays the same.
 */
export async function run(input: StartupInput): Promise<LocalOutput> {
  const start = performance.now();
  const child = spawnSync(process.execPath, input.args, {
    env: { ...input.env },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = performance.now() - start;
  if (child.status !== 0) {
    throw new Error(`node ${input.args.join(" ")} exited with ${child.status}: ${child.stderr.slice(-2000)}`);
  }
  return { found: skillsListed(child.stdout), wallMs: ms };
}
