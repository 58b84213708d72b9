import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import type { Readable } from "node:stream";
import type { JSONRPCMessage, ReadBuffer, Transport } from "@modelcontextprotocol/client";

/** How long a server gets to exit once its stdin is closed, and its process group after SIGTERM. */
const GRACE_MS = 1_000;
/** How often the process group is looked at while it is given time to end. */
const POLL_MS = 20;
/** A process group of its own, ended whole: POSIX. Windows has none; there the server alone is ended. */
const GROUPS = process.platform !== "win32";

/** What {@link ChildTransport} starts. */
export interface ChildTransportOptions {
  readonly command: string;
  readonly args: readonly string[];
  /** The whole environment of the server. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Each chunk of the server's stderr, which is always read (a full pipe would stall it). */
  readonly onStderr?: (chunk: Buffer) => void;
}

/**
 * A wait that keeps the process alive: whoever awaits `close()` is owed its end. (An unref'd
 * timer let a process whose last handle was the server's pipe exit in the middle of a close
 * with an unsettled top-level await, code 13.)
 */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The client side of an MCP server spoken to over its stdin and stdout: a child process this
 * transport starts and ends. Unlike the SDK's `StdioClientTransport`, on POSIX the server leads
 * a process group of its own, and ending it ends the group: a process the server started that
 * still holds its stdout would otherwise outlive it and keep this process waiting on the pipe.
 *
 * `pid` and `stderr` make it a stdio transport to the SDK's client (a server that does not
 * answer the era probe is a 2025 server); the probe runs on this process, not a second one.
 */
export class ChildTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #child: ChildProcessWithoutNullStreams | undefined;
  #exited: Promise<void> = Promise.resolve();
  #exitedByItself = false;
  #ending: Promise<void> | undefined;
  #serialize: ((message: JSONRPCMessage) => string) | undefined;

  constructor(private readonly options: ChildTransportOptions) {}

  /** The server's process id once started (the id of its process group on POSIX). */
  get pid(): number | null {
    return this.#child?.pid ?? null;
  }

  get stderr(): Readable | null {
    return this.#child?.stderr ?? null;
  }

  /** Whether the server exited before this transport ended it. */
  get exitedByItself(): boolean {
    return this.#exitedByItself;
  }

  async start(): Promise<void> {
    if (this.#child || this.#ending) throw new Error("ChildTransport is started once");
    const { ReadBuffer, serializeMessage } = await import("@modelcontextprotocol/client");
    this.#serialize = serializeMessage;
    const { command, args, env, cwd, onStderr } = this.options;
    const child = spawn(command, [...args], {
      env: { ...env },
      ...(cwd === undefined ? {} : { cwd }),
      stdio: "pipe",
      detached: GROUPS,
      shell: false,
      windowsHide: true,
    });
    this.#child = child;
    this.#exited = new Promise((resolve) => child.once("exit", () => resolve()));
    child.once("exit", () => {
      if (this.#ending) return;
      this.#exitedByItself = true;
      void this.#end(GRACE_MS); // its group, and the pipes, end with it
    });
    const buffer = new ReadBuffer();
    child.stdout.on("data", (chunk: Buffer) => this.#receive(buffer, chunk));
    child.stderr.on("data", (chunk: Buffer) => onStderr?.(chunk));
    for (const stream of [child.stdin, child.stdout, child.stderr]) {
      stream.on("error", (error) => this.onerror?.(error));
    }
    await new Promise<void>((resolve, reject) => {
      const failed = (error: Error) => {
        this.#exited = Promise.resolve(); // it never ran: no exit to wait for
        reject(error);
      };
      child.once("error", failed);
      child.once("spawn", () => {
        child.off("error", failed);
        child.on("error", (error) => this.onerror?.(error));
        resolve();
      });
    });
  }

  #receive(buffer: ReadBuffer, chunk: Buffer): void {
    try {
      buffer.append(chunk);
    } catch (error) {
      // A line longer than the buffer allows: the server is not one to keep talking to.
      this.onerror?.(error as Error);
      void this.close();
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = buffer.readMessage();
      } catch (error) {
        this.onerror?.(error as Error); // that line is dropped; the next may be fine
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || !this.#serialize || this.#ending) throw new Error("Not connected");
    if (!stdin.write(this.#serialize(message))) {
      // A server that stops reading: the write is given up on when its stdin closes.
      await new Promise<void>((resolve) => {
        stdin.once("drain", resolve);
        stdin.once("close", resolve);
      });
    }
  }

  /**
   * Ends the server as the MCP spec asks: its stdin is closed, then its process group gets
   * SIGTERM and, after a grace period, SIGKILL.
   */
  close(): Promise<void> {
    return this.#end(GRACE_MS);
  }

  /** Ends the server and its group now (SIGKILL): for a server that failed its start. */
  kill(): Promise<void> {
    return this.#end(0);
  }

  #end(grace: number): Promise<void> {
    this.#ending ??= this.#terminate(grace).finally(() => this.onclose?.());
    return this.#ending;
  }

  async #terminate(grace: number): Promise<void> {
    const child = this.#child;
    if (!child) return;
    child.stdin.end();
    if (grace > 0) {
      await Promise.race([this.#exited, delay(grace)]);
      this.#signal(child, "SIGTERM");
      await this.#groupGone(child, grace);
    }
    this.#signal(child, "SIGKILL");
    // Bytes the server wrote before it ended are still read; a process that left the group
    // and holds the pipe does not keep this one open past the grace period.
    if (grace > 0 && child.stdout.readable) {
      await Promise.race([new Promise((resolve) => child.stdout.once("close", resolve)), delay(grace)]);
    }
    for (const stream of [child.stdin, child.stdout, child.stderr]) stream.destroy();
    await Promise.race([this.#exited, delay(Math.max(grace, 100))]);
  }

  /** Sends `signal` to the server's process group (POSIX), or to the server while it runs (Windows). */
  #signal(child: ChildProcessWithoutNullStreams, signal: NodeJS.Signals): void {
    if (child.pid === undefined) return;
    try {
      if (GROUPS) process.kill(-child.pid, signal);
      else if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    } catch {
      // The group is gone already.
    }
  }

  /** Resolves when no process of the server's group is left, or `ms` have passed. */
  async #groupGone(child: ChildProcessWithoutNullStreams, ms: number): Promise<void> {
    if (!GROUPS || child.pid === undefined) {
      await Promise.race([this.#exited, delay(ms)]);
      return;
    }
    for (const until = Date.now() + ms; Date.now() < until; await delay(POLL_MS)) {
      try {
        process.kill(-child.pid, 0);
      } catch {
        return;
      }
    }
  }
}
