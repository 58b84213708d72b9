import { performance } from "node:perf_hooks";
import { memorySource, originRank, type SkillMetadata, SkillService } from "@skill/core";
import { formatCatalog } from "@skill/format";
import { createSkillIndex, loadSkillIndex } from "@skill/search";
import { skillTools } from "@skill/tool";
import {
  catalogSkills,
  type Recall,
  recallOf,
  scaledCatalog,
  searchRequests,
  substringRanker,
  untunedMiniSearchRanker,
} from "../search-set.js";
import type { LocalOutput } from "./types.js";

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

/** What the search child measured: times in milliseconds, recall over the request set. */
export interface SearchSamples {
  /** The first `createSkillIndex` of this process (cold: nothing compiled yet). */
  readonly coldBuild: number;
  readonly build: number[];
  /** CPU time (user + system) of the same builds: on a shared machine, wall time also counts waiting. */
  readonly coldBuildCpu: number;
  readonly buildCpu: number[];
  /** `replace` of the same skills with one of them changed. */
  readonly replace: number[];
  readonly query: number[];
  /** `loadSkillIndex` of the saved index (JSON parsed) with nothing changed. */
  readonly load: number[];
  readonly requests: number;
  readonly catalog: number;
  readonly recall: Readonly<Record<"ours" | "substring" | "minisearch", Recall>>;
  /** `skillTools` over a registry of the same skills: built, its catalog and definitions read. */
  readonly tools: number[];
  /** What it is measured against: `createSkillIndex` of those skills plus one `formatCatalog`. */
  readonly toolsBaseline: number[];
}

/**
 * `@skill/search` at `skills` skills: index, replace after one change, query, warm start; then
 * recall@1/@5 of ours, a substring match and an untuned MiniSearch on the real catalog.
 */
export async function run(input: SearchInput): Promise<LocalOutput & { samples: SearchSamples }> {
  const dir = input.fixtures;
  const skills = scaledCatalog(input.skills, input.seed, dir);
  const requests = searchRequests(dir);
  const time = (work: () => unknown) => {
    const start = performance.now();
    work();
    return performance.now() - start;
  };
  const cpuMs = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };

  let index = createSkillIndex([]);
  const timedBuild = () => {
    const cpu = cpuMs();
    const wall = time(() => {
      index = createSkillIndex(skills);
    });
    return { wall, cpu: cpuMs() - cpu };
  };
  const cold = timedBuild();
  const build: number[] = [];
  const buildCpu: number[] = [];
  for (let i = 0; i < input.builds; i++) {
    const { wall, cpu } = timedBuild();
    build.push(wall);
    buildCpu.push(cpu);
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

  // The tools over a registry of the same skills, against an index build plus one catalog.
  const service = new SkillService({
    sources: [
      memorySource(
        "project:bench",
        skills.map((skill) => ({
          location: `mem:${skill.name}`,
          text: `---\nname: ${skill.name}\ndescription: ${JSON.stringify(skill.description)}\n---\n`,
        })),
      ),
    ],
  });
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
  return {
    found: index.size,
    samples: {
      coldBuild: cold.wall,
      build,
      coldBuildCpu: cold.cpu,
      buildCpu,
      replace,
      query,
      load,
      requests: requests.length,
      catalog: real.length,
      recall,
      tools,
      toolsBaseline,
    },
  };
}
