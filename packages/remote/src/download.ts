import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { chmod, copyFile, type FileHandle, mkdir, mkdtemp, open, rm } from "node:fs/promises";
import { dirname, isAbsolute, join, relative } from "node:path";
import {
  compareCodeUnits,
  DEFAULT_MAX_BYTES,
  parseSkill,
  quote,
  readInside,
  SKILL_FILE,
  SkillError,
} from "@skill/core";
import { archiveFormat, unpackArchive } from "./archive.js";
import { type FileState, presentFiles, type SkillState, STAGING_PREFIX, table } from "./cache-state.js";
import { type Budget, type FetchLike, fetchAborted, request } from "./http.js";
import type { RemoteSkillEntry } from "./manifest.js";
import { cacheError, KEPT, type Settings } from "./options.js";
import { redactUrl } from "./redact.js";
import { checkCachedSkill } from "./skill-check.js";

/** What one skill of a pull came to. */
export type Outcome =
  | { readonly kind: "unchanged"; readonly entry: RemoteSkillEntry; readonly state: SkillState }
  | {
      readonly kind: "staged";
      readonly entry: RemoteSkillEntry;
      readonly state: SkillState;
      /** Files of the cached copy that no longer matched what was pulled (edited, gone, added). */
      readonly restored?: readonly string[];
      /** The complete new skill folder, renamed into place on commit. */
      readonly staging: string;
      /** The scratch folder holding `staging`, removed after the commit. */
      readonly work: string;
    }
  | {
      readonly kind: "failed";
      readonly entry: RemoteSkillEntry;
      readonly error: SkillError;
      readonly kept?: SkillState;
    };

/** What every download of one pull shares. */
export interface PullContext {
  /** The folder of the index: v0.1 files live at `<base><name>/<file>`. */
  readonly base: URL;
  readonly indexUrl: string;
  readonly packDir: string;
  readonly fetch: FetchLike;
  readonly settings: Settings;
  readonly signal: AbortSignal | undefined;
  readonly budget: Budget;
  /** Files counted against `maxPackFiles` so far (archives add theirs once unpacked). */
  readonly packFiles: { count: number };
  readonly limit: <T>(task: () => Promise<T>) => Promise<T>;
}

interface FileOutcome {
  readonly file: string;
  readonly reused: boolean;
  readonly state: FileState;
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
export function inside(root: string, file: string): string {
  const path = join(root, ...file.split("/"));
  const rel = relative(root, path);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) {
    throw new SkillError("UNSAFE_PATH", `Refusing to write ${quote(file)} outside ${root}`, { path });
  }
  return path;
}

/** An artifact URL of a v0.2 entry, resolved against the index URL: http(s), no credentials. */
export function artifactUrl(raw: string, indexUrl: string): string {
  let url: URL;
  try {
    url = new URL(raw, indexUrl);
  } catch {
    throw new SkillError("INVALID_URL", `Invalid "url" ${quote(redactUrl(raw))} in ${indexUrl}`, {
      url: redactUrl(raw),
    });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new SkillError("INVALID_URL", `Invalid "url" ${quote(redactUrl(raw))}: not http(s)`, {
      url: redactUrl(raw),
    });
  }
  if (url.username !== "" || url.password !== "") {
    throw new SkillError("INVALID_URL", `Invalid "url" ${quote(redactUrl(raw))}: it holds credentials`, {
      url: redactUrl(raw),
    });
  }
  url.hash = "";
  return url.href;
}

/** How progress events name a v0.2 artifact: `SKILL.md`, or the archive's file name. */
function artifactName(entry: RemoteSkillEntry): string {
  if (entry.type !== "archive") return "SKILL.md";
  const last = (entry.url ?? "").split(/[?#]/)[0]?.split("/").pop();
  return last || "archive";
}

interface Streamed {
  readonly notModified: boolean;
  /** The whole body, when it was kept in memory (`spillAt`) rather than written to `dest`. */
  readonly body?: Buffer;
  readonly bytes: number;
  readonly sha256: string;
  readonly head: Uint8Array;
  readonly url: string;
  readonly contentType?: string;
  readonly etag?: string;
  readonly lastModified?: string;
}

/** Bytes of an archive kept in memory; a larger one goes to a file as it streams. */
const ARCHIVE_IN_MEMORY = 1024 * 1024;

/** How an archive is fetched: held in memory up to `spillAt` bytes; `spilled.wrote` once it went to a file. */
interface ArchiveFetch {
  readonly spillAt: number;
  readonly spilled: { wrote: boolean };
}

/**
 * Streams one URL into a new file at `dest`, hashing as the bytes arrive. An `archive` may be
 * `maxArchiveBytes` long (anything else `maxFileBytes`), and its body stays in memory (returned
 * as `body`, nothing written) unless it grows past `spillAt` bytes; then what arrived so far and
 * the rest go to `dest`.
 */
async function fetchToFile(
  ctx: PullContext,
  url: string,
  dest: string,
  origin: string | undefined,
  signal: AbortSignal,
  cached?: FileState,
  archive?: ArchiveFetch,
): Promise<Streamed> {
  const spillAt = archive?.spillAt;
  const headers: Record<string, string> = {};
  if (cached?.etag) headers["if-none-match"] = cached.etag;
  if (cached?.lastModified) headers["if-modified-since"] = cached.lastModified;
  const hash = createHash("sha256");
  let head = new Uint8Array(0);
  let handle: FileHandle | undefined;
  let memory: Buffer[] | undefined;
  try {
    const result = await request(url, {
      fetch: ctx.fetch,
      origin,
      signal,
      timeoutMs: ctx.settings.timeoutMs,
      deadlineMs: ctx.settings.requestTimeoutMs,
      ...(archive
        ? { maxBytes: ctx.settings.maxArchiveBytes, maxBytesOption: "maxArchiveBytes" }
        : { maxBytes: ctx.settings.maxFileBytes }),
      budget: ctx.budget,
      headers,
      credentials: ctx.settings.headers,
      conditional: cached !== undefined && Object.keys(headers).length > 0,
      open: async () => {
        let position = 0;
        let out: FileHandle | undefined;
        const toFile = async () => {
          try {
            await mkdir(dirname(dest), { recursive: true });
            handle = await open(dest, "wx");
            if (archive) archive.spilled.wrote = true;
          } catch (error) {
            throw cacheError(error, dest);
          }
          return handle;
        };
        const write = async (chunk: Uint8Array) => {
          try {
            for (let offset = 0; offset < chunk.byteLength; ) {
              const { bytesWritten } = await (out as FileHandle).write(
                chunk,
                offset,
                chunk.byteLength - offset,
                position,
              );
              offset += bytesWritten;
              position += bytesWritten;
            }
          } catch (error) {
            throw cacheError(error, dest);
          }
        };
        if (spillAt === undefined) out = await toFile();
        else memory = [];
        let held = 0;
        return async (chunk) => {
          hash.update(chunk);
          if (head.byteLength < 8) head = Buffer.concat([head, chunk.subarray(0, 8)]);
          if (memory !== undefined) {
            held += chunk.byteLength;
            memory.push(Buffer.from(chunk));
            if (held <= (spillAt as number)) return;
            const kept = Buffer.concat(memory);
            memory = undefined;
            out = await toFile();
            await write(kept);
            return;
          }
          await write(chunk);
        };
      },
    });
    if (result.notModified) return { notModified: true, bytes: 0, sha256: "", head, url };
    return {
      notModified: false,
      ...(memory === undefined ? {} : { body: Buffer.concat(memory) }),
      bytes: result.bytes,
      sha256: hash.digest("hex"),
      head,
      url: result.url,
      ...(result.contentType === undefined ? {} : { contentType: result.contentType }),
      ...(result.etag === undefined ? {} : { etag: result.etag }),
      ...(result.lastModified === undefined ? {} : { lastModified: result.lastModified }),
    };
  } finally {
    await handle?.close().catch(() => {});
  }
}

function integrityError(url: string, found: string, expected: string): SkillError {
  return new SkillError(
    "INTEGRITY_ERROR",
    `Digest mismatch: ${url} has sha256:${found}, the index says ${expected}`,
    { url },
  );
}

function countPackFiles(ctx: PullContext, n: number): void {
  ctx.packFiles.count += n;
  if (ctx.packFiles.count > ctx.settings.maxPackFiles) {
    throw new SkillError(
      "LIMIT_EXCEEDED",
      `the pack holds more than ${ctx.settings.maxPackFiles} files (maxPackFiles)`,
    );
  }
}

/**
 * The frontmatter of the `SKILL.md` in `dir`, as core parses it, or `undefined` when it does not
 * parse (core then reads the file itself at load, and reports why).
 */
async function frontmatterOf(
  dir: string,
  written?: Uint8Array,
): Promise<Readonly<Record<string, unknown>> | undefined> {
  try {
    const bytes = written ?? (await readInside(dir, SKILL_FILE, { maxBytes: DEFAULT_MAX_BYTES }));
    const text = new TextDecoder("utf-8").decode(bytes);
    return parseSkill(text, join(dir, SKILL_FILE)).skill.frontmatter;
  } catch {
    return undefined;
  }
}

/**
 * The state with the frontmatter of the verified `SKILL.md` in `dir` recorded (its head); from
 * `written`, the bytes just written there, when the caller holds them.
 */
async function withHead(state: SkillState, dir: string, written?: Uint8Array): Promise<SkillState> {
  if (state.frontmatter !== undefined) return state;
  const frontmatter = await frontmatterOf(dir, written);
  return frontmatter === undefined ? state : { ...state, frontmatter };
}

/** The first few damaged files of a skill, for a message. */
export function damagedList(files: readonly string[]): string {
  const shown = files.slice(0, 5).map((f) => quote(f));
  return `${shown.join(", ")}${files.length > 5 ? `, and ${files.length - 5} more` : ""}`;
}

/**
 * Brings one skill up to date in a staging folder, or says why not. Never throws. A cached copy
 * that no longer matches what was pulled (a file edited, removed or added on disk) is never
 * kept: it is fetched again, and the outcome names what was wrong (`restored`).
 */
export async function syncSkill(
  ctx: PullContext,
  entry: RemoteSkillEntry,
  previous: SkillState | undefined,
): Promise<Outcome> {
  const { settings } = ctx;
  const dir = join(ctx.packDir, entry.name);
  const previousFiles = previous ? Object.keys(previous.files) : [];
  const present = previous
    ? await presentFiles(dir, [...new Set([...(entry.files ?? []), ...previousFiles])])
    : new Set<string>();
  const check = previous ? await checkCachedSkill(dir, previous, present) : undefined;
  const damaged = check ? [...check.modified, ...check.missing, ...check.extra].sort(compareCodeUnits) : [];
  // Only files whose bytes are still what was verified may be reused (or revalidated with a 304).
  const modified = new Set(check?.modified);
  const intact = new Set([...present].filter((f) => !modified.has(f)));
  const kept = previous && damaged.length === 0 ? previous : undefined;
  const pinned = entry.digest !== undefined;
  const unchanged = pinned
    ? kept !== undefined && kept.digest === entry.digest && previousFiles.length > 0
    : kept !== undefined &&
      entry.version !== undefined &&
      entry.version === kept.version &&
      kept.digest === undefined &&
      sameSet(previousFiles, entry.files ?? []);
  if (unchanged && kept) {
    for (const file of pinned ? [artifactName(entry)] : (entry.files ?? []))
      settings.emit({ type: "file", skill: entry.name, file, bytes: 0, cached: true });
    settings.emit({ type: "skill", name: entry.name, status: "unchanged" });
    let state: SkillState = kept;
    if (pinned) {
      // Same bytes, perhaps from a new address: the state records where they are now.
      let url = kept.url;
      try {
        url = artifactUrl(entry.url as string, ctx.indexUrl);
      } catch {
        // An unusable URL with an unchanged digest still names the bytes we hold.
      }
      const { version: _old, ...rest } = kept;
      state = {
        ...rest,
        ...(url === undefined ? {} : { url }),
        ...(entry.version ? { version: entry.version } : {}),
      };
    }
    return { kind: "unchanged", entry, state: await withHead(state, dir) };
  }

  const restored = damaged.length > 0 ? { restored: damaged } : {};
  let work: string | undefined;
  try {
    if (ctx.signal?.aborted) throw fetchAborted(ctx.signal);
    work = await mkdtemp(join(ctx.packDir, STAGING_PREFIX)).catch((error: unknown) => {
      throw cacheError(error, ctx.packDir);
    });
    await chmod(work, 0o755);
    if (pinned) {
      // The scratch folder is the skill folder (or holds it, when the archive wraps it in one).
      const pulled = await fetchPinned(ctx, entry, work);
      const state = await withHead(pulled.state, pulled.staging, pulled.skillMd);
      settings.emit({ type: "skill", name: entry.name, status: "done" });
      return { kind: "staged", entry, state, staging: pulled.staging, work, ...restored };
    }
    const staging = join(work, "skill");
    await mkdir(staging, { mode: 0o755 });
    const results = await fetchFiles(ctx, entry, staging, previous, intact);
    const files = table<FileState>();
    for (const r of results) files[r.file] = r.state;
    const fresh: SkillState = { files, ...(entry.version === undefined ? {} : { version: entry.version }) };
    if (
      kept &&
      kept.digest === undefined &&
      sameSet(previousFiles, entry.files ?? []) &&
      results.every((r) => r.reused)
    ) {
      await rm(work, { recursive: true, force: true });
      settings.emit({ type: "skill", name: entry.name, status: "unchanged" });
      const head = kept.frontmatter === undefined ? {} : { frontmatter: kept.frontmatter };
      return { kind: "unchanged", entry, state: await withHead({ ...fresh, ...head }, dir) };
    }
    for (const r of results) {
      if (!r.reused) continue;
      const dest = inside(staging, r.file);
      await mkdir(dirname(dest), { recursive: true });
      await copyFile(inside(dir, r.file), dest, constants.COPYFILE_EXCL);
    }
    const state = await withHead(fresh, staging);
    settings.emit({ type: "skill", name: entry.name, status: "done" });
    return { kind: "staged", entry, state, staging, work, ...restored };
  } catch (error) {
    if (work) await rm(work, { recursive: true, force: true }).catch(() => {});
    const e = cacheError(error, dir);
    const why =
      damaged.length > 0
        ? `its cached copy no longer matches what was pulled (${damagedList(damaged)}) and could not be restored: `
        : "";
    const reason = `${why}${e.message}${kept ? KEPT : ""}`;
    settings.emit({ type: "skill", name: entry.name, status: "skipped", reason });
    const failure =
      why === ""
        ? e
        : new SkillError(e.code, `${why}${e.message}`, { cause: e, ...(e.url ? { url: e.url } : {}) });
    return { kind: "failed", entry, error: failure, ...(kept ? { kept } : {}) };
  }
}

/** A staged v0.2 skill: its state, the folder to put in place, and its SKILL.md's bytes when held. */
interface Pinned {
  readonly state: SkillState;
  readonly staging: string;
  readonly skillMd?: Uint8Array;
}

/**
 * Downloads a v0.2 artifact, checks its digest, and stages the skill folder it holds in the empty
 * folder `work` (an archive of a few hundred KiB is held in memory until it is verified and
 * unpacked; a larger one streams to a file beside `work`). Returns the state and the folder to
 * put in place: `work` itself, or the archive's single top-level folder inside it.
 */
async function fetchPinned(ctx: PullContext, entry: RemoteSkillEntry, work: string): Promise<Pinned> {
  const url = artifactUrl(entry.url as string, ctx.indexUrl);
  const expected = entry.digest as string;
  const signal = ctx.signal ?? new AbortController().signal;
  const common = {
    type: entry.type,
    url,
    digest: expected,
    ...(entry.version ? { version: entry.version } : {}),
  };
  if (entry.type === "skill-md") {
    const got = await ctx.limit(() => fetchToFile(ctx, url, join(work, "SKILL.md"), undefined, signal));
    if (`sha256:${got.sha256}` !== expected) throw integrityError(url, got.sha256, expected);
    ctx.settings.emit({ type: "file", skill: entry.name, file: "SKILL.md", bytes: got.bytes, cached: false });
    const files = table<FileState>();
    files["SKILL.md"] = { size: got.bytes, sha256: got.sha256 };
    return { state: { ...common, files } as SkillState, staging: work };
  }
  // Beside `work`, never in it (it becomes the skill folder); its name marks it as scratch, so a
  // killed pull's copy is removed by the next one.
  const download = `${work}.archive`;
  // Only an archive too large to hold in memory is written there: otherwise there is nothing to remove.
  const spilled = { wrote: false };
  try {
    return await unpackPinned(ctx, entry, work, url, download, common, signal, spilled);
  } finally {
    if (spilled.wrote) await rm(download, { force: true }).catch(() => {});
  }
}

async function unpackPinned(
  ctx: PullContext,
  entry: RemoteSkillEntry,
  work: string,
  url: string,
  download: string,
  common: object,
  signal: AbortSignal,
  spilled: { wrote: boolean },
): Promise<Pinned> {
  const expected = entry.digest as string;
  // Only the request takes a request slot: unpacking runs beside the next downloads.
  const got = await ctx.limit(() =>
    fetchToFile(ctx, url, download, undefined, signal, undefined, { spillAt: ARCHIVE_IN_MEMORY, spilled }),
  );
  if (`sha256:${got.sha256}` !== expected) throw integrityError(url, got.sha256, expected);
  // The slot just freed starts its next request now; the unpack's synchronous work (inflating,
  // parsing the tar) waits one turn of the event loop, so it does not hold that request back.
  await new Promise((resolve) => setImmediate(resolve));
  ctx.settings.emit({
    type: "file",
    skill: entry.name,
    file: artifactName(entry),
    bytes: got.bytes,
    cached: false,
  });
  const format = archiveFormat(got.contentType, got.url, got.head);
  if (!format) {
    throw new SkillError(
      "INVALID_FIELD",
      `Cannot tell the archive format of ${url} (Content-Type ${quote(got.contentType ?? "")}; expected .tar.gz or .zip)`,
      { url },
    );
  }
  let unpacked: Awaited<ReturnType<typeof unpackArchive>>;
  try {
    unpacked = await unpackArchive(
      got.body ?? download,
      format,
      work,
      { maxFiles: ctx.settings.maxArchiveFiles, maxBytes: ctx.settings.maxUnpackedBytes },
      signal,
    );
  } catch (error) {
    if (SkillError.isInstance(error) && error.code !== "ABORTED" && error.url === undefined) {
      throw new SkillError(error.code, `${error.message} (${url})`, { url, cause: error });
    }
    throw error;
  }
  countPackFiles(ctx, unpacked.files.size - 1);
  const files = table<FileState>();
  for (const [path, f] of [...unpacked.files].sort(([a], [b]) => compareCodeUnits(a, b))) files[path] = f;
  return {
    state: { ...common, files } as SkillState,
    staging: unpacked.root,
    ...(unpacked.skillMd === undefined ? {} : { skillMd: unpacked.skillMd }),
  };
}

/** Fetches every file of a v0.1 skill; the first failure cancels the others. */
async function fetchFiles(
  ctx: PullContext,
  entry: RemoteSkillEntry,
  staging: string,
  previous: SkillState | undefined,
  present: ReadonlySet<string>,
): Promise<FileOutcome[]> {
  const outer = ctx.signal;
  const controller = new AbortController();
  const signal = outer ? AbortSignal.any([outer, controller.signal]) : controller.signal;
  const settled = await Promise.allSettled(
    (entry.files ?? []).map((file) =>
      ctx.limit(async () => {
        try {
          const url = fileUrl(ctx.base, entry.name, file).href;
          const cached = present.has(file) ? previous?.files[file] : undefined;
          const got = await fetchToFile(ctx, url, inside(staging, file), ctx.base.origin, signal, cached);
          if (got.notModified) {
            ctx.settings.emit({ type: "file", skill: entry.name, file, bytes: 0, cached: true });
            return { file, reused: true, state: cached as FileState };
          }
          ctx.settings.emit({ type: "file", skill: entry.name, file, bytes: got.bytes, cached: false });
          const state: FileState = {
            size: got.bytes,
            sha256: got.sha256,
            ...(got.etag === undefined ? {} : { etag: got.etag }),
            ...(got.lastModified === undefined ? {} : { lastModified: got.lastModified }),
          };
          return { file, reused: false, state };
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
  if (failure) throw outer?.aborted ? fetchAborted(outer) : failure;
  return results;
}
