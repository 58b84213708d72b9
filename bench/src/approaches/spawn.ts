import { spawnSync } from "node:child_process";
import { stripVTControlCharacters } from "node:util";
import type { ChildOutput } from "../protocol.js";

export interface SpawnInput {
  /** Arguments after `node`: `-e 0`, a script, or the CLI's path and its arguments. */
  readonly args: readonly string[];
  /** The whole environment of the process: a clean one, so the machine's config plays no part. */
  readonly env: Readonly<Record<string, string>>;
  /** The `node` to run (default: the one running the bench), e.g. a Node 22 installed from npm. */
  readonly node?: string;
  /** Working folder of the process (default: the bench's). */
  readonly cwd?: string;
  /**
   * How its output counts skills: `list`, the `N skills` line `skill list` ends with (default);
   * `vercel`, the `Agents:` line Vercel's `skills list` prints under each skill; `installed`, the
   * `installed` list of the JSON `skill add --json` and the copy floor print.
   */
  readonly count?: "list" | "vercel" | "installed";
}

/** The skills a process's output reports, counted as {@link SpawnInput.count} says. */
export function countSkills(stdout: string, count: SpawnInput["count"] = "list"): number {
  if (count === "vercel") return stripVTControlCharacters(stdout).match(/^[ \t]+Agents:/gm)?.length ?? 0;
  if (count === "list") return Number(/^(\d+) skills?\b/m.exec(stdout)?.[1] ?? 0);
  try {
    const { installed } = JSON.parse(stdout) as { installed?: unknown };
    return Array.isArray(installed) ? installed.length : 0;
  } catch {
    return 0;
  }
}

/**
 * The copy floor of `skill add`: a `node -e` script that copies every skill folder of `from` into
 * `into` with `fs.cpSync` (what any installer must at least do), then prints `{"installed":[names]}`.
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
 * A whole process, start to exit, timed around a synchronous spawn: every process measured this
 * way (`skill list`, `node -e 0`, `skill add`, the copy floor) pays the same for spawning.
 */
export async function run(input: SpawnInput): Promise<ChildOutput> {
  const start = performance.now();
  const node = input.node ?? process.execPath;
  const child = spawnSync(node, input.args, {
    env: { ...input.env },
    ...(input.cwd === undefined ? {} : { cwd: input.cwd }),
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 64 * 1024 * 1024,
  });
  const wallMs = performance.now() - start;
  if (child.status !== 0)
    throw new Error(
      `${node} ${input.args.join(" ")} exited with ${child.status}: ${child.stderr.slice(-2000)}`,
    );
  return { found: countSkills(child.stdout, input.count), wallMs };
}
