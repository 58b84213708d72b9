import { createHash } from "node:crypto";
import { lstat, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { type Logger, SkillError } from "@skill/core";

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

export function skillMd(
  name: string,
  description = `The ${name} skill`,
  body = `# ${name}\n\nDo the thing.\n`,
): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
}

export function indexJson(skills: readonly object[]): string {
  return JSON.stringify({ skills });
}

/** A pack as a file map: `index.json` plus `<name>/<file>` for each skill. */
export function pack(
  skills: Record<string, Record<string, string | Buffer>>,
  extra: Record<string, unknown> = {},
): Map<string, string | Buffer> {
  const files = new Map<string, string | Buffer>();
  const entries = Object.entries(skills).map(([name, content]) => {
    for (const [file, body] of Object.entries(content)) files.set(`${name}/${file}`, body);
    return { name, files: Object.keys(content), ...((extra[name] as object) ?? {}) };
  });
  files.set("index.json", indexJson(entries));
  return files;
}

/** A temp directory, removed by `cleanup`. */
export async function tempDir(): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), "skill-remote-"));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}

/** Every entry under `root` (files, folders, links), as sorted `/`-separated relative paths. */
export async function tree(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      out.push(relative(root, path).split(sep).join("/") + (entry.isDirectory() ? "/" : ""));
      if (entry.isDirectory()) await walk(path);
    }
  };
  await walk(root);
  return out.sort();
}

/** Polls `check` until it holds (or fails after `timeoutMs`). */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not reached in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Every byte value, twice, in a buffer: a binary file that a text round trip would damage. */
export function binary(): Buffer {
  const bytes = Buffer.alloc(512);
  for (let i = 0; i < bytes.length; i++) bytes[i] = i % 256;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), bytes]);
}

/** A logger that keeps its warnings, for tests to look at. */
export function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, warn: (message) => warnings.push(message) };
}

/** The `SkillError` a promise rejects with (anything else fails the test). */
export async function rejection(promise: Promise<unknown>): Promise<SkillError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!SkillError.isInstance(error)) throw new Error(`expected a SkillError, got ${String(error)}`);
  return error;
}
