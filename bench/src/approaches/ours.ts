// Ours exactly as a harness calls it: discovery sources, full parse and validation.
import { type FileKey, fileHeadCache, type HeadCache, SkillService } from "@skill/core";
import { compareAgents, discoverySources } from "@skill/discovery";
import type { TreeLayout } from "../layout.js";
import type { ChildOutput } from "../protocol.js";

function sourcesOf(layout: TreeLayout) {
  return discoverySources({ cwd: layout.cwd, home: layout.home, paths: layout.paths });
}

export async function ours(layout: TreeLayout): Promise<ChildOutput> {
  const service = new SkillService({ sources: sourcesOf(layout) });
  const report = await service.discoverAndLoad();
  const skills = service.all();
  return { found: skills.length, pairs: skills, failed: report.failed.length };
}

export interface WarmInput {
  readonly layout: TreeLayout;
  /** The `fileHeadCache` file: written by an earlier load of the same tree (or absent: a cold start). */
  readonly cache: string;
}

/**
 * A warm start: ours with a `fileHeadCache` (contract 3), read inside the clock as a fresh
 * process must; an unchanged SKILL.md is stat'ed, not opened. `samples` counts the cache's
 * answers: a warm start over an unchanged tree misses nothing.
 */
export async function warm(input: WarmInput): Promise<ChildOutput> {
  const cache = fileHeadCache(input.cache);
  let hits = 0;
  let misses = 0;
  const counted: HeadCache = {
    get(key: FileKey) {
      const head = cache.get(key);
      if (head) hits++;
      else misses++;
      return head;
    },
    set: (key, head) => cache.set(key, head),
    delete: (path) => cache.delete?.(path),
    flush: () => cache.flush(),
  };
  const service = new SkillService({ sources: sourcesOf(input.layout), headCache: counted });
  const report = await service.discoverAndLoad();
  const skills = service.all();
  return { found: skills.length, pairs: skills, failed: report.failed.length, samples: { hits, misses } };
}

/**
 * What `skill doctor` computes: `compareAgents` over every preset. `found` counts the skills
 * the default preset loads, so the run is checked like one preset's load.
 */
export async function doctor(layout: TreeLayout): Promise<ChildOutput> {
  const report = await compareAgents({ cwd: layout.cwd, home: layout.home, paths: layout.paths });
  const found = report.skills.filter((s) => s.cells.default?.loaded === true).length;
  return { found, samples: { agents: report.agents.length } };
}
