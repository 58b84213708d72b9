import { spawnSync } from "node:child_process";
import { stripVTControlCharacters } from "node:util";
import type { ChildOutput } from "../protocol.js";

export interface SpawnInput {
  /** Arguments after `node`: `-e 0`, a script, or the CLI's path and its arguments. */
  readonly args: readonly string[];
  /** The whole environment of the process: a clean one, so the machine's config plays no part. */
  readonly env: Readonly<Record<string, string>>;
  /** The `node` to run (default: this one), e.g. a Node 22 installed from npm; its working folder. */
  readonly node?: string;
  readonly cwd?: string;
  /**
   * How its output counts skills: `list`, the `N skills` line `skill list` ends with (default);
   * `vercel`, an `Agents:` line under each skill of Vercel's `skills list`; `installed`, the
   * `installed` list of the JSON that `skill add --json` and the copy floor print.
   */
  readonly count?: "list" | "vercel" | "installed";
}

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

/** The copy floor of `skill add`: a `node -e` script copying each skill folder of `from` into `into` with `fs.cpSync`. */
export function copyFloorScript(from: string, into: string): string {
  return `const fs = require("node:fs"), path = require("node:path");
const from = ${JSON.stringify(from)}, into = ${JSON.stringify(into)};
const names = fs.readdirSync(from).filter((n) => fs.existsSync(path.join(from, n, "SKILL.md")));
for (const n of names) fs.cpSync(path.join(from, n), path.join(into, n), { recursive: true });
process.stdout.write(JSON.stringify({ installed: names }));`;
}

/** A whole process, start to exit, timed around a synchronous spawn: every process measured so pays the same for spawning. */
export async function run(input: SpawnInput): Promise<ChildOutput> {
  const node = input.node ?? process.execPath;
  const options = {
    env: { ...input.env },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    cwd: input.cwd,
  } as const;
  const start = performance.now();
  const child = spawnSync(node, input.args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  const wallMs = performance.now() - start;
  const why = `${node} ${input.args.join(" ")} exited with ${child.status}: ${child.stderr.slice(-2000)}`;
  if (child.status !== 0) throw new Error(why);
  return { found: countSkills(child.stdout, input.count), wallMs };
}
