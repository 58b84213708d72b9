// Shared by the tests of `skill pull`, `skill verify` and `skill show` over remote packs: a real
// HTTP server on 127.0.0.1 serving a v0.2 pack, and the built CLI run with a clean environment.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { digestOf, type Handler, type Logged, serve, staticFiles } from "@skill/test-utils";
import { CLI, type RunResult, runNode } from "./run-node.js";

export const SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";

export function skillMd(
  name: string,
  description = `The ${name} skill`,
  body = `# ${name}\n\nDo it.\n`,
): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
}

export interface PackServer {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  /** `<url>index.json` */
  readonly index: string;
  readonly requests: readonly Logged[];
  close(): Promise<void>;
}

/**
 * Serves a v0.2 pack of one-file skills, `index.json` at the root. With `dripMs`, each
 * SKILL.md sends half its bytes at once and the rest after `dripMs`: a pull stays mid-way.
 */
export function servePack(
  skills: Readonly<Record<string, string>>,
  options: { dripMs?: number } = {},
): Promise<PackServer> {
  const files = new Map(
    Object.entries(skills).map(([name, body]) => [`${name}/SKILL.md`, Buffer.from(body)]),
  );
  const index = JSON.stringify({
    $schema: SCHEMA,
    skills: Object.entries(skills).map(([name, body]) => ({
      name,
      type: "skill-md",
      description: `The ${name} skill`,
      url: `${name}/SKILL.md`,
      digest: digestOf(body),
    })),
  });
  // Each SKILL.md sends half its bytes, then the rest after dripMs.
  const drip =
    (body: Buffer, ms: number): Handler =>
    (_req, res) => {
      res.writeHead(200, { "content-length": body.length });
      res.write(body.subarray(0, body.length >> 1));
      setTimeout(() => res.end(body.subarray(body.length >> 1)), ms).unref();
    };
  const { dripMs } = options;
  const routes =
    dripMs === undefined
      ? {}
      : Object.fromEntries([...files].map(([path, body]) => [path, drip(body, dripMs)]));
  return serve(
    staticFiles(new Map<string, string | Buffer>([...files, ["index.json", index]]), { etag: false, routes }),
  );
}

/** A temp folder holding a project, a home and a cache, removed by `cleanup`. */
export async function sandbox(): Promise<{
  root: string;
  cache: string;
  /** `--cwd`, `--home` and `--cache` for the CLI. */
  base: string[];
  cleanup(): Promise<void>;
}> {
  const root = await mkdtemp(join(tmpdir(), "skill-remote-cli-"));
  const cache = join(root, "cache");
  return {
    root,
    cache,
    base: ["--cwd", root, "--home", root, "--cache", cache],
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

/** Runs the built `skill` CLI with nothing of the caller's environment. */
export function skill(args: readonly string[], cwd: string): Promise<RunResult> {
  return runNode(CLI, args, { cwd, home: cwd });
}

/** Starts the built `skill` CLI and returns the child, for a test that signals it. */
export function startSkill(
  args: readonly string[],
  cwd: string,
): {
  child: ChildProcess;
  done: Promise<RunResult>;
} {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: cwd, NO_COLOR: "1" },
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d) => {
    stdout += d;
  });
  child.stderr?.on("data", (d) => {
    stderr += d;
  });
  const done = new Promise<RunResult>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
  return { child, done };
}
