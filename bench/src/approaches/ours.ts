// Ours as a harness calls it: discovery sources, full parse and validation; cold, warm, and doctor.
import { fileHeadCache, type HeadCache, SkillService } from "@skill/core";
import { compareAgents, discoverySources } from "@skill/discovery";
import type { TreeLayout } from "../layout.js";
import type { ChildOutput } from "../protocol.js";

async function load(layout: TreeLayout, headCache?: HeadCache): Promise<ChildOutput> {
  const sources = discoverySources({ cwd: layout.cwd, home: layout.home, paths: layout.paths });
  const service = new SkillService({ sources, ...(headCache ? { headCache } : {}) });
  const report = await service.discoverAndLoad();
  const skills = service.all();
  return { found: skills.length, pairs: skills, failed: report.failed.length };
}

export const ours = (layout: TreeLayout) => load(layout);

/** A warm start: the `fileHeadCache` file read inside the clock, as a fresh process must; samples count its answers. */
export async function warm(input: { layout: TreeLayout; cache: string }): Promise<ChildOutput> {
  const cache = fileHeadCache(input.cache);
  const samples = { hits: 0, misses: 0 };
  const counted: HeadCache = {
    get(key) {
      const head = cache.get(key);
      samples[head ? "hits" : "misses"]++;
      return head;
    },
    set: (key, head) => cache.set(key, head),
    delete: (path) => cache.delete?.(path),
    flush: () => cache.flush(),
  };
  return { ...(await load(input.layout, counted)), samples };
}

/** What `skill doctor` computes: `compareAgents` over every preset; `found` is what the default preset loads. */
export async function doctor(layout: TreeLayout): Promise<ChildOutput> {
  const report = await compareAgents({ cwd: layout.cwd, home: layout.home, paths: layout.paths });
  const found = report.skills.filter((s) => s.cells.default?.loaded === true).length;
  return { found, samples: { agents: report.agents.length } };
}
