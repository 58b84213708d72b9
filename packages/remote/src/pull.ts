import { lstat, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { errnoOf, redactText, redactThrown, SkillError } from "@skill/core";
import { urlToDirName } from "./cache-dir.js";
import { acquireLock } from "./cache-lock.js";
import { cachedState, legacyCopy, type PackState, readIndexCopy, readState, recover } from "./cache-state.js";
import { cachedResult } from "./cached-pack.js";
import { defaultFetch, fetchAborted } from "./http.js";
import { fetchIndex, type IndexAnswer, indexCandidates, parseIndexText } from "./index-fetch.js";
import { cacheError, type PullOptions, type PullResult, type Settings, settle } from "./options.js";
import { loadLimiter, PackSync } from "./pack-sync.js";

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
      skipped: result.skipped.map((s) => ({ ...s, reason: redactText(s.reason) })),
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
