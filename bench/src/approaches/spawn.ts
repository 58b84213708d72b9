import { type SpawnSyncOptionsWithStringEncoding, spawnSync } from "node:child_process";
import { stripVTControlCharacters } from "node:util";
import type { ChildOutput } from "../protocol.js";

/** `node <args>` in the whole environment `env` (a clean one); another `node` and folder if given. */
export interface SpawnInput {
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly node?: string;
  readonly cwd?: string;
  /** `list`: the `N skills` line of `skill list`; `vercel`: its `Agents:` lines; `installed`: `--json`. */
  readonly count?: "list" | "json" | "vercel" | "installed";
}

export function countSkills(stdout: string, count: SpawnInput["count"] = "list"): number {
  if (count === "vercel") return stripVTControlCharacters(stdout).match(/^[ \t]+Agents:/gm)?.length ?? 0;
  if (count === "list") {
    // The floor ends with a count; `skill list` in a pipe writes a line per skill, fields between tabs.
    const summary = /^(\d+) skills?\b/m.exec(stdout)?.[1];
    return summary === undefined ? (stdout.match(/^[^\t\n]+\t[^\n]*\t/gm)?.length ?? 0) : Number(summary);
  }
  try {
    const { installed, skills } = JSON.parse(stdout) as { installed?: unknown; skills?: unknown };
    const counted = count === "json" ? skills : installed;
    return Array.isArray(counted) ? counted.length : 0;
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
  const options = { env: { ...input.env }, cwd: input.cwd, maxBuffer: 64 * 1024 * 1024 };
  const io: SpawnSyncOptionsWithStringEncoding = { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] };
  const start = performance.now();
  const child = spawnSync(node, input.args, { ...options, ...io });
  const wallMs = performance.now() - start;
  const why = `${node} ${input.args.join(" ")} exited with ${child.status}: ${child.stderr.slice(-2000)}`;
  if (child.status !== 0) throw new Error(why);
  return { found: countSkills(child.stdout, input.count), wallMs };
}
