import { spawnSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { stripVTControlCharacters } from "node:util";
import type { LocalOutput } from "./types.js";

export interface StartupInput {
  /** Arguments after `node` (e.g. `["-e", "0"]`, or the CLI's path and its arguments). */
  readonly args: readonly string[];
  /** The whole environment of the process: a clean one, so the machine's config plays no part. */
  readonly env: Readonly<Record<string, string>>;
  /** The `node` to run (default: the one running the bench), e.g. a Node 22 installed from npm. */
  readonly node?: string;
  /** Working folder of the process (default: the bench's). */
  readonly cwd?: string;
  /** How the skills listed are counted: `skill list`'s summary line (default) or Vercel's `skills list`. */
  readonly listing?: "skill" | "vercel";
}

/** `N skills` on a line of its own: the summary `skill list` ends with. */
export function skillsListed(stdout: string): number {
  const match = /^(\d+) skills?\b/m.exec(stdout);
  return match ? Number(match[1]) : 0;
}

/** Vercel's `skills list` prints each skill as a name line, then an `Agents: … Source: …` line. */
export function vercelSkillsListed(stdout: string): number {
  return stripVTControlCharacters(stdout)
    .split("\n")
    .filter((line) => /^\s+Agents:/.test(line)).length;
}

/**
 * A whole process, start to exit: `node` with `args`, timed around a synchronous spawn. The
 * timing includes what spawning costs; every command run this way pays the same.
 */
export async function run(input: StartupInput): Promise<LocalOutput> {
  const start = performance.now();
  const node = input.node ?? process.execPath;
  const child = spawnSync(node, input.args, {
    env: { ...input.env },
    ...(input.cwd === undefined ? {} : { cwd: input.cwd }),
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = performance.now() - start;
  if (child.status !== 0) {
    throw new Error(
      `${node} ${input.args.join(" ")} exited with ${child.status}: ${child.stderr.slice(-2000)}`,
    );
  }
  const found = input.listing === "vercel" ? vercelSkillsListed(child.stdout) : skillsListed(child.stdout);
  return { found, wallMs: ms };
}
