import { spawn, spawnSync } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunResult, runNode } from "../../../test/run-node.js";
import { splitCommand } from "../../mcp.js";

const cli = fileURLToPath(new URL("../../../dist/cli.js", import.meta.url));
const examples = fileURLToPath(new URL("../../../../../examples/", import.meta.url));
/** Any JSON object, as a Standard Schema: the SDK's v2 `request` takes one for a custom method. */
const anyResult = {
  "~standard": {
    version: 1,
    vendor: "test",
    validate: (value: unknown) => ({ value: value as Record<string, unknown> }),
  },
} as const;

let root: string;
let project: string;
/** The server's environment: nothing of the caller's, its caches in the test's folder. */
const serverEnv = () => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: home,
  XDG_CACHE_HOME: join(root, "cache"),
});
let home: string;
let empty: string;

function quoted(word: string): string {
  return `'${word.replace(/'/g, "'\\''")}'`;
}

/** The command line that starts `skill serve-mcp` for the example project. */
function serveLine(...extra: string[]): string {
  return [process.execPath, cli, "serve-mcp", "--cwd", project, "--home", home, ...extra]
    .map(quoted)
    .join(" ");
}

function run(args: readonly string[], cwd: string): Promise<RunResult> {
  return runNode(cli, args, { cwd });
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "skill-serve-mcp-"));
  project = join(root, "project");
  home = join(root, "home");
  empty = join(root, "empty");
  await cp(join(examples, "project"), project, { recursive: true });
  await mkdir(home, { recursive: true });
  await mkdir(empty, { recursive: true });
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const hasScript = spawnSync("script", ["--version"]).status === 0;

// Each test starts one or two node processes: generous bounds for a loaded machine.
describe("skill serve-mcp", { tags: ["slow"], timeout: 30_000 }, () => {
  it.skipIf(!hasScript)("tells a person at a terminal what it serves and how to stop it, on stderr", () => {
    // util-linux `script` gives it a terminal; its stdin at end, the server ends at once.
    const command = [process.execPath, cli, "serve-mcp", "--cwd", project, "--home", home]
      .map(quoted)
      .join(" ");
    const seen = spawnSync("script", ["-qefc", command, "/dev/null"], {
      env: { ...serverEnv(), NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(seen.stdout).toContain("skill serve-mcp: serving 7 skills to agent 'build' over stdio");
    expect(seen.stdout).toContain("Ctrl-C stops it");
  });

  it.each(["2026-07-28", "2025-11-25"])(
    "answers a real SDK (v2) client over stdio at protocol %s with the skills the agent sees",
    async (era) => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [cli, "serve-mcp", "--cwd", project, "--home", home, "--agent", "review"],
        env: serverEnv(),
        stderr: "pipe",
      });
      const client =
        era === "2025-11-25"
          ? new Client({ name: "test", version: "1.0.0" })
          : new Client({ name: "test", version: "1.0.0" }, { versionNegotiation: { mode: { pin: era } } });
      await client.connect(transport);
      try {
        expect(client.getNegotiatedProtocolVersion()).toBe(era);
        expect(client.getServerCapabilities()?.extensions?.["io.modelcontextprotocol/skills"]).toEqual({
          directoryRead: true,
        });
        const list = (await client.request({ method: "skills/list", params: {} }, anyResult)) as {
          skills: { uri: string; frontmatter: { name: string } }[];
          ttlMs: number;
          cacheScope: string;
        };
        expect([list.ttlMs, list.cacheScope]).toEqual([0, "public"]);
        // The review agent is denied internal-*; the broken skill does not load.
        expect(list.skills.map((s) => s.uri)).toEqual(
          ["code-review", "commit-messages", "e2e", "pdf-tools", "release-notes", "testing"].map(
            (n) => `skill://skills/${n}/SKILL.md`,
          ),
        );
        const denied = await client
          .request(
            { method: "skills/get", params: { uri: "skill://skills/internal-deploy/SKILL.md" } },
            anyResult,
          )
          .then(
            () => undefined,
            (e: unknown) => e,
          );
        expect(denied).toBeInstanceOf(ProtocolError);
        expect((denied as ProtocolError).code).toBe(ProtocolErrorCode.InvalidParams);
        const read = await client.readResource({ uri: "skill://skills/testing/SKILL.md" });
        expect(read.contents[0]).toMatchObject({
          text: await readFile(join(project, ".agents/skills/testing/SKILL.md"), "utf8"),
        });
        // e2e is a skill nested in testing's folder: served as its own skill, never as testing's file.
        await expect(
          client.readResource({ uri: "skill://skills/testing/e2e/SKILL.md" }),
        ).rejects.toBeInstanceOf(ProtocolError);
      } finally {
        await client.close();
      }
    },
  );

  it("answers a uri of the wrong type with -32602 in one sentence, and quotes a 1 MiB URI cut short", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cli, "serve-mcp", "--cwd", project, "--home", home],
      env: serverEnv(),
      stderr: "pipe",
    });
    const client = new Client({ name: "test", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    await client.connect(transport);
    const failure = async (method: string, params: Record<string, unknown>) =>
      (await client.request({ method, params }, anyResult).then(
        () => undefined,
        (e: unknown) => e,
      )) as ProtocolError;
    try {
      for (const method of ["skills/get", "resources/read"]) {
        const error = await failure(method, { uri: 42 });
        expect(error.code, method).toBe(ProtocolErrorCode.InvalidParams);
        expect(error.message, method).toBe(`Invalid params for ${method}: uri must be a string, found 42`);
      }
      const long = await failure("resources/read", { uri: `skill://skills/${"x".repeat(1024 * 1024)}` });
      expect(long.code).toBe(ProtocolErrorCode.InvalidParams);
      expect(long.message.length).toBeLessThan(400);
    } finally {
      await client.close();
    }
  });

  it("refuses a --prefix with a .. segment before serving anything", async () => {
    const { code, stdout, stderr } = await run(
      ["serve-mcp", "--cwd", project, "--home", home, "--prefix", "../x"],
      root,
    );
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toContain("prefix must be URI path segments");
    expect(stderr).toContain('"../x"');
  });

  it("exits when the client closes its stdin", async () => {
    const child = spawn(process.execPath, [cli, "serve-mcp", "--cwd", project, "--home", home], {
      env: serverEnv(),
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    child.stdin.end();
    expect(await exited).toBe(0);
  });
});

describe("skill list --mcp", { tags: ["slow"], timeout: 30_000 }, () => {
  it("adds the skills of an MCP server started over stdio", async () => {
    const { code, stdout, stderr } = await run(
      ["--home", home, "--json", "list", "--mcp", serveLine()],
      empty,
    );
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const data = JSON.parse(stdout) as { skills: { name: string; location: string; source: string }[] };
    expect(data.skills.map((s) => s.name)).toEqual([
      "code-review",
      "commit-messages",
      "e2e",
      "internal-deploy",
      "pdf-tools",
      "release-notes",
      "testing",
    ]);
    for (const s of data.skills) {
      expect(s.location).toBe(`skill://skills/${s.name}/SKILL.md`);
      expect(s.source).toBe("mcp:cli-serve-mcp");
    }
  });

  it("reads the mcp list of skill.config.json, running each command in the config's folder", async () => {
    const dir = join(root, "configured");
    await mkdir(dir, { recursive: true });
    const line = [process.execPath, cli, "serve-mcp", "--cwd", "../project", "--home", "../home"]
      .map(quoted)
      .join(" ");
    await writeFile(join(dir, "skill.config.json"), JSON.stringify({ mcp: [line] }));
    // A project config's servers start only in a trusted folder: --trust for this run.
    const { code, stdout } = await run(["--home", home, "--json", "--trust", "list"], dir);
    expect(code).toBe(0);
    const data = JSON.parse(stdout) as { skills: { name: string; source: string }[] };
    expect(data.skills).toHaveLength(7);
    expect(new Set(data.skills.map((s) => s.source))).toEqual(new Set(["mcp:cli-serve-mcp"]));
  });

  it("numbers sources whose commands read the same (their same URIs load once)", async () => {
    const { stdout } = await run(
      ["--home", home, "--json", "list", "--mcp", serveLine(), "--mcp", serveLine()],
      empty,
    );
    const data = JSON.parse(stdout) as { shadowed: { kept: string }[]; skills: { source: string }[] };
    expect(new Set(data.skills.map((s) => s.source))).toEqual(new Set(["mcp:cli-serve-mcp-2"]));
    expect(data.skills).toHaveLength(7);
    expect(data.shadowed).toEqual([]);
  });

  it("reports a server asked for with --mcp that cannot start on stderr, lists the rest, exits 1", async () => {
    const { code, stdout, stderr } = await run(
      ["--home", home, "--json", "list", "--mcp", join(root, "no-such-server")],
      empty,
    );
    expect(code).toBe(1);
    expect(stderr).toContain("no-such-server");
    const data = JSON.parse(stdout) as { skills: unknown[]; warnings: { code: string; message: string }[] };
    expect(data.skills).toEqual([]);
    expect(data.warnings.map((w) => w.code)).toEqual(["mcp-connect-failed"]);
    expect(data.warnings[0]?.message).toContain("no-such-server");
  });
});

describe("--timeout and MCP servers", { tags: ["slow"] }, () => {
  it("gives a server that never answers --timeout, not the default 30 s", async () => {
    const silent = `'${process.execPath}' -e 'setInterval(() => {}, 1000)'`;
    const dir = await mkdtemp(join(tmpdir(), "skill-mcp-timeout-"));
    const started = performance.now();
    const { code, stderr } = await run(["--home", dir, "--timeout", "800", "list", "--mcp", silent], dir);
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(code).toBe(1);
    expect(stderr).toMatch(/mcp:/);
    await rm(dir, { recursive: true, force: true });
  }, 30_000);
});

describe("splitCommand", () => {
  it("splits words and honours quotes and backslashes", () => {
    expect(splitCommand(`node "a b.js"  --x 'it''s' c\\ d ""`)).toEqual([
      "node",
      "a b.js",
      "--x",
      "its",
      "c d",
      "",
    ]);
  });

  it("refuses an empty command and an unclosed quote", () => {
    expect(() => splitCommand("   ")).toThrow(/empty/);
    expect(() => splitCommand(`node "x`)).toThrow(/Unclosed "/);
  });
});
