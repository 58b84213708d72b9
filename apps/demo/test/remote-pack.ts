// Shared by the tests of `skill pull`, `skill verify` and `skill show` over remote packs: a real
// HTTP server on 127.0.0.1 serving a v0.2 pack, and the built CLI run with a clean environment.
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, type RunResult, runNode } from "./run-node.js";

export const SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";

export function skillMd(
  name: string,
  description = `The ${name} skill`,
  body = `# ${name}\n\nDo it.\n`,
): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
}

export function digestOf(body: string | Buffer): string {
  return `sha256:${createHash("sha256").update(body).digest("hex")}`;
}

export interface PackServer {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  /** `<url>index.json` */
  readonly index: string;
  readonly requests: { path: string; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

/**
 * Serves a v0.2 pack of one-file skills, `index.json` at the root. With `dripMs`, each
 * SKILL.md sends half its bytes at once and the rest after `dripMs`: a pull stays mid-way.
 */
export async function servePack(
  skills: Readonly<Record<string, string>>,
  options: { dripMs?: number } = {},
): Promise<PackServer> {
  const bodies = new Map(
    Object.entries(skills).map(([name, body]) => [`/${name}/SKILL.md`, Buffer.from(body)]),
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
  const requests: PackServer["requests"] = [];
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] as string;
    requests.push({ path, headers: req.headers });
    if (path === "/index.json") {
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(index) });
      res.end(index);
      return;
    }
    const body = bodies.get(path);
    if (!body) {
      res.writeHead(404).end("not found\n");
      return;
    }
    res.writeHead(200, { "content-length": body.length });
    if (options.dripMs === undefined) {
      res.end(body);
      return;
    }
    res.write(body.subarray(0, body.length >> 1));
    setTimeout(() => res.end(body.subarray(body.length >> 1)), options.dripMs).unref();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/`;
  return {
    url,
    index: `${url}index.json`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
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

/** Polls `check` until it holds (or throws after `timeoutMs`). */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not reached in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
