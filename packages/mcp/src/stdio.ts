import type { Client } from "@modelcontextprotocol/client";
import {
  type Diagnostic,
  errorMessage,
  printable,
  type ScanContext,
  SkillError,
  type SkillService,
  type SkillSource,
} from "@skill/core";
import { type ChildConnection, connectChild } from "./child-connection.js";
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

/**
 * A source that owns the server process it started; `close()` ends it, and on POSIX every
 * process it started in turn (its process group).
 */
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
 * else the 2025 handshake, on the one process started. The process starts at the first scan
 * and stays up for reads until `close()`, which closes its stdin, then ends its process group
 * (POSIX; on Windows the server alone): SIGTERM, then SIGKILL after a second, so a process the
 * server started cannot keep this one waiting. A server that cannot be started or fails the
 * handshake is a scan diagnostic (`mcp-connect-failed`, with the first lines of its stderr),
 * never a crash.
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
  let connecting: Promise<ChildConnection> | undefined;
  let stderr = "";

  function connect(signal: AbortSignal | undefined): Promise<ChildConnection> {
    if (connecting) return connecting;
    stderr = "";
    const attempt = (async () => {
      const env = {
        ...(await import("@modelcontextprotocol/client/stdio")).getDefaultEnvironment(),
        ...options.env,
      };
      const connection = await connectChild({
        command,
        args,
        env,
        ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
        timeout,
        signal,
        onStderr: (chunk) => {
          if (stderr.length < STDERR_HEAD) stderr = (stderr + chunk.toString("utf8")).slice(0, STDERR_HEAD);
        },
      });
      // A server that exits is started again by the next scan.
      connection.client.onclose = () => {
        if (connecting === attempt) connecting = undefined;
      };
      return connection;
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
          message: `${id}: could not start the MCP server: ${printable(errorMessage(error))}${head ? ` (stderr: ${printable(head)})` : ""}`,
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
      const connection = await open.catch(() => undefined);
      // The client's close ends the transport: stdin closed, then the server's process group
      // SIGTERM and SIGKILL, so nothing it started keeps this process waiting.
      await connection?.client.close();
      await connection?.transport.close();
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
