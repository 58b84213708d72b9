// A real HTTP server on 127.0.0.1 for tests that download: what a handler answers, and what
// every request asked and got. Shared by the tests of remote, install and the CLI.
import { createHash } from "node:crypto";
import { once } from "node:events";
import { lstat, readFile } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer as createNetServer, type Socket } from "node:net";
import { join } from "node:path";

/** One request the server received, and what it answered. */
export interface Logged {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  status?: number;
  /** Body bytes sent (0 for a 304). */
  bytes?: number;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, log: Logged) => void | Promise<void>;

export interface Served {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  /** `http://127.0.0.1:<port>/index.json`: a pack at the server's root, named by its index. */
  readonly index: string;
  readonly origin: string;
  readonly requests: Logged[];
  /** Requests whose path starts with `prefix`. */
  hits(prefix: string): Logged[];
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1, port chosen by the OS. */
export async function serve(handler: Handler): Promise<Served> {
  const requests: Logged[] = [];
  const server = createServer((req, res) => {
    const log: Logged = { method: req.method ?? "GET", path: req.url ?? "/", headers: req.headers };
    requests.push(log);
    Promise.resolve(handler(req, res, log)).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/`,
    index: `${origin}/index.json`,
    origin,
    requests,
    hits: (prefix) => requests.filter((r) => r.path.startsWith(prefix)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function send(
  res: ServerResponse,
  log: Logged,
  status: number,
  body: string | Buffer = "",
  headers: Record<string, string> = {},
): void {
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  log.status = status;
  log.bytes = status === 304 ? 0 : bytes.length;
  res.writeHead(status, { "content-length": String(bytes.length), ...headers });
  res.end(status === 304 ? undefined : bytes);
}

export interface StaticOptions {
  /** Send an ETag (default true). */
  readonly etag?: boolean;
  /** Send Last-Modified (default false). */
  readonly lastModified?: boolean;
  /** Per-path overrides, tried first (path without the leading prefix). */
  readonly routes?: Record<string, Handler>;
  /** Served under this path prefix (default `/`). */
  readonly prefix?: string;
}

const MODIFIED = new Date("2024-01-02T03:04:05Z").toUTCString();

/** Serves a map of path → content (mutable: tests change it between pulls), with 304 support. */
export function staticFiles(files: Map<string, string | Buffer>, options: StaticOptions = {}): Handler {
  const prefix = options.prefix ?? "/";
  return async (req, res, log) => {
    const path = decodeURIComponent((req.url ?? "/").split("?")[0] as string);
    if (!path.startsWith(prefix)) return send(res, log, 404, "no such pack");
    const key = path.slice(prefix.length);
    const route = options.routes?.[key];
    if (route) return route(req, res, log);
    const body = files.get(key);
    if (body === undefined) return send(res, log, 404, `Not found: ${key}`);
    const headers: Record<string, string> = {};
    const etag = `"${createHash("sha1").update(body).digest("hex")}"`;
    if (options.etag !== false) headers.etag = etag;
    if (options.lastModified) headers["last-modified"] = MODIFIED;
    const fresh =
      (options.etag !== false && req.headers["if-none-match"] === etag) ||
      (options.lastModified && options.etag === false && req.headers["if-modified-since"] === MODIFIED);
    if (fresh) return send(res, log, 304, "", headers);
    send(res, log, 200, body, headers);
  };
}

/** Serves the files of a folder (a tiny static server). */
export function staticDir(root: string): Handler {
  return async (req, res, log) => {
    const path = decodeURIComponent((req.url ?? "/").split("?")[0] as string);
    const file = join(root, ...path.split("/").filter((s) => s !== "" && s !== ".." && s !== "."));
    try {
      send(res, log, 200, await readFile(file), { etag: `"${(await lstat(file)).mtimeMs}"` });
    } catch {
      send(res, log, 404, "Not found");
    }
  };
}

/** Polls `check` until it holds (or fails after `timeoutMs`). */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not reached in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * A TCP server on 127.0.0.1 that accepts connections and never answers: what a client's
 * timeout is tested against. Its `url` is `http://127.0.0.1:<port>/`.
 */
export async function silentServer(): Promise<{ readonly url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket.on("close", () => sockets.delete(socket)));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
