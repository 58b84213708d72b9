import { memorySource, originRank, type SkillMetadata, SkillService } from "@skill/core";
import { formatCatalog } from "@skill/format";
import { createSkillIndex } from "@skill/search";
import { type SkillTools, skillTools } from "@skill/tool";
import type { ChildOutput } from "../protocol.js";
import * as set from "../search-set.js";

/** `builds`: rounds of the tools and their baseline; `replaces`: calls with one skill changed each. */
export type SearchInput = Readonly<Record<"skills" | "seed" | "builds" | "replaces" | "queryRounds", number>>;

function time(work: () => unknown): number {
  const start = performance.now();
  work();
  return performance.now() - start;
}

/**
 * `createSkillIndex` of `skills` skills that carry the catalog's body summaries, first in a fresh
 * process (the skills are made before the clock).
 */
export async function buildWithSummaries(input: { skills: number; seed: number }): Promise<ChildOutput> {
  const skills = set.scaledCatalog(input.skills, input.seed, true);
  const start = performance.now();
  const index = createSkillIndex(skills);
  const wallMs = performance.now() - start;
  return { found: index.size, wallMs, samples: { summaries: skills.filter((s) => s.summary).length } };
}

/** `@skill/search` at `skills` skills: samples in ms, then recall@5 (`ours@5`, …) on the real catalog. */
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

  // A 20-step session that loads a skill at every step: how many bytes of tool definitions a
  // provider's prompt cache loses, ours against a catalog that ranks by what the session loaded.
  const session = async (made: SkillTools, loaded: (name: string) => void): Promise<number> => {
    let [sent, lost] = [JSON.stringify(made.definitions), 0];
    for (let step = 0; step < 20; step++) {
      const name = (skills[skills.length - 1 - step] as SkillMetadata).name;
      if ((await made.call("skill", { name })).isError) throw new Error(`the session could not load ${name}`);
      loaded(name);
      const now = JSON.stringify(made.definitions);
      if (now !== sent) lost += now.length;
      sent = now;
    }
    return lost;
  };
  const definitionBytes = await session(skillTools(service, { agent }), () => {});
  const loads = new Map<string, number>();
  const moving = skillTools(service, {
    agent,
    rank: (s) => -originRank(s.origin) * 1e9 + (loads.get(s.name) ?? 0),
  });
  const definitionBytesBaseline = await session(moving, (name) => {
    loads.set(name, (loads.get(name) ?? 0) + 1);
    moving.refresh();
  });

  const real = set.catalogSkills();
  const ours = createSkillIndex(real);
  const rankers: Record<string, set.Ranker> = {
    ours: (q, limit) => ours.search(q, { limit }).map((h) => h.name),
    substring: set.substringRanker(real),
    minisearch: set.untunedMiniSearchRanker(real),
  };
  const recall = Object.entries(rankers).map(([who, rank]) => [`${who}@5`, set.recallOf(rank, requests)]);
  const samples = {
    coldBuild,
    replace,
    query,
    tools,
    toolsBaseline,
    requests: requests.length,
    definitionBytes,
    definitionBytesBaseline,
  };
  return { found: index.size, samples: { ...samples, ...Object.fromEntries(recall) } };
}
