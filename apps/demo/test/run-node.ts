import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The built `skill` binary the CLI tests run. */
export const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));

/** What a finished process printed, and how it ended. */
export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a node script with only the environment a test gives: PATH, HOME (default `cwd`),
 * NO_COLOR, then `env`. The caller's agent variables never change what a test finds.
 * Asynchronous, so a test server in the same process keeps answering.
 */
export function runNode(
  script: string,
  args: readonly string[],
  options: { cwd: string; home?: string; env?: NodeJS.ProcessEnv },
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: options.home ?? options.cwd,
      NO_COLOR: "1",
    };
    const child = spawn(process.execPath, [script, ...args], {
      cwd: options.cwd,
      env: { ...env, ...options.env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
