import { spawnSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import type { RemoteOutput } from "./types.js";

export interface AddInput {
  /** Arguments after `node`: the CLI's path and `add … --json`, or `-e` and the copy floor's script. */
  readonly args: readonly string[];
  /** The whole environment of the process: a clean one, so the machine's config plays no part. */
  readonly env: Readonly<Record<string, string>>;
}

/** Skills a run reports installed: `installed` of the JSON it printed (`skill add --json` and the copy floor alike). */
export function installedCount(stdout: string): number {
  try {
    const value = JSON.parse(stdout) as { installed?: unknown };
    return Array.isArray(value.installed) ? value.installed.length : 0;
  } catch {
    return 0;
  }
}

/**
 * The copy floor: a `node -e` script that copies every skill folder of `from` into `into` with
 * `fs.cpSync` (what any installer must at least do), then prints `{"installed":[names]}`.
 */
export function copyFloorScript(from: string, into: string): string {
  return [
    `const fs = require("node:fs"), path = require("node:path");`,
    `const from = ${JSON.stringify(from)}, into = ${JSON.stringify(into)};`,
    `const names = fs.readdirSync(from).filter((n) => fs.existsSync(path.join(from, n, "SKILL.md")));`,
    `for (const n of names) fs.cpSync(path.join(from, n), path.join(into, n), { recursive: true });`,
    `process.stdout.write(JSON.stringify({ installed: names }));`,
  ].join("\n");
}

/**
 * A whole process, start to exit: `node` with `args`, timed around a synchronous spawn (what
 * spawning costs is paid alike by `skill add` and the copy floor).
 */
export async function run(input: AddInput): Promise<RemoteOutput> {
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
  return { found: installedCount(child.stdout), wallMs: ms };
}
