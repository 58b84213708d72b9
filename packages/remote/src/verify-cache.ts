import { join, resolve } from "node:path";
import { compareCodeUnits, redactThrown } from "@skill/core";
import { urlToDirName } from "./cache-dir.js";
import { cachedState, packDirs, readState } from "./cache-state.js";
import { nameProblem } from "./safe-path.js";
import { checkCachedSkill } from "./skill-check.js";

/** One thing `verifyCache` found wrong. */
export interface VerifyProblem {
  /** The pack's URL as it was pulled. */
  readonly url: string;
  readonly name: string;
  /** The file concerned (absolute), or the skill folder. */
  readonly path: string;
  /** `modified`: bytes differ from what was verified; `missing`; `extra`: a file nobody pulled; `unverifiable`: no digest recorded. */
  readonly kind: "modified" | "missing" | "extra" | "unverifiable";
}

export interface VerifyReport {
  /** True when every skill checked is byte-for-byte what was pulled. */
  readonly ok: boolean;
  /** Packs checked: those with a recorded pull (0 for a URL never pulled into this cache). */
  readonly packs: number;
  /** Skills checked. */
  readonly checked: number;
  readonly problems: readonly VerifyProblem[];
}

/**
 * Re-hashes cached skills against the SHA-256 recorded when they were pulled and verified, and
 * reports files changed on disk (`modified`), gone (`missing`), added (`extra`), or skills with
 * nothing recorded to check against (`unverifiable`, a cache written before digests were kept).
 * Checks the pack of `url`, or every pack under `cacheDir`.
 *
 * @throws SkillError `INVALID_URL` for a bad `url`
 * @example
 * const report = await verifyCache(defaultCacheDir());
 * if (!report.ok) for (const p of report.problems) console.warn(`${p.kind}: ${p.path}`);
 */
export async function verifyCache(cacheDir: string, url?: string): Promise<VerifyReport> {
  const problems: VerifyProblem[] = [];
  let checked = 0;
  const root = resolve(cacheDir);
  let packs: string[];
  try {
    packs = url === undefined ? await packDirs(root) : [join(root, urlToDirName(url))];
  } catch (error) {
    throw redactThrown(error);
  }
  let pulled = 0;
  for (const own of packs) {
    const copy = url === undefined ? undefined : await cachedState(root, url, own);
    const packDir = copy?.packDir ?? own;
    const state = copy?.state ?? (await readState(packDir));
    if (!state) continue;
    pulled++;
    const packUrl = url ?? state.url;
    for (const name of Object.keys(state.skills).sort(compareCodeUnits)) {
      if (nameProblem(name) !== undefined) continue;
      const skill = state.skills[name];
      if (!skill) continue;
      checked++;
      const dir = join(packDir, name);
      const found = await checkCachedSkill(dir, skill);
      if (found.unverifiable) {
        problems.push({ url: packUrl, name, path: dir, kind: "unverifiable" });
        continue;
      }
      const at = (file: string) => join(dir, ...file.split("/"));
      const kinds = new Map<string, "modified" | "missing">([
        ...found.modified.map((f) => [f, "modified"] as const),
        ...found.missing.map((f) => [f, "missing"] as const),
      ]);
      for (const file of [...kinds.keys()].sort(compareCodeUnits)) {
        problems.push({
          url: packUrl,
          name,
          path: at(file),
          kind: kinds.get(file) as "modified" | "missing",
        });
      }
      for (const file of found.extra) problems.push({ url: packUrl, name, path: at(file), kind: "extra" });
    }
  }
  return { ok: problems.length === 0, packs: pulled, checked, problems };
}
