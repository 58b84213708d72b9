import { join, resolve } from "node:path";
import { compareCodeUnits } from "@skill/core";
import { urlToDirName } from "./cache-dir.js";
import { cachedState, type PackState, presentFiles } from "./cache-state.js";
import { indexCandidates } from "./index-fetch.js";
import type { PullResult } from "./options.js";
import { nameProblem } from "./safe-path.js";

/** The cached `SKILL.md` paths a state vouches for, sorted. */
async function cachedFiles(packDir: string, state: PackState): Promise<string[]> {
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
