import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import {
  compareCodeUnits,
  DEFAULT_MAX_BYTES,
  parseSkill,
  quote,
  readInside,
  SKILL_FILE,
  SkillError,
  type SkillFolderStage,
  sha256Digest,
  stageSkillFolder,
} from "@skill/core";
import { type FileState, presentFiles, type SkillState, STAGING_PREFIX, table } from "./cache-state.js";
import { fetchBody } from "./fetch-body.js";
import { fetchAborted } from "./http.js";
import type { RemoteSkillEntry } from "./manifest.js";
import { cacheError, KEPT } from "./options.js";
import { artifactName, artifactUrl, fetchPinned } from "./pinned.js";
import type { Outcome, PullContext } from "./pull-context.js";
import { checkCachedSkill } from "./skill-check.js";

export type { Outcome, PullContext } from "./pull-context.js";

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

/** What the cached copy of a skill is worth: what may be reused, and what no longer matches. */
interface CachedCopy {
  readonly dir: string;
  readonly previousFiles: readonly string[];
  /** Files whose bytes are still what was verified: they may be reused (or revalidated with a 304). */
  readonly intact: ReadonlySet<string>;
  /** Files edited, gone or added since the pull, sorted. */
  readonly damaged: readonly string[];
  /** The previous state, when nothing of its copy is damaged. */
  readonly kept: SkillState | undefined;
}

async function cachedCopy(
  ctx: PullContext,
  entry: RemoteSkillEntry,
  previous?: SkillState,
): Promise<CachedCopy> {
  const dir = join(ctx.packDir, entry.name);
  const previousFiles = previous ? Object.keys(previous.files) : [];
  const present = previous
    ? await presentFiles(dir, [...new Set([...(entry.files ?? []), ...previousFiles])])
    : new Set<string>();
  const check = previous ? await checkCachedSkill(dir, previous, present) : undefined;
  const damaged = check ? [...check.modified, ...check.missing, ...check.extra].sort(compareCodeUnits) : [];
  const modified = new Set(check?.modified);
  const intact = new Set([...present].filter((f) => !modified.has(f)));
  return {
    dir,
    previousFiles,
    intact,
    damaged,
    kept: previous && damaged.length === 0 ? previous : undefined,
  };
}

/** Whether the cached copy can stay as it is without a download. */
function isUnchanged(entry: RemoteSkillEntry, copy: CachedCopy): boolean {
  const { kept, previousFiles } = copy;
  if (entry.digest !== undefined) {
    return kept !== undefined && kept.digest === entry.digest && previousFiles.length > 0;
  }
  return (
    kept !== undefined &&
    entry.version !== undefined &&
    entry.version === kept.version &&
    kept.digest === undefined &&
    sameSet(previousFiles, entry.files ?? [])
  );
}

/** The outcome of a skill whose cached copy stays: what the state records of it now. */
async function keptOutcome(ctx: PullContext, entry: RemoteSkillEntry, copy: CachedCopy): Promise<Outcome> {
  const pinned = entry.digest !== undefined;
  const kept = copy.kept as SkillState;
  for (const file of pinned ? [artifactName(entry)] : (entry.files ?? []))
    ctx.settings.emit({ type: "file", skill: entry.name, file, bytes: 0, cached: true });
  ctx.settings.emit({ type: "skill", name: entry.name, status: "unchanged" });
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
  return { kind: "unchanged", entry, state: await withHead(state, copy.dir) };
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
  const copy = await cachedCopy(ctx, entry, previous);
  if (isUnchanged(entry, copy)) return keptOutcome(ctx, entry, copy);
  let work: string | undefined;
  let stage: SkillFolderStage | undefined;
  try {
    if (ctx.signal?.aborted) throw fetchAborted(ctx.signal);
    work = await mkdtemp(join(ctx.packDir, STAGING_PREFIX)).catch((error: unknown) => {
      throw cacheError(error, ctx.packDir);
    });
    // The skill folder is written through core's stage inside the scratch folder, then put in
    // place with the others by the pack's commit.
    const dest = join(work, "skill");
    stage = await stageSkillFolder(dest, {
      within: ctx.settings.cacheDir,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
    const outcome = await stageSkill(ctx, entry, previous, copy, stage, work);
    if (outcome.kind === "unchanged") await rm(work, { recursive: true, force: true });
    return outcome;
  } catch (error) {
    await stage?.abort().catch(() => {});
    if (work) await rm(work, { recursive: true, force: true }).catch(() => {});
    return failedOutcome(ctx, entry, copy, error);
  }
}

/** Writes a skill into `stage` and commits it to `<work>/skill`: the staged outcome (or unchanged, when every file was reused). */
async function stageSkill(
  ctx: PullContext,
  entry: RemoteSkillEntry,
  previous: SkillState | undefined,
  copy: CachedCopy,
  stage: SkillFolderStage,
  work: string,
): Promise<Outcome> {
  const dest = join(work, "skill");
  const restored = copy.damaged.length > 0 ? { restored: copy.damaged } : {};
  if (entry.digest !== undefined) {
    const pulled = await fetchPinned(ctx, entry, stage, `${work}.archive`);
    await stage.commit();
    const staging = pulled.prefix === "" ? dest : join(dest, pulled.prefix);
    const state = await withHead(pulled.state, staging, pulled.skillMd);
    ctx.settings.emit({ type: "skill", name: entry.name, status: "done" });
    return { kind: "staged", entry, state, staging, work, ...restored };
  }
  const results = await fetchFiles(ctx, entry, stage, previous, copy.intact);
  const files = table<FileState>();
  for (const r of results) files[r.file] = r.state;
  const fresh: SkillState = { files, ...(entry.version === undefined ? {} : { version: entry.version }) };
  const { kept } = copy;
  const allReused = results.every((r) => r.reused) && sameSet(copy.previousFiles, entry.files ?? []);
  if (kept !== undefined && kept.digest === undefined && allReused) {
    await stage.abort();
    ctx.settings.emit({ type: "skill", name: entry.name, status: "unchanged" });
    const head = kept.frontmatter === undefined ? {} : { frontmatter: kept.frontmatter };
    return { kind: "unchanged", entry, state: await withHead({ ...fresh, ...head }, copy.dir) };
  }
  for (const r of results) if (r.reused) await reuseCached(copy.dir, r, stage);
  await stage.commit();
  const state = await withHead(fresh, dest);
  ctx.settings.emit({ type: "skill", name: entry.name, status: "done" });
  return { kind: "staged", entry, state, staging: dest, work, ...restored };
}

function failedOutcome(ctx: PullContext, entry: RemoteSkillEntry, copy: CachedCopy, error: unknown): Outcome {
  const e = cacheError(error, copy.dir);
  const why =
    copy.damaged.length > 0
      ? `its cached copy no longer matches what was pulled (${damagedList(copy.damaged)}) and could not be restored: `
      : "";
  const reason = `${why}${e.message}${copy.kept ? KEPT : ""}`;
  ctx.settings.emit({ type: "skill", name: entry.name, status: "skipped", reason });
  const failure =
    why === ""
      ? e
      : new SkillError(e.code, `${why}${e.message}`, { cause: e, ...(e.url ? { url: e.url } : {}) });
  return { kind: "failed", entry, error: failure, ...(copy.kept ? { kept: copy.kept } : {}) };
}

/**
 * Copies a cached file that is still valid into the stage: read through core's reader (never
 * through a link that leaves the skill folder, never more than its recorded size), checked
 * against its recorded SHA-256, written by the stage.
 */
async function reuseCached(dir: string, reused: FileOutcome, stage: SkillFolderStage): Promise<void> {
  const bytes = await readInside(dir, reused.file, { maxBytes: reused.state.size });
  const recorded = reused.state.sha256;
  if (recorded !== undefined && sha256Digest(bytes) !== `sha256:${recorded}`) {
    throw new SkillError(
      "INTEGRITY_ERROR",
      `Cached file ${join(dir, ...reused.file.split("/"))} changed while it was being reused`,
      { path: join(dir, ...reused.file.split("/")) },
    );
  }
  await stage.write(reused.file, bytes);
}

/** Fetches every file of a v0.1 skill into the stage; the first failure cancels the others. */
async function fetchFiles(
  ctx: PullContext,
  entry: RemoteSkillEntry,
  stage: SkillFolderStage,
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
          return await fetchFile(
            ctx,
            entry,
            file,
            stage,
            signal,
            present.has(file) ? previous?.files[file] : undefined,
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
      const e = cacheError(s.reason, stage.path);
      // Deterministic: the first real failure in file order, not a sibling's cancellation.
      if (!failure || (failure.code === "ABORTED" && e.code !== "ABORTED")) failure = e;
    }
  }
  if (failure) throw outer?.aborted ? fetchAborted(outer) : failure;
  return results;
}

/** One file of a v0.1 skill: revalidated against `cached` (a 304 reuses it), else downloaded and written by the stage. */
async function fetchFile(
  ctx: PullContext,
  entry: RemoteSkillEntry,
  file: string,
  stage: SkillFolderStage,
  signal: AbortSignal,
  cached: FileState | undefined,
): Promise<FileOutcome> {
  const url = fileUrl(ctx.base, entry.name, file).href;
  const got = await fetchBody(ctx, url, ctx.base.origin, signal, cached);
  if (got.notModified) {
    ctx.settings.emit({ type: "file", skill: entry.name, file, bytes: 0, cached: true });
    return { file, reused: true, state: cached as FileState };
  }
  await stage.write(file, got.body ?? Buffer.alloc(0));
  ctx.settings.emit({ type: "file", skill: entry.name, file, bytes: got.bytes, cached: false });
  const state: FileState = {
    size: got.bytes,
    sha256: got.sha256,
    ...(got.etag === undefined ? {} : { etag: got.etag }),
    ...(got.lastModified === undefined ? {} : { lastModified: got.lastModified }),
  };
  return { file, reused: false, state };
}
