// @module-tag slow: every test here runs the built `skill` CLI in a child process.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLI, type RunResult } from "../test/run-node.js";

// The CLI and the MCP servers it starts with --mcp: each started once per command, and ended
// with whatever they started, whatever they do.

const fixture = fileURLToPath(new URL("../test/mcp-server.mjs", import.meta.url));
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "skill-mcp-servers-"));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function quoted(word: string): string {
  return `'${word.replace(/'/g, "'\\''")}'`;
}

/** The --mcp command line that starts the fixture server with `flags`. */
function server(...flags: string[]): string {
  return [process.execPath, fixture, ...flags].map(quoted).join(" ");
}

/** Runs the built CLI with a clean environment; a run still going after `ms` is killed (`timedOut`). */
function skill(args: readonly string[], ms = 20_000): Promise<RunResult & { timedOut: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, "--home", dir, ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, NO_COLOR: "1" },
    });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, ms);
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(timer);
      // Not "close": a process that holds the CLI's pipes must not hold the test too.
      setTimeout(() => resolve({ code, stdout, stderr, timedOut }), 100);
    });
  });
}

/** Whether a process runs: a zombie no one has reaped yet (a container's init may not) has ended. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z /s.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true; // no /proc: kill(0) is all there is to go on
  }
}

async function gone(pid: number, ms: number): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
    if (!alive(pid)) return true;
  }
  return !alive(pid);
}

async function lines(file: string): Promise<string[]> {
  return (await readFile(file, "utf8")).trim().split("\n");
}

describe("skill and the MCP servers it starts", { timeout: 60_000 }, () => {
  it.skipIf(process.platform === "win32")(
    "skill list exits once it has printed when a server left a process holding its stdout, and ends that process",
    async () => {
      const helperFile = join(dir, "helper.pid");
      const result = await skill(["--json", "list", "--mcp", server("--helper", helperFile)]);
      const helpers = (await lines(helperFile)).map(Number);
      try {
        expect(result.timedOut).toBe(false);
        expect(result.code).toBe(0);
        const data = JSON.parse(result.stdout) as { skills: { name: string }[] };
        expect(data.skills.map((s) => s.name)).toEqual(["demo"]);
        for (const helper of helpers) expect(await gone(helper, 5_000)).toBe(true);
      } finally {
        for (const helper of helpers) if (alive(helper)) process.kill(helper, "SIGKILL");
      }
    },
  );

  it.each([
    ["list", ["list"]],
    ["show", ["show", "demo"]],
  ])("skill %s starts each --mcp server once", async (_name, command) => {
    const starts = join(dir, "starts.txt");
    const result = await skill([...command, "--mcp", server("--starts", starts)]);
    expect(result.code, result.stderr).toBe(0);
    expect(await lines(starts)).toHaveLength(1);
  });
});

describe("skill show --mcp when the skill cannot be shown", { timeout: 60_000 }, () => {
  it("says only why a server asked for with --mcp failed, not that the skill was not found", async () => {
    const failing = [process.execPath, "-e", "console.error('boom: bad config'); process.exit(3)"];
    const result = await skill(["show", "demo", "--mcp", failing.map(quoted).join(" ")]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("could not start the MCP server");
    expect(result.stderr).toContain("boom: bad config");
    expect(result.stderr).not.toMatch(/not found|Available skills/);
  });

  it("says only why the server's skill could not be read, not that it was not found", async () => {
    const result = await skill(["show", "demo", "--mcp", server("--no-head", "--fail-read")]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Could not read "skill://fixture/demo/SKILL.md"');
    expect(result.stderr).not.toMatch(/not found|Available skills|may be it/);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("still says a name no server lists is not found, with the names there are", async () => {
    const result = await skill(["show", "demp", "--mcp", server()]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Skill "demp" not found. Did you mean "demo"?');
  });
});

describe("Ctrl-C while skill waits on an MCP server", { timeout: 60_000 }, () => {
  it.skipIf(process.platform === "win32")(
    "ends the server and what it started (they no longer share the terminal's process group), then ends as Ctrl-C would",
    async () => {
      const helperFile = join(dir, "helper.pid");
      const child = spawn(
        process.execPath,
        [CLI, "--home", dir, "list", "--mcp", server("--helper", helperFile, "--hang-list")],
        { cwd: dir, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, NO_COLOR: "1" } },
      );
      const ended = new Promise<NodeJS.Signals | number | null>((resolve) =>
        child.on("exit", (code, signal) => resolve(signal ?? code)),
      );
      let helpers: number[] = [];
      try {
        // The server has started (and started its helper) and is asked for skills/list.
        for (let i = 0; i < 200 && helpers.length === 0; i++) {
          await new Promise((r) => setTimeout(r, 50));
          helpers = await lines(helperFile).then(
            (l) => l.map(Number),
            () => [],
          );
        }
        expect(helpers).toHaveLength(1);
        await new Promise((r) => setTimeout(r, 300));
        child.kill("SIGINT");
        const timeout = new Promise((r) => setTimeout(() => r("still running"), 10_000));
        expect(await Promise.race([ended, timeout])).toBe("SIGINT");
        for (const helper of helpers) expect(await gone(helper, 5_000)).toBe(true);
      } finally {
        child.kill("SIGKILL");
        for (const helper of helpers) if (alive(helper)) process.kill(helper, "SIGKILL");
      }
    },
  );
});
