import { memorySource, originRank, type SkillMetadata, SkillService } from "@skill/core";
import { formatCatalog } from "@skill/format";
import { createSkillIndex } from "@skill/search";
import { skillTools } from "@skill/tool";
import type { ChildOutput } from "../protocol.js";
import * as set from "../search-set.js";

export interface SearchInput {
  readonly skills: number;
  readonly seed: number;
  /** Rounds of the tools and their baseline, `replace` calls after one change, rounds of the request set. */
  readonly builds: number;
  readonly replaces: number;
  readonly queryRounds: number;
}

function time(work: () => unknown): number {
  const start = performance.now();
  work();
  return performance.now() - start;
}

/**
 * `@skill/search` at `skills` skills. Samples in ms: `coldBuild` (the first `createSkillIndex` of
 * the process), `replace`, `query`, `tools` (`skillTools` over a registry of the skills, catalog
 * and definitions read) and its `toolsBaseline`; then counts and recall@5 (`ours@5`, …) on the
 * real catalog.
 */
export async function run(input: SearchInput): Promise<ChildOutput> {
  const [skills, requests] = [set.scaledCatalog(input.skills, input.seed), set.searchRequests()];
  let index = createSkillIndex([]);
  const coldBuild = time(() => (index = createSkillIndex(skills)));
  const replace: number[] = [];
  let current: SkillMetadata[] = skills;
  for (let i = 0; i < input.replaces; i++) {
    const [at, next] = [(i * 7919) % current.length, [...current]];
    next[at] = { ...(next[at] as SkillMetadata), description: `${next[at]?.description} Edited ${i}.` };
    replace.push(time(() => index.replace(next)));
    current = next;
  }
  const query = Array.from({ length: input.queryRounds }, () =>
    requests.map((r) => time(() => index.search(r.query))),
  ).flat();

  const text = (s: SkillMetadata) =>
    `---\nname: ${s.name}\ndescription: ${JSON.stringify(s.description)}\n---\n`;
  const entries = skills.map((s) => ({ location: `mem:${s.name}`, text: text(s) }));
  const service = new SkillService({ sources: [memorySource("project:bench", entries)] });
  await service.discoverAndLoad();
  const [agent, tools, toolsBaseline] = [{ name: "bench" }, [] as number[], [] as number[]];
  const baseline = () => {
    const visible = service.all(agent);
    createSkillIndex(visible);
    formatCatalog(visible, { budget: 8000, location: false, rank: (s) => -originRank(s.origin) });
  };
  const withTools = () => {
    const made = skillTools(service, { agent, search: createSkillIndex([]) });
    made.catalog();
    void made.definitions;
  };
  for (let i = 0; i < input.builds; i++) {
    toolsBaseline.push(time(baseline));
    tools.push(time(withTools));
  }

  const real = set.catalogSkills();
  const ours = createSkillIndex(real);
  const rankers: Record<string, set.Ranker> = {
    ours: (q, limit) => ours.search(q, { limit }).map((h) => h.name),
    substring: set.substringRanker(real),
    minisearch: set.untunedMiniSearchRanker(real),
  };
  const recall = Object.entries(rankers).map(([who, rank]) => [`${who}@5`, set.recallOf(rank, requests)]);
  const counts = { catalog: real.length, requests: requests.length, ...Object.fromEntries(recall) };
  const samples = { coldBuild, replace, query, tools, toolsBaseline };
  return { found: index.size, samples: { ...samples, ...counts } };
}
