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
import { DEFAULT_TIMEOUT_MS, type McpSourceOptions, mcpSource } from "./source.js";

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

/** Bytes of the server's stderr kept to explain a failed start. */
const STDERR_TAIL = 2_000;

/**
 * An {@link mcpSource} over an MCP server started as a child process and spoken to over its
 * stdin and stdout, with the SDK's v2 client (`@modelcontextprotocol/client`, a peer dependency
 * loaded at the first scan): protocol 2026-07-28 when the server offers it (`server/discover`),
 * else the 2025 handshake. The process starts at the first scan and stays up for reads until
 * `close()`. A server that cannot be started or fails the handshake is a scan diagnostic
 * (`mcp-connect-failed`, with the end of its stderr), never a crash.
 *
 * @example
 * const docs = mcpStdioSource("npx", ["-y", "docs-mcp-server"], { id: "mcp:docs" });
 * const service = new SkillService({ sources: [docs] });
 * await service.discoverAndLoad();
 * // … later
 * await docs.close();
 */
export function mcpStdioSource(
  command: string,
  args: readonly string[] = [],
  options: McpStdioSourceOptions = {},
): McpStdioSource {
  const id = options.id ?? `mcp:${[command, ...args].join(" ")}`;
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
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
      transport.stderr?.on("data", (chunk: Buffer) => {
        stderr = (stderr + chunk.toString("utf8")).slice(-STDERR_TAIL);
      });
      const client = new Client(
        { name: "@skill/mcp", version: "0" },
        { versionNegotiation: { mode: "auto", probe: { timeoutMs: timeout } } },
      );
      try {
        await client.connect(transport, { timeout, ...(signal ? { signal } : {}) });
      } catch (error) {
        await transport.close().catch(() => undefined);
        throw error;
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
        const tail = stderr.trim();
        const diagnostic: Diagnostic = {
          code: "mcp-connect-failed",
          severity: "warning",
          message: `${id}: could not start the MCP server: ${printable((error as Error).message ?? String(error))}${tail ? ` (stderr: ${printable(tail.slice(-300))})` : ""}`,
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
 */
export async function serveStdio(service: SkillService, options: ServeStdioOptions = {}): Promise<void> {
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
