import { resolve } from "node:path";
import {
  describeKind,
  type Logger,
  noopLogger,
  quote,
  redactingLogger,
  redactText,
  redactUrl,
  SkillError,
  type SkillErrorCode,
} from "@skill/core";
import type { FetchLike } from "./http.js";
import type { SkippedSkill } from "./manifest.js";
import { errorText, observing } from "./text.js";

/** What a pull reports while it runs, for a progress bar. */
export type PullProgress =
  /**
   * The index arrived and was checked: `skills` valid entries, `files` downloads they need at
   * most (each v0.1 file, one artifact per v0.2 entry), `skipped` invalid entries.
   */
  | {
      readonly type: "index";
      readonly url: string;
      readonly skills: number;
      readonly files: number;
      readonly skipped: number;
    }
  /** One file or artifact is settled: `bytes` transferred (0 when `cached`: a 304, or an unchanged version or digest). */
  | {
      readonly type: "file";
      readonly skill: string;
      readonly file: string;
      readonly bytes: number;
      readonly cached: boolean;
    }
  /**
   * A skill is settled: `done` (downloaded and verified; it replaces the cached copy when the pull
   * commits), `unchanged`, `skipped` (with `reason`) or `removed` (gone from the index).
   */
  | {
      readonly type: "skill";
      readonly name: string;
      readonly status: "done" | "unchanged" | "skipped" | "removed";
      readonly reason?: string;
    };

export interface PullOptions {
  /** Where packs are cached; each pack gets `<cacheDir>/<urlToDirName(url)>`. See `defaultCacheDir()`. */
  readonly cacheDir: string;
  /**
   * HTTP client; default node-fetch, loaded on first use. It is the transport only: credentials
   * go in `headers`, which the pull scopes to their origin, never in a fetch wrapper.
   */
  readonly fetch?: FetchLike;
  /**
   * Request headers by origin (`https://example.com`, `http://127.0.0.1:8080`), typically
   * `{ "https://example.com": { authorization: "Bearer …" } }`. Each hop of each request (the
   * index, v0.1 files, v0.2 artifacts, every redirect) gets the headers of its own origin and
   * no other's: a digest-pinned artifact on a CDN, or a redirect to another origin, gets none of
   * the index's credentials. Header values never appear in messages.
   */
  readonly headers?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Requests in flight at once (default 8). */
  readonly concurrency?: number;
  /** Longest wait for a response, or between two chunks of a body, in ms (default 30000). */
  readonly timeoutMs?: number;
  /** Longest one request may take, body included, in ms (default 120000): a drip-fed body stops here. */
  readonly requestTimeoutMs?: number;
  /** Longest a whole pull may take, in ms (default 600000); then it fails (or serves the cache) and lets go of the lock. */
  readonly pullTimeoutMs?: number;
  /**
   * Largest file, `index.json` and v0.2 `skill-md` artifacts included, in bytes (default 10 MiB);
   * counted while streaming. Also the default of `maxArchiveBytes`.
   */
  readonly maxFileBytes?: number;
  /**
   * Largest archive one skill may download, in bytes (default: `maxFileBytes`, so 10 MiB when
   * neither is given); counted while streaming, and refused at once when the server announces
   * more. A skill over it is skipped (`LIMIT_EXCEEDED`). `skill pack` warns of archives over it.
   */
  readonly maxArchiveBytes?: number;
  /** Most bytes one pull transfers, each file counted as at least 4 KiB (default 200 MiB); skills past it are skipped. */
  readonly maxTotalBytes?: number;
  /** Most files one pack may list, v0.1 files and archive entries together (default 10,000); skills past it are skipped. */
  readonly maxPackFiles?: number;
  /** Most entries one archive may hold (default 1,000). */
  readonly maxArchiveFiles?: number;
  /** Most bytes one archive may unpack to, counted while inflating, each file as at least 4 KiB (default 25 MiB). */
  readonly maxUnpackedBytes?: number;
  /** Do not touch the network: serve the cached copy, or fail with `REMOTE_ERROR` when there is none. */
  readonly offline?: boolean;
  /** Aborts the pull (`ABORTED`); the cache stays as it was. */
  readonly signal?: AbortSignal;
  readonly logger?: Logger;
  readonly onProgress?: (event: PullProgress) => void;
}

export interface PullResult {
  /** Absolute `SKILL.md` paths in the cache, sorted: every listed skill that has a good copy. */
  readonly files: readonly string[];
  /** Entries not refreshed this time: invalid ones, and ones whose download failed (their previous copy, if any, stays). */
  readonly skipped: readonly SkippedSkill[];
  /** True when the cached copy was served without a fresh index (network failure, or `offline`). */
  readonly fromCache: boolean;
  /** The pack's cache folder, `<cacheDir>/<urlToDirName(url)>`. */
  readonly dir: string;
  /** The index actually read (after well-known resolution); the cached one's when `fromCache`. */
  readonly indexUrl: string;
  /**
   * Skills whose cached copy changed: `before`/`after` are their `SKILL.md` paths (absent when
   * added or removed); `restored` lists the files of a cached copy that no longer matched what
   * was pulled (edited, removed or added on disk), which this pull put right.
   */
  readonly changed: readonly {
    readonly name: string;
    readonly before?: string;
    readonly after?: string;
    readonly restored?: readonly string[];
  }[];
}

const MIB = 1024 * 1024;
const MAX_FILE_BYTES = 10 * MIB;

/**
 * The value `pull` uses for each numeric option the caller leaves out: what a pack must stay
 * within to be pulled by default (`maxArchiveBytes`, `maxUnpackedBytes`, `maxArchiveFiles`).
 * `maxArchiveBytes` defaults to the caller's `maxFileBytes` when that is given.
 */
export const PULL_DEFAULTS = Object.freeze({
  concurrency: 8,
  timeoutMs: 30_000,
  requestTimeoutMs: 120_000,
  pullTimeoutMs: 600_000,
  maxFileBytes: MAX_FILE_BYTES,
  maxArchiveBytes: MAX_FILE_BYTES,
  maxTotalBytes: 200 * MIB,
  maxPackFiles: 10_000,
  maxArchiveFiles: 1_000,
  maxUnpackedBytes: 25 * MIB,
} as const);

/** Appended to the reason of a skipped skill whose earlier copy stays in the cache. */
export const KEPT = "; the previous copy was kept";
/** The code of a failed cache write. */
export const WRITE_CODE: SkillErrorCode = "WRITE_ERROR";

/** Headers by origin, checked: lowercase names, values free of line breaks. */
export type OriginHeaders = ReadonlyMap<string, Readonly<Record<string, string>>>;

export interface Settings {
  readonly cacheDir: string;
  readonly fetch?: FetchLike;
  readonly headers: OriginHeaders;
  readonly concurrency: number;
  readonly timeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly pullTimeoutMs: number;
  readonly maxFileBytes: number;
  readonly maxArchiveBytes: number;
  readonly maxTotalBytes: number;
  readonly maxPackFiles: number;
  readonly maxArchiveFiles: number;
  readonly maxUnpackedBytes: number;
  readonly offline: boolean;
  readonly signal?: AbortSignal;
  readonly logger: Logger;
  readonly emit: (event: PullProgress) => void;
}

// setTimeout fires at once past 2^31 - 1 ms; that is 24 days, as good as no timeout.
const MAX_TIMER_MS = 2 ** 31 - 1;

function positive(value: unknown, fallback: number, option: string, integer = false): number {
  if (value === undefined) return fallback;
  if (
    typeof value !== "number" ||
    !Number.isFinite(value) ||
    value <= 0 ||
    (integer && !Number.isInteger(value))
  ) {
    throw new SkillError(
      "INVALID_FIELD",
      `Invalid pull option '${option}': expected a positive ${integer ? "integer" : "number"}, found ${quote(value)}`,
      { field: option },
    );
  }
  return value;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function headersError(reason: string): SkillError {
  return new SkillError("INVALID_FIELD", `Invalid pull option 'headers': ${reason}`, { field: "headers" });
}

/**
 * The `headers` option checked: every key an http(s) origin and nothing more (no path, query,
 * fragment or userinfo), every value a mapping of header names to single-line strings. Messages
 * quote keys and header names, never a value: values are credentials.
 */
function originHeaders(raw: unknown): OriginHeaders {
  const out = new Map<string, Readonly<Record<string, string>>>();
  if (raw === undefined) return out;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw headersError(`expected a mapping of origins to headers, found ${describeKind(raw)}`);
  }
  for (const [key, value] of Object.entries(raw)) {
    let url: URL | undefined;
    try {
      url = new URL(key);
    } catch {
      url = undefined;
    }
    const plain =
      url !== undefined &&
      (url.protocol === "http:" || url.protocol === "https:") &&
      url.username === "" &&
      url.password === "" &&
      url.pathname === "/" &&
      url.search === "" &&
      url.hash === "" &&
      !/[?#]/.test(key);
    if (!url || !plain) {
      throw headersError(
        `${quote(redactUrl(key))} is not an origin (expected a scheme and host only, such as "https://example.com")`,
      );
    }
    const origin = url.origin;
    if (out.has(origin)) throw headersError(`${quote(key)} names the origin ${quote(origin)} twice`);
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw headersError(
        `the headers of ${quote(origin)} must be a mapping of names to strings, found ${describeKind(value)}`,
      );
    }
    const headers: Record<string, string> = Object.create(null);
    for (const [name, text] of Object.entries(value as Record<string, unknown>)) {
      if (!TOKEN.test(name)) throw headersError(`${quote(name)} (for ${quote(origin)}) is not a header name`);
      if (typeof text !== "string" || /[\r\n\0]/.test(text)) {
        throw headersError(
          `the value of ${quote(name)} for ${quote(origin)} must be a string on one line (found ${typeof text === "string" ? "a line break" : describeKind(text)})`,
        );
      }
      headers[name.toLowerCase()] = text;
    }
    out.set(origin, Object.freeze(headers));
  }
  return out;
}

/** Checks the options and fills in the defaults. @throws SkillError `INVALID_FIELD` */
export function settle(options: PullOptions): Settings {
  if (typeof options?.cacheDir !== "string" || options.cacheDir === "") {
    throw new SkillError(
      "INVALID_FIELD",
      `Invalid pull option 'cacheDir': expected a folder path, found ${quote(options?.cacheDir)}`,
      { field: "cacheDir" },
    );
  }
  // A progress listener is an observer: its failure must not change what is pulled.
  const notify = observing(options.onProgress);
  const ms = (key: "timeoutMs" | "requestTimeoutMs" | "pullTimeoutMs") =>
    Math.min(positive(options[key], PULL_DEFAULTS[key], key), MAX_TIMER_MS);
  const int = (key: "concurrency" | "maxPackFiles" | "maxArchiveFiles") =>
    positive(options[key], PULL_DEFAULTS[key], key, true);
  const bytes = (key: "maxFileBytes" | "maxTotalBytes" | "maxUnpackedBytes") =>
    positive(options[key], PULL_DEFAULTS[key], key);
  const maxFileBytes = bytes("maxFileBytes");
  return {
    cacheDir: resolve(options.cacheDir),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    headers: originHeaders(options.headers),
    concurrency: int("concurrency"),
    timeoutMs: ms("timeoutMs"),
    requestTimeoutMs: ms("requestTimeoutMs"),
    pullTimeoutMs: ms("pullTimeoutMs"),
    maxFileBytes,
    maxArchiveBytes: positive(options.maxArchiveBytes, maxFileBytes, "maxArchiveBytes"),
    maxTotalBytes: bytes("maxTotalBytes"),
    maxPackFiles: int("maxPackFiles"),
    maxArchiveFiles: int("maxArchiveFiles"),
    maxUnpackedBytes: bytes("maxUnpackedBytes"),
    offline: options.offline === true,
    ...(options.signal ? { signal: options.signal } : {}),
    // Every line remote logs and every reason it reports passes one redaction: no credential a
    // URL carries (userinfo, a token in the query) reaches a log or a terminal.
    logger: redactingLogger(options.logger ?? noopLogger),
    emit: (event) => notify(redactEvent(event)),
  };
}

function redactEvent(event: PullProgress): PullProgress {
  if (event.type === "index") return { ...event, url: redactUrl(event.url) };
  if (event.type === "skill" && event.reason !== undefined)
    return { ...event, reason: redactText(event.reason) };
  return event;
}

/** A failed cache write as a `SkillError` naming the path (a `SkillError` passes through). */
export function cacheError(error: unknown, path: string): SkillError {
  if (SkillError.isInstance(error)) return error;
  return new SkillError(WRITE_CODE, `Failed to write the skill cache at ${path} (${errorText(error)})`, {
    path,
    cause: error,
  });
}

export type { SkippedSkill };
