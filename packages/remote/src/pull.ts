import { randomBytes } from "node:crypto";
import { lstat, mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { compareCodeUnits, errnoOf, formatBytes, SkillError } from "@skill/core";
import { preloadArchiveReaders } from "./archive.js";
import { urlToDirName } from "./cache-dir.js";
import { acquireLock } from "./cache-lock.js";
import {
  cachedState,
  legacyCopy,
  type PackState,
  presentFiles,
  readIndexCopy,
  readState,
  recover,
  type SkillState,
  table,
} from "./cache-state.js";
import { commit, discard } from "./commit.js";
import { damagedList, type Outcome, type PullContext, syncSkill } from "./download.js";
import { defaultFetch, type FetchLike, fetchAborted } from "./http.js";
import { fetchIndex, type IndexAnswer, indexCandidates, parseIndexText } from "./index-fetch.js";
import { checkManifest, type RemoteSkillEntry, type SkippedSkill } from "./manifest.js";
import { cacheError, KEPT, type PullOptions, type PullResult, type Settings, settle } from "./options.js";
import { redact, redactThrown } from "./redact.js";
import { nameProblem } from "./safe-path.js";

export type { PullOptions, PullProgress, PullResult } from "./options.js";

/**
 * Downloads a skill pack into the cache. Finds the index (a `.json` URL is the index; a site
 * tries `/.well-known/agent-skills/index.json`, then `/.well-known/skills/index.json`; anything
 * else is a pack base holding `index.json`), checks it ({@link parseManifest}), and brings every
 * valid skill to `<cacheDir>/<urlToDirName(url)>/<name>/`. v0.2 artifacts are verified against
 * their `digest` while they stream, and archives are unpacked under strict rules. A skill is
 * replaced only when all its bytes arrived and were verified; skills no longer listed are removed.
 *
 * Warm pulls are cheap: the index is asked for with its validators (a 304 answers from the kept
 * copy), digest-pinned entries whose digest did not change are not requested, and v0.1 files
 * are revalidated (`If-None-Match` / `If-Modified-Since`) or skipped by an unchanged `version`.
 *
 * When no valid index can be had and the pack was pulled before, the last good copy is returned
 * with `fromCache: true` and a logger warning.
 *
 * @throws SkillError `INVALID_URL`, `HTTP_ERROR` (with `status`), `REMOTE_ERROR`, `LIMIT_EXCEEDED`
 * (index too large), `ABORTED`, `UNSAFE_PATH` (the pack folder is a symlink), a write error (cache not writable)
 * @example
 * const { files } = await pull("https://example.com", { cacheDir: defaultCacheDir() });
 */
export async function pull(url: string, options: PullOptions): Promise<PullResult> {
  try {
    const result = await pullPack(url, options);
    return {
      ...result,
      skipped: result.skipped.map((s) => ({ ...s, reason: redact(s.reason) })),
    };
  } catch (error) {
    throw redactThrown(error);
  }
}

async function pullPack(url: string, options: PullOptions): Promise<PullResult> {
  const settings = settle(options);
  const candidates = indexCandidates(url);
  const packDir = join(settings.cacheDir, urlToDirName(url));
  // Every call pulls for itself, with its own fetch, limits and listeners: a second pull of a
  // pack waits on its lock, then revalidates what the first one left (one conditional request
  // when nothing changed).
  return pullWithDeadline(url, candidates, packDir, settings);
}

async function pullWithDeadline(
  url: string,
  candidates: readonly string[],
  packDir: string,
  settings: Settings,
): Promise<PullResult> {
  const deadline = new AbortController();
  const timer = setTimeout(() => {
    deadline.abort(
      new SkillError(
        "REMOTE_ERROR",
        `Remote fetch failed: the pull of ${url} did not finish within ${settings.pullTimeoutMs} ms (pullTimeoutMs)`,
        { url },
      ),
    );
  }, settings.pullTimeoutMs);
  const signal = settings.signal ? AbortSignal.any([settings.signal, deadline.signal]) : deadline.signal;
  try {
    return await pullLocked(url, candidates, packDir, settings, signal);
  } finally {
    clearTimeout(timer);
  }
}

async function preparePackDir(cacheDir: string, packDir: string): Promise<void> {
  try {
    await mkdir(cacheDir, { recursive: true });
    await mkdir(packDir).catch((error: unknown) => {
      if (errnoOf(error) !== "EEXIST") throw error;
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

/** The cached `SKILL.md` paths a state vouches for, sorted. */
export async function cachedFiles(packDir: string, state: PackState): Promise<string[]> {
  const files: string[] = [];
  for (const name of Object.keys(state.skills)) {
    if (nameProblem(name) !== undefined) continue;
    const dir = join(packDir, name);
    if ((await presentFiles(dir, ["SKILL.md"])).has("SKILL.md")) files.push(join(dir, "SKILL.md"));
  }
  return files.sort(compareCodeUnits);
}

/** The last good copy as a result (`fromCache: true`). */
export async function cachedResult(
  packDir: string,
  state: PackState,
  fallbackIndex: string,
): Promise<PullResult> {
  return {
    files: await cachedFiles(packDir, state),
    skipped: [],
    fromCache: true,
    dir: packDir,
    indexUrl: state.index?.url ?? fallbackIndex,
    changed: [],
  };
}

/**
 * The pack's cached copy without touching the network or the lock, with the time its index was
 * last checked (ms since the epoch; 0 when unknown), or `undefined` when it was never pulled.
 */
export async function readCachedPack(
  url: string,
  cacheDir: string,
): Promise<{ readonly result: PullResult; readonly checkedAt: number } | undefined> {
  const root = resolve(cacheDir);
  const copy = await cachedState(root, url, join(root, urlToDirName(url)));
  if (!copy) return undefined;
  const { packDir, state } = copy;
  const checkedAt = Date.parse(state.checkedAt ?? state.pulledAt);
  return {
    result: await cachedResult(packDir, state, indexCandidates(url)[0] as string),
    checkedAt: Number.isFinite(checkedAt) ? checkedAt : 0,
  };
}

async function pullLocked(
  url: string,
  candidates: readonly string[],
  packDir: string,
  settings: Settings,
  signal: AbortSignal,
): Promise<PullResult> {
  const callerAborted = () => settings.signal?.aborted === true;
  if (callerAborted()) throw fetchAborted(settings.signal as AbortSignal);
  if (settings.offline) {
    const copy = await cachedState(settings.cacheDir, url, packDir);
    if (copy) return cachedResult(copy.packDir, copy.state, candidates[0] as string);
    throw new SkillError(
      "REMOTE_ERROR",
      `Remote fetch failed: offline, and ${candidates[0]} was never pulled into ${packDir}`,
      { url: candidates[0] as string },
    );
  }
  // The modules a pull needs load while it takes the lock and asks for the index.
  const fetchReady = settings.fetch === undefined ? defaultFetch() : undefined;
  fetchReady?.catch(() => {});
  loadLimiter().catch(() => {});
  await preparePackDir(settings.cacheDir, packDir);
  const lock = await acquireLock(packDir, signal).catch((error: unknown) => {
    throw cacheError(error, packDir);
  });
  let state: PackState | undefined;
  try {
    state = await readState(packDir);
    await recover(packDir, state).catch((error: unknown) => {
      throw cacheError(error, packDir);
    });
    const fetch = settings.fetch ?? (await (fetchReady ?? defaultFetch()));
    let answer: IndexAnswer;
    let value: unknown;
    try {
      const copy = state?.index ? await readIndexCopy(packDir) : undefined;
      answer = await fetchIndex(candidates, fetch, settings, signal, state?.index, copy !== undefined);
      value = answer.notModified ? parseIndexText(copy as string, answer.url) : answer.value;
    } catch (error) {
      if (callerAborted()) throw fetchAborted(settings.signal as AbortSignal, candidates[0]);
      const e = signal.aborted ? fetchAborted(signal) : cacheError(error, packDir);
      const copy = state ? { packDir, state } : await legacyCopy(settings.cacheDir, url);
      if (!copy) throw e;
      settings.logger.warn(
        `${e.message}; serving the copy cached at ${copy.state.pulledAt || "an earlier pull"}`,
        {
          code: e.code,
          url: candidates[0] as string,
          path: copy.packDir,
        },
      );
      return cachedResult(copy.packDir, copy.state, candidates[0] as string);
    }
    const sync = new PackSync(url, answer, packDir, state, fetch, settings, signal);
    return await sync.run(value);
  } catch (error) {
    // The pull's own deadline passed mid-download: the cache is untouched, so serve it.
    if (!callerAborted() && signal.aborted && state && SkillError.isInstance(error)) {
      settings.logger.warn(
        `${error.message}; serving the copy cached at ${state.pulledAt || "an earlier pull"}`,
        {
          code: error.code,
          path: packDir,
        },
      );
      return cachedResult(packDir, state, candidates[0] as string);
    }
    throw error;
  } finally {
    await lock.release();
  }
}

let limiter: Promise<typeof import("p-limit")> | undefined;

/** p-limit, loaded once. */
function loadLimiter(): Promise<typeof import("p-limit")> {
  limiter ??= import("p-limit").catch((error: unknown) => {
    limiter = undefined;
    throw error;
  });
  return limiter;
}

/** One pull of one pack, under its lock: stage every skill, then commit them together. */
class PackSync {
  readonly #pullId = randomBytes(4).toString("hex");

  constructor(
    readonly url: string,
    readonly answer: IndexAnswer,
    readonly packDir: string,
    readonly state: PackState | undefined,
    readonly fetch: FetchLike,
    readonly settings: Settings,
    readonly signal: AbortSignal,
  ) {}

  /** Entries past `maxPackFiles` are skipped before anything is requested. */
  #capFiles(skills: readonly RemoteSkillEntry[]): {
    keep: RemoteSkillEntry[];
    over: SkippedSkill[];
    count: number;
  } {
    const keep: RemoteSkillEntry[] = [];
    const over: SkippedSkill[] = [];
    let count = 0;
    for (const entry of skills) {
      const n = entry.files?.length ?? 1;
      if (count + n > this.settings.maxPackFiles) {
        over.push({
          name: entry.name,
          code: "LIMIT_EXCEEDED",
          reason: `the pack lists more than ${this.settings.maxPackFiles} files (maxPackFiles); this skill is past the limit`,
        });
        continue;
      }
      count += n;
      keep.push(entry);
    }
    return { keep, over, count };
  }

  async run(value: unknown): Promise<PullResult> {
    const { settings, packDir, answer } = this;
    const indexUrl = answer.url;
    const checked = checkManifest(value);
    const { manifest, listed } = checked;
    const capped = this.#capFiles(manifest.skills);
    // An entry that is listed but invalid now keeps the copy an earlier, valid index brought.
    const keptInvalid = table<SkillState>();
    const valid = new Set(capped.keep.map((e) => e.name));
    for (const s of [...checked.skipped, ...capped.over]) {
      const previous = this.state?.skills[s.name];
      if (!previous || !listed.has(s.name) || valid.has(s.name)) continue;
      const files = Object.keys(previous.files);
      if ((await presentFiles(join(packDir, s.name), files)).size === files.length)
        keptInvalid[s.name] = previous;
    }
    const invalid = [...checked.skipped, ...capped.over].map((s) =>
      keptInvalid[s.name] ? { ...s, reason: `${s.reason}${KEPT}` } : s,
    );
    settings.emit({
      type: "index",
      url: indexUrl,
      skills: capped.keep.length,
      files: capped.keep.reduce((n, s) => n + (s.files?.length ?? 1), 0),
      skipped: invalid.length,
    });
    for (const s of invalid)
      settings.emit({ type: "skill", name: s.name, status: "skipped", reason: s.reason });

    // Archives whose digest the cache does not hold yet will be downloaded: their reader loads now.
    const archives = capped.keep.filter(
      (e) =>
        e.type === "archive" && e.digest !== undefined && this.state?.skills[e.name]?.digest !== e.digest,
    );
    if (archives.length > 0) preloadArchiveReaders(archives.map((e) => e.url ?? ""));
    const { default: pLimit } = await loadLimiter();
    const skillLimit = pLimit(settings.concurrency);
    // A digest-pinned skill is one request, then an unpack that needs no request slot: twice as
    // many of them in progress keep the slots busy (`limit` below still caps the requests).
    const pinnedLimit = pLimit(settings.concurrency * 2);
    const ctx: PullContext = {
      base: new URL(".", indexUrl),
      indexUrl,
      packDir,
      fetch: this.fetch,
      settings,
      signal: this.signal,
      budget: { used: 0, limit: settings.maxTotalBytes },
      packFiles: { count: capped.count },
      limit: pLimit(settings.concurrency),
    };
    const outcomes: Outcome[] = await Promise.all(
      capped.keep.map((entry) =>
        (entry.digest === undefined ? skillLimit : pinnedLimit)(() =>
          syncSkill(ctx, entry, this.state?.skills[entry.name]),
        ),
      ),
    );
    if (this.signal.aborted) {
      await discard(outcomes);
      throw fetchAborted(this.signal);
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

    const now = new Date().toISOString();
    const index = answer.notModified
      ? this.state?.index
      : {
          url: indexUrl,
          ...(answer.etag === undefined ? {} : { etag: answer.etag }),
          ...(answer.lastModified === undefined ? {} : { lastModified: answer.lastModified }),
        };
    const removed = await commit(
      packDir,
      outcomes,
      listed,
      {
        format: 1,
        url: this.url,
        pullId: this.#pullId,
        pulledAt: now,
        checkedAt: now,
        ...(index ? { index } : {}),
        skills,
      },
      answer.notModified ? undefined : answer.text,
    );
    for (const name of removed) settings.emit({ type: "skill", name, status: "removed" });

    const skipped = [...invalid, ...failed];
    if (skipped.length > 0) {
      const first = skipped[0] as SkippedSkill;
      settings.logger.warn(
        `Skill pack ${indexUrl}: skipped ${skipped.length} of ${manifest.skills.length + checked.skipped.length} skills (first: ${first.name}: ${first.reason})`,
        { url: indexUrl, code: first.code },
      );
      for (const s of skipped)
        settings.logger.debug?.(`Skipped skill ${s.name}: ${s.reason}`, { code: s.code });
    }
    if (ctx.budget.used > 0)
      settings.logger.debug?.(`Pulled ${formatBytes(ctx.budget.used)} from ${indexUrl}`);
    for (const o of outcomes) {
      if (o.kind !== "staged" || !o.restored) continue;
      settings.logger.warn(
        `Skill pack ${indexUrl}: restored ${o.entry.name}, whose cached copy no longer matched what was pulled (${damagedList(o.restored)})`,
        { url: indexUrl, code: "INTEGRITY_ERROR", name: o.entry.name, path: join(packDir, o.entry.name) },
      );
    }
    const skillMd = (name: string) => join(packDir, name, "SKILL.md");
    const changed = [
      ...outcomes
        .filter((o) => o.kind === "staged")
        .map((o) => ({
          name: o.entry.name,
          ...(this.state?.skills[o.entry.name] ? { before: skillMd(o.entry.name) } : {}),
          after: skillMd(o.entry.name),
          ...(o.restored ? { restored: o.restored } : {}),
        })),
      ...removed.map((name) => ({ name, before: skillMd(name) })),
    ].sort((a, b) => compareCodeUnits(a.name, b.name));
    const files = Object.keys(skills).map(skillMd).sort(compareCodeUnits);
    return { files, skipped, fromCache: false, dir: packDir, indexUrl, changed };
  }
}
