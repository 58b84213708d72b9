import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const DIST_CJS = fileURLToPath(new URL("../dist/index.cjs", import.meta.url));
export const DIST_ESM = fileURLToPath(new URL("../dist/index.js", import.meta.url));
const SCRIPT = fileURLToPath(new URL("./pull-process.mjs", import.meta.url));

export function requireBuild(): void {
  if (!existsSync(DIST_CJS) || !existsSync(DIST_ESM)) {
    throw new Error("dist/ is missing: run `pnpm --filter @skill/remote build` before these tests");
  }
}

export interface PullProcess {
  readonly child: ChildProcess;
  /** Resolves with the exit code and what the process printed. */
  readonly done: Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>;
}

/** Starts `pull(url, { cacheDir, ...options })` in a new Node process, through the built entry. */
export function pullInProcess(
  entry: string,
  url: string,
  cacheDir: string,
  options: object = {},
): PullProcess {
  requireBuild();
  const child = spawn(process.execPath, [SCRIPT, entry, url, cacheDir, JSON.stringify(options)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const done = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}
