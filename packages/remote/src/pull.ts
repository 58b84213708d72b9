import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import {
  chmod,
  copyFile,
  type FileHandle,
  lstat,
  mkdir,
  mkdtemp,
  open,
  readdir,
  rename,
  rm,
} from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { type Logger, SkillError } from "@skill/core";
import { packBase, urlToDirName } from "./cache-dir.js";
import { acquireLock } from "./cache-lock.js";
import {
  type FileState,
  oldName,
  type PackState,
  presentFiles,
  readState,
  recover,
  type SkillState,
  STAGING_PREFIX,
  table,
  writeState,
} from "./cache-state.js";
import { abortError, type Budget, defaultFetch, type FetchLike, request } from "./http.js";
import { checkManifest, type RemoteSkillEntry, type SkippedSkill, shapeProblem } from "./manifest.js";
import { foldKey, nameProblem } from "./safe-path.js";
import { byCodeUnit, errorText, quote } from "./text.js";

/** What a pull reports while it runs, for a progress bar. */
export type PullProgress =
  /** `index.json` arrived and was checked: `skills` valid entries holding `files` files, `skipped` invalid ones. */
  | {
      readonly type: "index";
      readonly url: string;
      readonly skills: number;
      readonly files: number;
      readonly skipped: number;
    }
  /** One file is staged: `bytes` transferred (0 when `cached`: a 304 or an unchanged version). */
  | {
      readonly type: "file";
      readonly skill: string;
      readonly file: string;
      readonly bytes: number;
      readonly cached: boolean;
    }
  /** A skill is settled: `done` (replaced in the cache), `unchanged`, `skipped` (with `reason`) or `removed` (gone from the index). */
  | {
      readonly type: "skill";
      readonly name: string;
      readonly status: "done" | "unchanged" | "skipped" | "removed";
      readonly reason?: string;
    };

export interface PullOptions {
  /** Where packs are cached; each pack gets `<cacheDir>/<urlToDirName(url)>`. See `defaultCacheDir()`. */
  readonly cacheDir: string;
  /** HTTP client; default node-fetch, loaded on first use. */
  readonly fetch?: FetchLike;
  /** Requests in flight at once (default 8). */
  readonly concurrency?: number;
  /** Longest wait for a response, or between two chunks of a body, in ms (default 30000). */
  readonly timeoutMs?: number;
  /** Largest file, `index.json` included, in bytes (default 10 MiB); counted while streaming. */
  readonly maxFileBytes?: number;
  /** Most bytes one pull transfers, in bytes (default 200 MiB); skills past it are skipped. */
  readonly maxTotalBytes?: number;
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
  /** True when no valid index could be had and the last good copy was served instead. */
  readonly fromCache: boolean;
  /** The pack's cache folder, `<cacheDir>/<urlToDirName(url)>`. */
  readonly dir: string;
}

const MIB = 1024 * 1024;
const DEFAULT_CONCURRENCY = 8;
const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_FILE_BYTES = 10 * MIB;
const DEFAULT_MAX_TOTAL_BYTES = 200 * MIB;
const NO_LOGGER: Logger = { warn() {} };
const KEPT = "; the previous copy was kept";

interface Settings {
  readonly cacheDir: string;
  readonly fetch?: FetchLike;
  readonly concurrency: number;
  readonly timeoutMs: number;
  readonly maxFileBytes: number;
  readonly maxTotalBytes: number;
  readonly signal?: AbortSignal;
  readonly logger: Logger;
  readonly emit: (event: PullProgress) => void;
}

function positive(value: number | undefined, fallback: number, option: string, integer = false): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new SkillError(
      "INVALID_FIELD",
      `Invalid pull option '${option}': expected a positive ${integer ? "integer" : "number"}, found ${quote(value)}`,
      { field: option },
    );
  }
  return value;
}

function settle(options: PullOptions): Settings {
  if (typeof options?.cacheDir !== "string" || options.cacheDir === "") {
    throw new SkillError(
      "INVALID_FIELD",
      `Invalid pull option 'cacheDir': expected a folder path, found ${quote(options?.cacheDir)}`,
      { field: "cacheDir" },
    );
  }
  const onProgress = options.onProgress;
  return {
    cacheDir: resolve(options.cacheDir),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    concurrency: positive(options.concurrency, DEFAULT_CONCURRENCY, "concurrency", true),
    // setTimeout fires at once past 2^31 - 1 ms; that is 24 days, as good as no timeout.
    timeoutMs: Math.min(positive(options.timeoutMs, DEFAULT_TIMEOUT_MS, "timeoutMs"), 2 ** 31 - 1),
    maxFileBytes: positive(options.maxFileBytes, DEFAULT_MAX_FILE_BYTES, "maxFileBytes"),
    maxTotalBytes: positive(options.maxTotalBytes, DEFAULT_MAX_TOTAL_BYTES, "maxTotalBytes"),
    ...(options.signal ? { signal: options.signal } : {}),
    logger: options.logger ?? NO_LOGGER,
    emit: (event) => {
      try {
        onProgress?.(event);
      } catch {
        // A progress listener is an observer: its failure must not change what is pulled.
      }
    },
  };
}

function cacheError(error: unknown, path: string): SkillError {
  if (SkillError.isInstance(error)) return error;
  return new SkillError("READ_ERROR", `Failed to write the skill cache at ${path} (${errorText(error)})`, {
    path,
    cause: error,
  });
}

function withSignal<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolvePromise, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolvePromise(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

const inFlight = new Map<string, Promise<PullResult>>();

/**
 * Downloads a skill pack into the cache: fetches `<base>/index.json`, checks it
 * ({@link parseManifest}), and brings every valid skill's files to
 * `<cacheDir>/<urlToDirName(url)>/<name>/<file>`. A skill is replaced only when all its files
 * arrived intact; unchanged files are revalidated (`If-None-Match` / `If-Modified-Since`) and an
 * unchanged `version` skips the skill's requests. Skills no longer listed are removed.
 *
 * When no valid index can be had (refused, timeout, non-2xx, invalid JSON or shape) and the pack
 * was pulled before, the last good copy is returned with `fromCache: true` and a logger warning.
 *
 * Pulls of one pack are serialized: a second call in the same process joins the one in flight;
 * another process waits for the pack's lock file.
 *
 * @throws SkillError `INVALID_URL`, `HTTP_ERROR` (with `status`), `REMOTE_ERROR`, `LIMIT_EXCEEDED`
 * (index too large), `ABORTED`, `UNSAFE_PATH` (the pack folder is a symlink), `READ_ERROR` (cache not writable)
 * @example
 * const { files } = await pull("https://example.com/.well-known/skills/", { cacheDir: defaultCacheDir() });
 */
export async function pull(url: string, options: PullOptions): Promise<PullResult> {
  const settings = settle(options);
  const base = packBase(url);
  const packDir = join(settings.cacheDir, urlToDirName(url));
  for (;;) {
    const running = inFlight.get(packDir);
    if (!running) break;
    try {
      return await withSignal(running, settings.signal);
    } catch (error) {
      // The call we joined was aborted by its own caller, not ours: pull for ourselves.
      if (SkillError.isInstance(error) && error.code === "ABORTED" && !settings.signal?.aborted) continue;
      throw error;
    }
  }
  const run = pullLocked(base, packDir, settings).finally(() => inFlight.delete(packDir));
  inFlight.set(packDir, run);
  return run;
}

async function preparePackDir(cacheDir: string, packDir: string): Promise<void> {
  try {
    await mkdir(cacheDir, { recursive: true });
    await mkdir(packDir).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
    });
  } catch (error) {
    throw cacheError(error, packDir);
  }
  const stats = await lstat(packDir);
  if (!stats.isDirectory()) {
    throw new SkillError(
      "UNSAFE_PATH",
      `Refusing to use the skill cache folder ${packDir}: it is ${stats.isSymbolicLink() ? "a symlink" : "not a folder"}; remove it and pull again`,
      { path: packDir },
    );
  }
}

async function pullLocked(base: URL, packDir: string, settings: Settings): Promise<PullResult> {
  const { signal } = settings;
  if (signal?.aborted) throw abortError(signal);
  await preparePackDir(settings.cacheDir, packDir);
  const lock = await acquireLock(packDir, signal).catch((error: unknown) => {
    throw cacheError(error, packDir);
  });
  try {
    const state = await readState(packDir);
    await recover(packDir, state).catch((error: unknown) => {
      throw cacheError(error, packDir);
    });
    const fetch = settings.fetch ?? (await defaultFetch());
    const indexUrl = new URL("index.json", base).href;
    let index: unknown;
    try {
      index = await fetchIndex(indexUrl, fetch, base.origin, settings);
    } catch (error) {
      if (signal?.aborted) throw abortError(signal, indexUrl);
      const e = cacheError(error, packDir);
      if (!state) throw e;
      settings.logger.warn(
        `${e.message}; serving the copy cached at ${state.pulledAt || "an earlier pull"}`,
        {
          code: e.code,
          url: indexUrl,
          path: packDir,
        },
      );
      return { files: await cachedFiles(packDir, state), skipped: [], fromCache: true, dir: packDir };
    }
    return await new PackSync(base, indexUrl, packDir, state, fetch, settings).run(index);
  } finally {
    await lock.release();
  }
}

async function fetchIndex(
  indexUrl: string,
  fetch: FetchLike,
  origin: string,
  settings: Settings,
): Promise<unknown> {
  const chunks: Uint8Array[] = [];
  await request(indexUrl, {
    fetch,
    origin,
    signal: settings.signal,
    timeoutMs: settings.timeoutMs,
    maxBytes: settings.maxFileBytes,
    headers: { accept: "application/json" },
    open: async () => (chunk) => {
      chunks.push(chunk);
    },
  });
  const text = Buffer.concat(chunks)
    .toString("utf8")
    .replace(/^\uFEFF/, "");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SkillError(
      "REMOTE_ERROR",
      `Remote fetch failed: ${indexUrl} is not valid JSON (${errorText(error)}); found ${quote(text.trim(), 80)}`,
      { url: indexUrl, cause: error },
    );
  }
  const problem = shapeProblem(value);
  if (problem !== undefined) {
    throw new SkillError(
      "REMOTE_ERROR",
      `Remote fetch failed: ${indexUrl} is not a skill index: ${problem}`,
      {
        url: indexUrl,
      },
    );
  }
  return value;
}

async function cachedFiles(packDir: string, state: PackState): Promise<string[]> {
  const files: string[] = [];
  for (const name of Object.keys(state.skills)) {
    if (nameProblem(name) !== undefined) continue;
    const dir = join(packDir, name);
    if ((await presentFiles(dir, ["SKILL.md"])).has("SKILL.md")) files.push(join(dir, "SKILL.md"));
  }
  return files.sort(byCodeUnit);
}

type Outcome =
  | { readonly kind: "unchanged"; readonly entry: RemoteSkillEntry; readonly state: SkillState }
  | {
      readonly kind: "staged";
      readonly entry: RemoteSkillEntry;
      readonly state: SkillState;
      readonly staging: string;
    }
  | {
      readonly kind: "failed";
      readonly entry: RemoteSkillEntry;
      readonly error: SkillError;
      readonly kept?: SkillState;
    };

interface FileOutcome {
  readonly file: string;
  readonly reused: boolean;
  readonly state: FileState;
}

interface Move {
  readonly target: string;
  readonly old: string;
  movedOld: boolean;
  installed: boolean;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(a);
  return b.every((x) => set.has(x));
}

function fileUrl(base: URL, name: string, file: string): URL {
  const folder = `${encodeURIComponent(name)}/`;
  const url = new URL(folder + file.split("/").map(encodeURIComponent).join("/"), base);
  if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname + folder)) {
    throw new SkillError("UNSAFE_PATH", `File URL ${url.href} leaves the pack ${base.href}`, {
      url: url.href,
    });
  }
  return url;
}

/** Joins `file` under `root` and proves the result stays inside it. */
function inside(root: string, file: string): string {
  const path = join(root, ...file.split("/"));
  const rel = relative(root, path);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) {
    throw new SkillError("UNSAFE_PATH", `Refusing to write ${quote(file)} outside ${root}`, { path });
  }
  return path;
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/** One pull of one pack, under its lock: stage every skill, then commit them together. */
class PackSync {
  readonly #budget: Budget;
  readonly #pullId = randomBytes(4).toString("hex");
  #fileLimit: (<T>(task: () => Promise<T>) => Promise<T>) | undefined;

  constructor(
    readonly base: URL,
    readonly indexUrl: string,
    readonly packDir: string,
    readonly state: PackState | undefined,
    readonly fetch: FetchLike,
    readonly settings: Settings,
  ) {
    this.#budget = { used: 0, limit: settings.maxTotalBytes };
  }

  async run(index: unknown): Promise<PullResult> {
    const { settings, packDir } = this;
    const checked = checkManifest(index);
    const { manifest, listed } = checked;
    // An entry that is listed but invalid now keeps the copy an earlier, valid index brought.
    const keptInvalid = table<SkillState>();
    const valid = new Set(manifest.skills.map((e) => e.name));
    for (const s of checked.skipped) {
      const previous = this.state?.skills[s.name];
      if (!previous || !listed.has(s.name) || valid.has(s.name)) continue;
      const files = Object.keys(previous.files);
      if ((await presentFiles(join(packDir, s.name), files)).size === files.length)
        keptInvalid[s.name] = previous;
    }
    const invalid = checked.skipped.map((s) =>
      keptInvalid[s.name] ? { ...s, reason: `${s.reason}${KEPT}` } : s,
    );
    settings.emit({
      type: "index",
      url: this.indexUrl,
      skills: manifest.skills.length,
      files: manifest.skills.reduce((n, s) => n + s.files.length, 0),
      skipped: invalid.length,
    });
    for (const s of invalid)
      settings.emit({ type: "skill", name: s.name, status: "skipped", reason: s.reason });

    const { default: pLimit } = await import("p-limit");
    const skillLimit = pLimit(settings.concurrency);
    this.#fileLimit = pLimit(settings.concurrency);
    const outcomes = await Promise.all(
      manifest.skills.map((entry) => skillLimit(() => this.#syncSkill(entry))),
    );
    if (settings.signal?.aborted) {
      await this.#discard(outcomes);
      throw abortError(settings.signal);
    }

    const skills = Object.assign(table<SkillState>(), keptInvalid);
    const failed: SkippedSkill[] = [];
    for (const o of outcomes) {
      if (o.kind !== "failed") skills[o.entry.name] = o.state;
      else {
        if (o.kept) skills[o.entry.name] = o.kept;
        failed.push({
          name: o.entry.name,
          reason: `${o.error.message}${o.kept ? KEPT : ""}`,
          code: o.error.code,
        });
      }
    }

    const removed = await this.#commit(outcomes, listed, skills);
    for (const o of outcomes)
      if (o.kind === "staged") settings.emit({ type: "skill", name: o.entry.name, status: "done" });
    for (const name of removed) settings.emit({ type: "skill", name, status: "removed" });

    const skipped = [...invalid, ...failed];
    if (skipped.length > 0) {
      const first = skipped[0] as SkippedSkill;
      settings.logger.warn(
        `Skill pack ${this.base.href}: skipped ${skipped.length} of ${manifest.skills.length + invalid.length} skills (first: ${first.name}: ${first.reason})`,
        { url: this.indexUrl, code: first.code },
      );
      for (const s of skipped)
        settings.logger.debug?.(`Skipped skill ${s.name}: ${s.reason}`, { code: s.code });
    }
    const files = Object.keys(skills)
      .map((name) => join(packDir, name, "SKILL.md"))
      .sort(byCodeUnit);
    return { files, skipped, fromCache: false, dir: packDir };
  }

  async #syncSkill(entry: RemoteSkillEntry): Promise<Outcome> {
    const { settings } = this;
    const dir = join(this.packDir, entry.name);
    const previous = this.state?.skills[entry.name];
    const previousFiles = previous ? Object.keys(previous.files) : [];
    const present = previous
      ? await presentFiles(dir, [...new Set([...entry.files, ...previousFiles])])
      : new Set<string>();
    const kept = previous && previousFiles.every((f) => present.has(f)) ? previous : undefined;
    const sameFiles = kept !== undefined && sameSet(previousFiles, entry.files);
    if (sameFiles && entry.version !== undefined && entry.version === previous?.version) {
      for (const file of entry.files)
        settings.emit({ type: "file", skill: entry.name, file, bytes: 0, cached: true });
      settings.emit({ type: "skill", name: entry.name, status: "unchanged" });
      return { kind: "unchanged", entry, state: previous };
    }

    let staging: string | undefined;
    try {
      if (settings.signal?.aborted) throw abortError(settings.signal);
      staging = await mkdtemp(join(this.packDir, STAGING_PREFIX)).catch((error: unknown) => {
        throw cacheError(error, this.packDir);
      });
      await chmod(staging, 0o755);
      const results = await this.#fetchFiles(entry, staging, previous, present);
      const files = table<FileState>();
      for (const r of results) files[r.file] = r.state;
      const state: SkillState = { files, ...(entry.version === undefined ? {} : { version: entry.version }) };
      if (sameFiles && results.every((r) => r.reused)) {
        await rm(staging, { recursive: true, force: true });
        settings.emit({ type: "skill", name: entry.name, status: "unchanged" });
        return { kind: "unchanged", entry, state };
      }
      for (const r of results) {
        if (!r.reused) continue;
        const dest = inside(staging, r.file);
        await mkdir(dirname(dest), { recursive: true });
        await copyFile(inside(dir, r.file), dest, constants.COPYFILE_EXCL);
      }
      return { kind: "staged", entry, state, staging };
    } catch (error) {
      if (staging) await rm(staging, { recursive: true, force: true }).catch(() => {});
      const e = cacheError(error, dir);
      const reason = `${e.message}${kept ? KEPT : ""}`;
      settings.emit({ type: "skill", name: entry.name, status: "skipped", reason });
      return { kind: "failed", entry, error: e, ...(kept ? { kept } : {}) };
    }
  }

  /** Fetches every file of a skill; the first failure cancels the others. */
  async #fetchFiles(
    entry: RemoteSkillEntry,
    staging: string,
    previous: SkillState | undefined,
    present: ReadonlySet<string>,
  ): Promise<FileOutcome[]> {
    const outer = this.settings.signal;
    const controller = new AbortController();
    const signal = outer ? AbortSignal.any([outer, controller.signal]) : controller.signal;
    const limit = this.#fileLimit as <T>(task: () => Promise<T>) => Promise<T>;
    const settled = await Promise.allSettled(
      entry.files.map((file) =>
        limit(async () => {
          try {
            return await this.#fetchFile(
              entry.name,
              file,
              staging,
              present.has(file) ? previous : undefined,
              signal,
            );
          } catch (error) {
            controller.abort();
            throw error;
          }
        }),
      ),
    );
    const results: FileOutcome[] = [];
    let failure: SkillError | undefined;
    for (const s of settled) {
      if (s.status === "fulfilled") results.push(s.value);
      else {
        const e = cacheError(s.reason, staging);
        // Deterministic: the first real failure in file order, not a sibling's cancellation.
        if (!failure || (failure.code === "ABORTED" && e.code !== "ABORTED")) failure = e;
      }
    }
    if (failure) throw outer?.aborted ? abortError(outer) : failure;
    return results;
  }

  async #fetchFile(
    name: string,
    file: string,
    staging: string,
    previous: SkillState | undefined,
    signal: AbortSignal,
  ): Promise<FileOutcome> {
    const { settings } = this;
    const dest = inside(staging, file);
    const url = fileUrl(this.base, name, file).href;
    const cached = previous?.files[file];
    const headers: Record<string, string> = {};
    if (cached?.etag) headers["if-none-match"] = cached.etag;
    if (cached?.lastModified) headers["if-modified-since"] = cached.lastModified;
    let handle: FileHandle | undefined;
    let result: Awaited<ReturnType<typeof request>>;
    try {
      result = await request(url, {
        fetch: this.fetch,
        origin: this.base.origin,
        signal,
        timeoutMs: settings.timeoutMs,
        maxBytes: settings.maxFileBytes,
        budget: this.#budget,
        headers,
        conditional: cached !== undefined && Object.keys(headers).length > 0,
        open: async () => {
          let position = 0;
          try {
            await mkdir(dirname(dest), { recursive: true });
            handle = await open(dest, "wx");
          } catch (error) {
            throw cacheError(error, dest);
          }
          const out = handle;
          return async (chunk) => {
            try {
              for (let offset = 0; offset < chunk.byteLength; ) {
                const { bytesWritten } = await out.write(chunk, offset, chunk.byteLength - offset, position);
                offset += bytesWritten;
                position += bytesWritten;
              }
            } catch (error) {
              throw cacheError(error, dest);
            }
          };
        },
      });
    } finally {
      await handle?.close().catch(() => {});
    }
    if (result.notModified) {
      settings.emit({ type: "file", skill: name, file, bytes: 0, cached: true });
      return { file, reused: true, state: cached as FileState };
    }
    settings.emit({ type: "file", skill: name, file, bytes: result.bytes, cached: false });
    const state: FileState = {
      size: result.bytes,
      ...(result.etag === undefined ? {} : { etag: result.etag }),
      ...(result.lastModified === undefined ? {} : { lastModified: result.lastModified }),
    };
    return { file, reused: false, state };
  }

  /**
   * Swaps staged skills in and unlisted ones out, then writes the state: the commit point. If
   * anything fails before the state is written, every move is undone (and a killed process is
   * undone by `recover` on the next pull). Returns the names removed.
   */
  async #commit(
    outcomes: readonly Outcome[],
    listed: ReadonlySet<string>,
    skills: Record<string, SkillState>,
  ): Promise<string[]> {
    const { packDir } = this;
    const keep = new Set([...listed].map(foldKey));
    const staged = outcomes
      .filter((o): o is Extract<Outcome, { kind: "staged" }> => o.kind === "staged")
      .sort((a, b) => byCodeUnit(a.entry.name, b.entry.name));
    const moves: Move[] = [];
    let removed: string[] = [];
    try {
      removed = (await readdir(packDir))
        .filter((e) => !e.startsWith(".") && !keep.has(foldKey(e)))
        .sort(byCodeUnit);
      const move = async (name: string, staging?: string) => {
        const m: Move = {
          target: join(packDir, name),
          old: join(packDir, oldName(this.#pullId, name)),
          movedOld: false,
          installed: false,
        };
        moves.push(m);
        if (await exists(m.target)) {
          await rename(m.target, m.old);
          m.movedOld = true;
        }
        if (staging) {
          await rename(staging, m.target);
          m.installed = true;
        }
      };
      for (const o of staged) await move(o.entry.name, o.staging);
      for (const name of removed) await move(name);
      await writeState(packDir, {
        format: 1,
        url: this.base.href,
        pullId: this.#pullId,
        pulledAt: new Date().toISOString(),
        skills,
      });
    } catch (error) {
      for (const m of moves.reverse()) {
        if (m.installed) await rm(m.target, { recursive: true, force: true }).catch(() => {});
        if (m.movedOld) await rename(m.old, m.target).catch(() => {});
      }
      await this.#discard(outcomes);
      throw cacheError(error, packDir);
    }
    for (const m of moves) if (m.movedOld) await rm(m.old, { recursive: true, force: true }).catch(() => {});
    return removed;
  }

  async #discard(outcomes: readonly Outcome[]): Promise<void> {
    for (const o of outcomes) {
      if (o.kind === "staged") await rm(o.staging, { recursive: true, force: true }).catch(() => {});
    }
  }
}
