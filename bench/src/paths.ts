// Where the bench keeps its trees and finds the CLI it measures.
import { statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { TreeManifest } from "./tree.js";

export const BENCH_DIR = resolve(fileURLToPath(import.meta.url), "../..");
export const TREES_DIR = join(BENCH_DIR, ".trees");
export const CLI = join(BENCH_DIR, "..", "apps", "demo", "dist", "cli.js");

export function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

/** Why the CLI cannot be run, or `undefined`. */
export function cliMissing(): string | undefined {
  if (statSync(CLI, { throwIfNoEntry: false })?.isFile()) return undefined;
  return `${CLI} is not built (\`pnpm turbo run build --filter=@skill/demo\`)`;
}

/** The CLI's arguments that point it at a tree: `--home`, `--cwd` and a config (written in `work`) naming the configured path. */
export function cliTreeArgs(manifest: TreeManifest, work: string): string[] {
  const config = join(work, "skill.config.json");
  writeFileSync(config, `${JSON.stringify({ skills: { paths: manifest.paths } })}\n`);
  return ["--home", manifest.home, "--cwd", manifest.cwd, "--config", config];
}

export function errorText(error: unknown): string {
  return error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
}
