import type { Client } from "@modelcontextprotocol/client";
import type { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import {
  type Diagnostic,
  printable,
  type ScanContext,
  SkillError,
  type SkillService,
  type SkillSource,
} from "@skill/core";
import { createSkillsServer, type SkillsServerOptions } from "./server.js";
import { type McpSourceOptions, mcpSource, sourceLimits } from "./source.js";

/** Options of {@link mcpStdioSource}. */
export interface McpStdioSourceOptions extends McpSourceOptions {
  /** Working directory of the server process (default: this process's). */
  readonly cwd?: string;
  /**
   * Environment of the server process. Default: the SDK's safe subset of this process's
   * environment (`HOME`, `PATH`, `USER`…), so secrets are not handed to the server.
   */
  readonly env?: Readonly<Record<string, string>>;
}

/** A source that owns the server process it started; `close()` ends it. */
export interface McpStdioSource extends SkillSource {
  close(): Promise<void>;
}

/** Characters of the server's stderr kept to explain a failed start: its first ones. */
const STDERR_HEAD = 4_000;
/** Characters of it quoted in the diagnostic. */
const STDERR_QUOTED = 300;

/**
 * The first meaningful lines of a server's stderr: the real error comes first, a stack trace
 * or a usage text after it.
 */
function firstLines(stderr: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "" && !/^at\s/.test(l) && !/^\^+$/.test(l));
  let out = "";
  for (const line of lines) {
    const next = out === "" ? line : `${out} | ${line}`;
    if (next.length > STDERR_QUOTED) return out === "" ? `${line.slice(0, STDERR_QUOTED)}…` : `${out} …`;
    out = next;
  }
  return out;
}

/**
 * An {@link mcpSource} over an MCP server started as a child process and spoken to over its
 * stdin and stdout, with the SDK's v2 client (`@modelcontextprotocol/client`, a peer dependency
 * loaded at the first scan): protocol 2026-07-28 when the server offers it (`server/discover`),
 * else the 2025 handshake. The process starts at the first scan and stays up for reads until
 * `close()`. A server that cannot be started or fails the handshake is a scan diagnostic
 * (`mcp-connect-failed`, with the first lines of its stderr), never a crash.
 *
 * @example
 * const docs = mcpStdioSource("npx", ["-y", "docs-mcp-server"], { id: "mcp:docs" });
 * const service = new SkillService({ sources: [docs] });
 * await service.discoverAndLoad();
 * // … later
 * await docs.close();
 *
 * @throws SkillError `INVALID_FIELD` for a `timeoutMs`, `maxPages` or `maxSkills` that is not a
 *   whole number >= 1
 */
export function mcpStdioSource(
  command: string,
  args: readonly string[] = [],
  options: McpStdioSourceOptions = {},
): McpStdioSource {
  const id = options.id ?? `mcp:${[command, ...args].join(" ")}`;
  // Checked now, not at the first scan: a wrong option is the caller's mistake, not the server's.
  const { timeout } = sourceLimits(options, "mcpStdioSource");
  type Connection = Promise<{ client: Client; transport: StdioClientTransport }>;
  let connecting: Connection | undefined;
  let stderr = "";

  function connect(signal: AbortSignal | undefined) {
    if (connecting) return connecting;
    const attempt: Connection = (async () => {
      const [{ Client }, { StdioClientTransport }] = await Promise.all([
        import("@modelcontextprotocol/client"),
        import("@modelcontextprotocol/client/stdio"),
      ]);
      const transport = new StdioClientTransport({
        command,
        args: [...args],
        stderr: "pipe",
        ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
        ...(options.env === undefined ? {} : { env: { ...options.env } }),
      });
      stderr = "";
      transport.stderr?.on("data", (chunk: Buffer) => {
        if (stderr.length < STDERR_HEAD) stderr = (stderr + chunk.toString("utf8")).slice(0, STDERR_HEAD);
      });
      // One deadline for the whole start: the era probe (server/discover, on a sibling process)
      // gets half of it, so a legacy server that ignores the probe still has time to answer
      // initialize; a server that answers neither is given up on when it passes.
      const client = new Client(
        { name: "@skill/mcp", version: "0" },
        { versionNegotiation: { mode: "auto", probe: { timeoutMs: Math.max(1, Math.floor(timeout / 2)) } } },
      );
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          client.connect(transport, { timeout, ...(signal ? { signal } : {}) }),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no handshake within ${timeout} ms`)), timeout);
          }),
        ]);
      } catch (error) {
        // A server that did not answer in time is killed now: its stdin closing would take it
        // seconds (or forever) to notice, and neither the scan nor this process should wait.
        const pid = transport.pid;
        if (pid !== null) {
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            // already gone
          }
        }
        void client.close().catch(() => undefined);
        void transport.close().catch(() => undefined);
        throw error;
      } finally {
        clearTimeout(timer);
      }
      // A server that exits is started again by the next scan.
      client.onclose = () => {
        if (connecting === attempt) connecting = undefined;
      };
      return { client, transport };
    })();
    connecting = attempt;
    attempt.catch(() => {
      if (connecting === attempt) connecting = undefined; // the next scan tries again
    });
    return attempt;
  }

  return {
    id,
    async scan(ctx: ScanContext) {
      let client: Client;
      try {
        ({ client } = await connect(ctx.signal ?? options.signal));
      } catch (error) {
        if (ctx.signal?.aborted || options.signal?.aborted) {
          throw new SkillError("ABORTED", `Starting ${id} was aborted`, { cause: error });
        }
        const head = firstLines(stderr);
        const diagnostic: Diagnostic = {
          code: "mcp-connect-failed",
          severity: "warning",
          message: `${id}: could not start the MCP server: ${printable((error as Error).message ?? String(error))}${head ? ` (stderr: ${printable(head)})` : ""}`,
          path: id,
          source: id,
        };
        return { entries: [], dirs: [], diagnostics: [diagnostic] };
      }
      return mcpSource(client, { ...options, id }).scan(ctx);
    },
    async close() {
      const open = connecting;
      connecting = undefined;
      if (!open) return;
      const { client } = await open.catch(() => ({ client: undefined }));
      await client?.close();
    },
  };
}

/** Options of {@link serveStdio}. */
export interface ServeStdioOptions extends SkillsServerOptions {
  /** Where requests come from and answers go (default `process.stdin` and `process.stdout`). */
  readonly stdin?: NodeJS.ReadableStream & { pause(): unknown };
  readonly stdout?: NodeJS.WritableStream;
}

/**
 * Serves the skills of a loaded {@link SkillService} over stdio (see {@link registerSkills})
 * until the client closes stdin, with the SDK's v2 stdio entry (`@modelcontextprotocol/server`,
 * a peer dependency): a 2026-07-28 client is served through `server/discover`, a 2025-11-25 one
 * through `initialize`. Nothing else may write to stdout meanwhile.
 *
 * @throws SkillError `INVALID_FIELD` for an option `registerSkills` refuses (before anything is served)
 */
export async function serveStdio(service: SkillService, options: ServeStdioOptions = {}): Promise<void> {
  // Bad options (a prefix that is not URI segments…) throw here, before anything is served,
  // not when the first client connects.
  createSkillsServer(service, options);
  const { StdioServerTransport, serveStdio: serve } = await import("@modelcontextprotocol/server/stdio");
  const stdin = options.stdin ?? process.stdin;
  const transport = new StdioServerTransport(
    stdin as typeof process.stdin,
    (options.stdout ?? process.stdout) as typeof process.stdout,
  );
  const ended = new Promise<void>((resolve) => {
    stdin.once("end", resolve);
    stdin.once("close", resolve);
  });
  const handle = serve(() => createSkillsServer(service, options), { transport });
  await ended;
  await handle.close();
}
