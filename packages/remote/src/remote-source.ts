import { join, resolve } from "node:path";
import {
  abortError,
  type Diagnostic,
  type Logger,
  redactError,
  redactText,
  redactUrl,
  type ScanContext,
  SkillError,
  type SkillSource,
  type SourceEntry,
  type SourceScan,
} from "@skill/core";
import { urlToDirName } from "./cache-dir.js";
import { cachedEntries } from "./cached-entry.js";
import { readCachedPack } from "./cached-pack.js";
import { PULL_DEFAULTS, type PullOptions, type PullResult } from "./options.js";
import { pull } from "./pull.js";
import { errorText } from "./text.js";

/** How often a source asks the server again: every scan, never once cached, or after an age. */
export type RefreshPolicy = "always" | "never" | { readonly maxAgeMs: number };

export interface RemoteSourceOptions extends PullOptions {
  /** The source id in reports and on `SkillInfo.source` (default `remote`). */
  readonly id?: string;
  /**
   * When a scan asks the server again (default `{ maxAgeMs: 900000 }`, 15 minutes): a cached
   * copy younger than `maxAgeMs` is served without a request. The age is kept in the cache, so
   * it holds across processes. `"never"` pulls only what was never cached.
   */
  readonly refresh?: RefreshPolicy;
}

const DEFAULT_MAX_AGE_MS = 15 * 60_000;

function maxAge(refresh: RefreshPolicy | undefined): number {
  if (refresh === undefined) return DEFAULT_MAX_AGE_MS;
  if (refresh === "always") return 0;
  if (refresh === "never") return Number.POSITIVE_INFINITY;
  const ms = (refresh as { maxAgeMs?: unknown })?.maxAgeMs;
  if (typeof ms !== "number" || !(ms >= 0)) {
    throw new SkillError(
      "INVALID_FIELD",
      `Invalid remoteSource option 'refresh': expected "always", "never" or { maxAgeMs: a number ≥ 0 }`,
      { field: "refresh" },
    );
  }
  return ms;
}

/**
 * The origin of a pack's skills: `remote:` and the index URL that was read, without userinfo,
 * query string or fragment, so no credential a URL carries ever reaches a skill's metadata.
 */
export function remoteOrigin(indexUrl: string): string {
  try {
    const url = new URL(indexUrl);
    url.username = "";
    url.password = "";
    url.search = "";
    url.hash = "";
    return `remote:${url.href}`;
  } catch {
    // Not a URL (never from a pull): keep only what precedes any userinfo or query.
    return `remote:${indexUrl.replace(/[?#].*$/s, "").replace(/\/\/[^/]*@/, "//")}`;
  }
}

type PackOutcome =
  | { readonly url: string; readonly result: PullResult; readonly note?: string }
  | { readonly url: string; readonly error: SkillError };

function asSkillError(url: string, error: unknown): SkillError {
  return redactError(
    SkillError.isInstance(error)
      ? error
      : new SkillError("REMOTE_ERROR", `Remote fetch failed: ${url} (${errorText(error)})`, {
          url,
          cause: error,
        }),
  );
}

/**
 * A {@link SkillSource} for `SkillService`. Each scan serves every pack's cached copy while it
 * is younger than `refresh.maxAgeMs` (no request at all), and pulls the others at once; a pack
 * with a cached copy never holds the load longer than `timeoutMs` (past it the pull is abandoned
 * and the cached copy served). It returns the cached `SKILL.md` paths, pack by pack
 * in the order of `urls` (a later pack wins a name collision).
 *
 * Pack problems are `SourceScan.diagnostics`: `pack-unavailable` (no copy could be had),
 * `pack-cached` (the server failed or was slow; the cached copy was served),
 * `pack-entry-skipped` (one per entry the pull skipped). When every URL fails with no cached
 * copy, the scan throws, so `SkillService` reports it in `LoadReport.failed`.
 *
 * @example
 * const service = new SkillService({
 *   sources: [remoteSource(["https://example.com"], { cacheDir: defaultCacheDir() })],
 * });
 */
export function remoteSource(urls: readonly string[], options: RemoteSourceOptions): SkillSource {
  const { id = "remote", refresh, ...pullOptions } = options;
  const ageLimit = maxAge(refresh);
  const list = [...urls];
  return {
    id,
    async scan(ctx: ScanContext = {}): Promise<SourceScan> {
      const signals = [ctx.signal, options.signal].filter((s): s is AbortSignal => s !== undefined);
      const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
      const outcomes = await Promise.all(list.map((url) => loadPack(url, pullOptions, ageLimit, signal)));
      if (signal?.aborted) throw abortError(signal, `Skill source ${id} was aborted`);
      return scanOf(id, options.cacheDir, outcomes);
    },
  };
}

/**
 * One pack for a scan: its cached copy while younger than `ageLimit`, else a pull; a pull that
 * fails or outlasts `timeoutMs` serves the cached copy when there is one, with a note.
 */
async function loadPack(
  url: string,
  options: PullOptions,
  ageLimit: number,
  signal: AbortSignal | undefined,
): Promise<PackOutcome> {
  let cached: Awaited<ReturnType<typeof readCachedPack>>;
  try {
    cached = await readCachedPack(url, options.cacheDir);
  } catch (error) {
    return { url, error: asSkillError(url, error) };
  }
  if (cached && (options.offline || Date.now() - cached.checkedAt < ageLimit)) {
    return { url, result: cached.result };
  }
  // The pull's warnings become this scan's diagnostics; its debug lines go to the caller's logger.
  const warnings: string[] = [];
  const logger: Logger = {
    warn: (message) => warnings.push(message),
    ...(options.logger?.debug ? { debug: options.logger.debug.bind(options.logger) } : {}),
  };
  // A pack with a cached copy gets `timeoutMs` in all; past it the pull is abandoned (so no
  // socket or timer outlives the scan) and the cached copy is served.
  const waitMs = options.timeoutMs ?? PULL_DEFAULTS.timeoutMs;
  const expiry = new AbortController();
  const timer = cached ? setTimeout(() => expiry.abort(), waitMs) : undefined;
  const pullSignal = signal ? AbortSignal.any([signal, expiry.signal]) : expiry.signal;
  const outcome: PackOutcome = await pull(url, { ...options, logger, signal: pullSignal }).then(
    (result): PackOutcome => ({
      url,
      result,
      ...(result.fromCache && warnings[0] ? { note: warnings[0] } : {}),
    }),
    (error: unknown): PackOutcome => ({ url, error: asSkillError(url, error) }),
  );
  clearTimeout(timer);
  if (!cached || !("error" in outcome) || signal?.aborted) return outcome;
  const when = new Date(cached.checkedAt).toISOString();
  const why = expiry.signal.aborted
    ? `Skill pack ${url} did not answer within ${waitMs} ms (timeoutMs)`
    : outcome.error.message;
  return { url, result: cached.result, note: redactText(`${why}; serving the copy cached at ${when}`) };
}

/**
 * The scan of the packs' outcomes, in their order: each served pack's entries, each problem a
 * diagnostic. When every pack failed, the scan throws.
 */
async function scanOf(id: string, cacheDir: string, outcomes: readonly PackOutcome[]): Promise<SourceScan> {
  const entries: SourceEntry[] = [];
  const dirs: string[] = [];
  const diagnostics: Diagnostic[] = [];
  const errors: SkillError[] = [];
  const warning = (code: string, message: string, path: string): Diagnostic => ({
    code,
    severity: "warning",
    message,
    path,
    source: id,
  });
  for (const o of outcomes) {
    if ("error" in o) {
      errors.push(o.error);
      diagnostics.push(warning("pack-unavailable", o.error.message, redactUrl(o.url)));
      try {
        dirs.push(join(resolve(cacheDir), urlToDirName(o.url)));
      } catch {
        // An invalid URL has no cache folder.
      }
      continue;
    }
    const origin = remoteOrigin(o.result.indexUrl);
    // Each entry carries what was recorded at the pull, so bytes changed since are refused.
    entries.push(...(await cachedEntries(o.result, origin)));
    dirs.push(o.result.dir);
    if (o.note) diagnostics.push(warning("pack-cached", o.note, redactUrl(o.url)));
    for (const s of o.result.skipped) {
      diagnostics.push(
        warning(
          "pack-entry-skipped",
          redactText(`Skill pack ${o.result.indexUrl}: skipped ${s.name}: ${s.reason}`),
          redactUrl(o.result.indexUrl),
        ),
      );
    }
  }
  if (errors.length === outcomes.length && errors.length > 0) {
    if (errors.length === 1) throw errors[0];
    throw new SkillError(
      "REMOTE_ERROR",
      `Remote fetch failed: none of the ${errors.length} skill packs could be loaded (${errors.map((e) => e.message).join("; ")})`,
      { cause: errors[0] },
    );
  }
  return { entries, dirs, diagnostics };
}
