import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { lstat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { compareCodeUnits, SkillError, skillFiles } from "@skill/core";
import { urlToDirName } from "./cache-dir.js";
import { cachedState, packDirs, readState } from "./cache-state.js";
import { redactThrown } from "./redact.js";
import { nameProblem } from "./safe-path.js";

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

async function sha256(path: string): Promise<string | undefined> {
  try {
    if (!(await lstat(path)).isFile()) return undefined;
  } catch {
    return undefined;
  }
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/**
 * What the cached skill folder holds, as core's walker lists it: every file, dot-files,
 * nested skills and links included (a link is never followed out), so that anything planted
 * there that a skill could serve is seen. A folder too large to list is itself the problem.
 */
async function listed(dir: string): Promise<{ files: string[] } | { tooLarge: string }> {
  try {
    const files = await skillFiles(dir, {
      hidden: true,
      nested: true,
      links: true,
      limit: Number.POSITIVE_INFINITY,
      maxBytes: Number.POSITIVE_INFINITY,
    });
    return { files: files.map((f) => f.path) };
  } catch (error) {
    if (SkillError.isInstance(error) && error.code === "LIMIT_EXCEEDED") {
      return { tooLarge: error.path ?? dir };
    }
    return { files: [] }; // gone or unreadable: every recorded file is then missing
  }
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
      const recorded = Object.entries(skill.files);
      if (recorded.some(([, f]) => f.sha256 === undefined)) {
        problems.push({ url: packUrl, name, path: dir, kind: "unverifiable" });
        continue;
      }
      for (const [file, meta] of recorded.sort(([a], [b]) => compareCodeUnits(a, b))) {
        const path = join(dir, ...file.split("/"));
        const found = await sha256(path);
        if (found === undefined) problems.push({ url: packUrl, name, path, kind: "missing" });
        else if (found !== meta.sha256) problems.push({ url: packUrl, name, path, kind: "modified" });
      }
      const known = new Set(recorded.map(([file]) => file));
      const found = await listed(dir);
      if ("tooLarge" in found) {
        problems.push({ url: packUrl, name, path: found.tooLarge, kind: "extra" });
        continue;
      }
      for (const file of found.files) {
        if (!known.has(file))
          problems.push({ url: packUrl, name, path: join(dir, ...file.split("/")), kind: "extra" });
      }
    }
  }
  return { ok: problems.length === 0, packs: pulled, checked, problems };
}
