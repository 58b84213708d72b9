import type { Client } from "@modelcontextprotocol/client";
import { ChildTransport, type ChildTransportOptions } from "./child-transport.js";

/** A client connected to a server it started: closing the client ends the server and its group. */
export interface ChildConnection {
  readonly client: Client;
  readonly transport: ChildTransport;
}

/** What {@link connectChild} starts, and how long the start may take in all, in ms. */
export interface ConnectChildOptions extends ChildTransportOptions {
  readonly timeout: number;
  readonly signal?: AbortSignal | undefined;
}

/** A server that exited on the era probe: a 2025 one, to start again without it. */
class ExitedOnProbe extends Error {}

/**
 * Starts an MCP server as a child process and connects the SDK's v2 client to it: protocol
 * 2026-07-28 when the server offers it (`server/discover`), else the 2025 handshake, on that one
 * process, all within `timeout`. A 2025 server that exits on the probe (some SDKs end on any
 * request before `initialize`) is started once more, straight to `initialize`, within what is
 * left of it. A server that does not finish in time is killed with its group.
 */
export async function connectChild(options: ConnectChildOptions): Promise<ChildConnection> {
  const deadline = Date.now() + options.timeout;
  try {
    return await handshake(options, deadline, "auto");
  } catch (error) {
    if (!(error instanceof ExitedOnProbe)) throw error;
    return handshake(options, deadline, "legacy");
  }
}

async function handshake(
  options: ConnectChildOptions,
  deadline: number,
  era: "auto" | "legacy",
): Promise<ChildConnection> {
  const { Client, SdkErrorCode } = await import("@modelcontextprotocol/client");
  const transport = new ChildTransport(options);
  const left = Math.max(1, deadline - Date.now());
  // The era probe gets half of the time left, so a 2025 server that ignores it still has time
  // to answer `initialize`; a server that answers neither is given up on when the rest passes.
  const negotiation = { mode: "auto", probe: { timeoutMs: Math.max(1, Math.floor(left / 2)) } } as const;
  const client = new Client(
    { name: "@skill/mcp", version: "0" },
    era === "auto" ? { versionNegotiation: negotiation } : {},
  );
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.connect(transport, { timeout: left, ...(options.signal ? { signal: options.signal } : {}) }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no handshake within ${options.timeout} ms`)), left);
      }),
    ]);
    return { client, transport };
  } catch (error) {
    const exitedOnProbe =
      era === "auto" &&
      transport.exitedByItself &&
      (error as { code?: unknown }).code === SdkErrorCode.EraNegotiationFailed;
    // Killed now, with its group: its stdin closing could take it seconds (or forever) to
    // notice, and neither the scan nor this process should wait.
    await transport.kill();
    void client.close().catch(() => undefined);
    throw exitedOnProbe ? new ExitedOnProbe("exited on the era probe", { cause: error }) : error;
  } finally {
    clearTimeout(timer);
  }
}
