import { memorySource, originRank, type SkillMetadata, SkillService } from "@skill/core";
import { formatCatalog } from "@skill/format";
import { createSkillIndex, loadSkillIndex } from "@skill/search";
import { skillTools } from "@skill/tool";
import type { ChildOutput } from "../protocol.js";
import {
  catalogSkills,
  recallOf,
  scaledCatalog,
  searchRequests,
  substringRanker,
  untunedMiniSearchRanker,
} from "../search-set.js";

export interface SearchInput {
  /** Skills in the timed index. */
  readonly skills: number;
  readonly seed: number;
  /** Builds after the first (timed, warm), and `replace` calls after one change. */
  readonly builds: number;
  readonly replaces: number;
  /** Times the request set is queried. */
  readonly queryRounds: number;
  /** Where catalog.json and requests.json are; the bench's default when absent. */
  readonly fixtures?: string;
}

function time(work: () => unknown): number {
  const start = performance.now();
  work();
  return performance.now() - start;
}

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * `@skill/search` at `skills` skills. Samples in milliseconds: `coldBuild` (the first
 * `createSkillIndex` of the process) and later `build`s, each with its CPU time (`…Cpu`: on a
 * shared machine wall time also counts waiting), `replace` with one skill changed, `query` of
 * each request, `load` of the saved index, `tools` (`skillTools` over a registry of the same
 * skills, catalog and definitions read) and its baseline `toolsBaseline` (an index build plus
 * one `formatCatalog`); then `catalog` and `requests` counts and recall@1/@5 (`ours@1`,
 * `substring@5`, …) of ours, a substring match and an untuned MiniSearch on the real catalog.
 */
export async function run(input: SearchInput): Promise<ChildOutput> {
  const dir = input.fixtures;
  const skills = scaledCatalog(input.skills, input.seed, dir);
  const requests = searchRequests(dir);

  let index = createSkillIndex([]);
  const build: number[] = [];
  const buildCpu: number[] = [];
  for (let i = 0; i <= input.builds; i++) {
    const cpu = cpuMs();
    build.push(
      time(() => {
        index = createSkillIndex(skills);
      }),
    );
    buildCpu.push(cpuMs() - cpu);
  }

  const replace: number[] = [];
  let current: SkillMetadata[] = skills;
  for (let i = 0; i < input.replaces; i++) {
    const at = (i * 7919) % current.length;
    const next = [...current];
    const old = next[at] as SkillMetadata;
    next[at] = { ...old, description: `${old.description} Edited ${i}.` };
    replace.push(time(() => index.replace(next)));
    current = next;
  }

  const query: number[] = [];
  for (let round = 0; round < input.queryRounds; round++) {
    for (const { query: text } of requests) query.push(time(() => index.search(text)));
  }

  const saved = JSON.parse(JSON.stringify(index)) as unknown;
  const load: number[] = [];
  for (let i = 0; i < input.builds; i++) load.push(time(() => loadSkillIndex(saved, current)));

  const text = (skill: SkillMetadata) =>
    `---\nname: ${skill.name}\ndescription: ${JSON.stringify(skill.description)}\n---\n`;
  const entries = skills.map((skill) => ({ location: `mem:${skill.name}`, text: text(skill) }));
  const service = new SkillService({ sources: [memorySource("project:bench", entries)] });
  await service.discoverAndLoad();
  const agent = { name: "bench" };
  const tools: number[] = [];
  const toolsBaseline: number[] = [];
  for (let i = 0; i < input.builds; i++) {
    toolsBaseline.push(
      time(() => {
        const visible = service.all(agent);
        createSkillIndex(visible);
        formatCatalog(visible, { budget: 8000, location: false, rank: (s) => -originRank(s.origin) });
      }),
    );
    tools.push(
      time(() => {
        const made = skillTools(service, { agent, search: createSkillIndex([]) });
        made.catalog();
        void made.definitions;
      }),
    );
  }

  const real = catalogSkills(dir);
  const ours = createSkillIndex(real);
  const recall = {
    ours: recallOf((q, limit) => ours.search(q, { limit }).map((h) => h.name), requests),
    substring: recallOf(substringRanker(real), requests),
    minisearch: recallOf(untunedMiniSearchRanker(real), requests),
  };
  const [coldBuild = Number.NaN, ...later] = build;
  const [coldBuildCpu = Number.NaN, ...laterCpu] = buildCpu;
  return {
    found: index.size,
    samples: {
      coldBuild,
      build: later,
      coldBuildCpu,
      buildCpu: laterCpu,
      replace,
      query,
      load,
      tools,
      toolsBaseline,
      catalog: real.length,
      requests: requests.length,
      ...Object.fromEntries(
        Object.entries(recall).flatMap(([who, r]) => [
          [`${who}@1`, r.at1],
          [`${who}@5`, r.at5],
        ]),
      ),
    },
  };
}
