import { type FileKey, fileHeadCache, type HeadCache, type SkillHead, SkillService } from "@skill/core";
import { discoverySources } from "@skill/discovery";
import type { TreeLayout } from "../tree.js";
import type { LocalOutput } from "./types.js";

export interface WarmInput {
  readonly layout: TreeLayout;
  /** The `fileHeadCache` file: written by an earlier load of the same tree (or absent: a cold start). */
  readonly cache: string;
}

/** What the cache answered during the load: a warm start over an unchanged tree misses nothing. */
export interface WarmSamples {
  readonly hits: number;
  readonly misses: number;
}

/** Counts the answers of `cache`, passing every call through. */
function counted(cache: HeadCache): HeadCache & WarmSamples {
  let hits = 0;
  let misses = 0;
  return {
    get hits() {
      return hits;
    },
    get misses() {
      return misses;
    },
    get(key: FileKey): SkillHead | undefined {
      const head = cache.get(key);
      if (head) hits++;
      else misses++;
      return head;
    },
    set: (key, head) => cache.set(key, head),
    delete: (path) => cache.delete?.(path),
    flush: () => cache.flush(),
  };
}

/**
 * A warm start: ours exactly as `ours.ts` calls it, with a `fileHeadCache` (contract 3). The
 * cache file is read inside the clock, as a fresh process must; an unchanged SKILL.md is
 * stat'ed, not opened.
 */
export async function run(input: WarmInput): Promise<LocalOutput & { samples: WarmSamples }> {
  const { layout } = input;
  const cache = counted(fileHeadCache(input.cache));
  const service = new SkillService({
    sources: discoverySources({ cwd: layout.cwd, home: layout.home, paths: layout.paths }),
    headCache: cache,
  });
  const report = await service.discoverAndLoad();
  const skills = service.all();
  return {
    found: skills.length,
    pairs: skills,
    failed: report.failed.length,
    samples: { hits: cache.hits, misses: cache.misses },
  };
}
