// The generated parts of BENCHMARKS.md: a block of Markdown per marker pair
// (`<!-- bench:NAME:start -->` … `<!-- bench:NAME:end -->`); every other line is written by people.
import { type Distribution, distribution, fine, int, mb, ms, pct, ratio, table } from "./format.js";
import type { BenchResults, Group, Stats } from "./results.js";
import { EARLIER, evaluateTargets, REFERENCE, type TargetRow } from "./targets.js";

// The label of each row, by group and id; `{name}` is the group's fact of that name.
const LABELS = `
load sync-floor | synchronous floor (fdir sync + readFileSync + indexOf)
load floor | line-reader floor (+ name/description by line regex)
load crawl | fdir crawl only (reference)
load crawl-stat | fdir crawl + \`statSync\` of each SKILL.md (warm-start reference)
load crawl-stat-cache | fdir crawl + \`statSync\` + the head cache file read, parsed and each SKILL.md looked up (reference)
load opencode-style | opencode-style (glob + gray-matter)
load ours | ours (discoverySources + SkillService)
load warm | ours, warm start (\`fileHeadCache\` of an earlier start, tree unchanged)
load warm-changed | ours, warm start, one SKILL.md changed since
load ours-eager | ours, every function compiled before the clock (\`node --no-lazy\`; reference)
load warm-eager | ours, warm start, every function compiled before the clock (\`node --no-lazy\`; reference)
doctor doctor | \`compareAgents\` over {presets} presets (what \`skill doctor\` runs)
doctor ours | one preset's load (ours, default preset)
mcp mcp | \`discoverAndLoad\` over \`skill serve-mcp\` (stdio; server started and warmed first)
mcp ours | \`discoverAndLoad\` from disk (ours, a fresh process)
startup cli | \`skill list\` ({skills} skills, {node})
startup node | \`node -e 0\` ({node})
startup floor | a minimal list: crawl, read each SKILL.md, print (\`bench/dist/floor-list.js\`, {node})
startup version | \`skill --version\` (the CLI's start-up alone, {node})
startup vercel | Vercel's \`skills list\` (skills {skillsVersion}, {peerNode} from npm)
startup cli22 | \`skill list\` ({skills} skills, {peerNode}, compile cache)
pulls v1-cold | index v0.1, cold (a request per file)
pulls v2-cold | index v0.2, cold (an archive per skill)
pulls v2-warm | index v0.2, warm (unchanged, same cache)
add add | \`skill add <pack> --for codex\`
add copy | copy floor: \`fs.cpSync\` of each skill folder
search coldBuild coldBuildCpu | \`createSkillIndex\`, first in the process
search build buildCpu | \`createSkillIndex\`, later
search replace | \`replace\`, one skill changed
search query | \`search\`, one request
search load | \`loadSkillIndex\` of the saved index, nothing changed
search tools | \`skillTools\` over a registry of them: built, catalog and definitions read
search toolsBaseline | baseline: \`createSkillIndex\` of them plus one \`formatCatalog\`
search wordMap | reference: a bare word map (name and description lower-cased, split into words, one \`Map\` of word → skills), first in a fresh process
search miniSearch | reference: untuned MiniSearch \`addAll\` (name, description), first in a fresh process
recall ours | ours (\`createSkillIndex\`, defaults)
recall substring | substring match (every query word of 3+ letters in name or description; most words first)
recall minisearch | MiniSearch untuned (name + description, default options)
`;
const LABEL = LABELS.trim()
  .split("\n")
  .map((line) => line.split(" | ") as [string, string]);

/** The rows of `group` in a labelled table, in order: `[label, id, more ids]` (a `{fact}` in a label filled). */
function labelled(
  group: string,
  facts: Group["facts"] = {},
): [label: string, id: string, ...more: string[]][] {
  const fill = (label: string) => label.replace(/\{(\w+)\}/g, (_, k) => String(facts[k] ?? "?"));
  return LABEL.filter(([key]) => key.startsWith(`${group} `)).map(
    ([key, label]) => [fill(label), ...key.split(" ").slice(1)] as [string, string],
  );
}

type Cell = (a: Stats, group: Group) => string;
const mark: Cell = (a) => (a.problem ? `✗ ${a.problem}` : "✓");
const server =
  (key: string): Cell =>
  (a) =>
    int(a.server?.[key]?.median ?? Number.NaN);
const rssOf = (group: Group, id: string) => group.stats.find((s) => s.id === id)?.rssMB.median ?? Number.NaN;

/** The cells of the stats tables, by column name. */
const CELLS: Readonly<Record<string, Cell>> = {
  median: (a) => ms(a.time.median),
  min: (a) => ms(a.time.min),
  max: (a) => ms(a.time.max),
  rss: (a) => mb(a.rssMB.median),
  "rss-min": (a) => mb(a.rssMB.min),
  "rss-max": (a) => mb(a.rssMB.max),
  growth: (a, g) => (a.id === "small" ? "–" : `+${mb(a.rssMB.median - rssOf(g, "small"))}`),
  found: (a) => a.found,
  listed: (a) => (a.id === "node" || a.id === "version" ? "–" : a.found),
  mark,
  requests: server("requests"),
  "304": server("notModified"),
  "file-bodies": server("fileBodies"),
  "index-bodies": server("indexBodies"),
  bytes: server("bodyBytes"),
};
const APPROACH = [
  "approach | median ms | min ms | max ms | peak RSS MB | skills found | matches",
  "label median min max rss found mark",
];

/** A table of `group`'s rows: the header, and the cells by name (`label` first when the rows have one). */
function statsTable(name: string, group: Group, [header, cells]: readonly string[], only?: string): string {
  const ids = only?.split(" ");
  const rows = labelled(name, group.facts).filter(([, id]) => !ids || ids.includes(id));
  const cellsOf = (cells as string).split(" ");
  const body = rows.flatMap(([label, id]) => {
    const a = group.stats.find((s) => s.id === id);
    return a ? [cellsOf.map((c) => (c === "label" ? label : (CELLS[c] as Cell)(a, group)))] : [];
  });
  return table(
    header as string,
    cellsOf.map((c) => (c === "label" || c === "mark" ? "l" : "r")).join(""),
    body,
  );
}

function verdicts(rows: readonly TargetRow[], earlier = false): string[][] {
  const verdict = (v: string) => (v === "missed" ? "**missed**" : earlier && v === "not measured" ? "–" : v);
  return rows.map((r) => [r.what, ...(earlier ? [] : [r.target]), r.measured, verdict(r.verdict)]);
}

/** The blocks of one run's report, by marker name; a group not measured has none. */
export function reportBlocks(
  results: BenchResults,
  charts: { scaling?: string; latency?: string } = {},
): Record<string, string> {
  const { machine: m, warmup, groups } = results;
  const blocks: Record<string, string> = {};
  const rounds = `${warmup} warm-up round${warmup === 1 ? "" : "s"}, then ${results.runs} measured rounds`;
  blocks.run = [
    `Written by \`${results.command}\` from one run (${ms(results.durationMs / 1000)} s): ${rounds}, trees from seed ${results.seed}, ${results.delayMs} ms of loopback delay. Ratios compare approaches measured in that same run.`,
    `**Machine:** ${m.cpu}, ${m.cores} cores, ${m.memGiB.toFixed(1)} GiB RAM, Node ${m.node}, ${m.platform}, ${m.date} (load average ${m.loadStart.toFixed(2)} at the start, ${m.loadEnd.toFixed(2)} at the end).`,
    ...results.notes.map((note) => `> ${note}`),
  ].join("\n\n");
  blocks.targets = table("what | target | measured | result", "llll", verdicts(evaluateTargets(results)));
  blocks.earlier = table(
    "target | measured | result",
    "lll",
    verdicts(evaluateTargets(results, EARLIER), true),
  );
  if (charts.scaling)
    blocks["scaling-chart"] = `![Cost per skill by tree size, log scales](${charts.scaling})`;
  if (charts.latency) blocks["latency-chart"] = `![Latency distribution of one change](${charts.latency})`;

  const scaling: string[][] = [];
  const changes: string[][] = [];
  const watch: string[][] = [];
  for (const size of ["XS", "S", "L"]) {
    const [load, change] = [groups[`load-${size}`], groups[`changes-${size}`]];
    if (load) {
      const f = load.facts ?? {};
      const files = `${int(Number(f.files))} files (${int(Number(f.decoys))} decoy SKILL.md files in \`node_modules\`).`;
      blocks[`load-${size}`] = `${files}\n\n${statsTable("load", load, APPROACH)}`;
      const [ours = Number.NaN, floor = Number.NaN] = ["ours", REFERENCE].map(
        (id) => load.stats.find((s) => s.id === id)?.time.median,
      );
      const perSkill = (n: number) => (Number.isFinite(n) ? (n / Number(f.skills)).toFixed(3) : "–");
      scaling.push([
        int(Number(f.skills)),
        ms(ours),
        perSkill(ours),
        perSkill(floor),
        ratio(ours / floor),
        mb(rssOf(load, "ours")),
      ]);
    }
    if (change) {
      const [skills, s, d] = [
        int(Number(change.facts?.skills)),
        change.samples ?? {},
        (k: string) => distribution(change.samples?.[k] ?? []),
      ];
      const what = [
        ["`service.update([file])`", "update"],
        [`write → \`skill.changed\` (${change.facts?.debounceMs} ms debounce)`, "event"],
        ["full reload (`discoverAndLoad`)", "reload"],
      ];
      for (const [label, key = ""] of what) {
        const { n, median, p10, p90, min, max } = d(key);
        changes.push([skills, label as string, int(n), ...[median, p10, p90, min, max].map(fine)]);
      }
      const lost = `${int(s.lost?.[0] ?? Number.NaN)}${change.problem ? ` ✗ ${change.problem}` : ""}`;
      const share = `1/${int(d("reload").median / d("update").median)}`;
      watch.push([
        skills,
        share,
        ms(s.watchReadyMs?.[0] ?? Number.NaN),
        mb(Number(change.facts?.peakRssMB)),
        lost,
      ]);
    }
  }
  const scalingHead =
    "skills | ours median ms | ours ms per skill | synchronous floor ms per skill | ours / floor | ours peak RSS MB";
  if (scaling.length > 0) blocks.scaling = table(scalingHead, "rrrrrr", scaling);
  const changesHead = "skills | what | samples | median ms | p10 ms | p90 ms | min ms | max ms";
  const watchHead =
    "skills | one update / full reload (medians) | watcher ready ms | peak RSS MB | edits lost";
  if (changes.length > 0)
    blocks.changes = `${table(changesHead, "rlrrrrrr", changes)}\n\n${table(watchHead, "rrrrr", watch)}`;

  const distributions = (g: Group, cells: (d: Distribution, cpu: string) => string[]) =>
    labelled("search").map(([label, key = "", cpu]) => [
      label,
      ...cells(
        distribution(g.samples?.[key] ?? []),
        cpu ? fine(distribution(g.samples?.[cpu] ?? []).median) : "–",
      ),
    ]);
  const mcpLine = (g: Group) => {
    const [start, read] = [distribution(g.samples?.startMs ?? []), distribution(g.samples?.read ?? [])];
    const first = `The first start in each child (untimed: the server started, its own load of the tree, the handshake and listing): ${ms(start.median)} ms median.`;
    return `${first} \`read\` of one skill over the server: ${fine(read.median)} ms median, p90 ${fine(read.p90)} ms, ${int(read.n)} reads.`;
  };
  const render: Record<string, [group: string, (g: Group) => string]> = {
    startup: [
      "startup",
      (g) =>
        statsTable("startup", g, [
          "process | median ms | min ms | max ms | skills listed | matches",
          "label median min max listed mark",
        ]),
    ],
    pulls: [
      "pulls",
      (g) =>
        statsTable("pulls", g, [
          "pull | median ms | min ms | max ms | requests | body bytes | peak RSS MB | skills | complete",
          "label median min max requests bytes rss found mark",
        ]),
    ],
    add: ["add", (g) => statsTable("add", g, APPROACH)],
    doctor: ["doctor", (g) => statsTable("doctor", g, APPROACH)],
    mcp: ["mcp", (g) => `${statsTable("mcp", g, APPROACH)}\n\n${mcpLine(g)}`],
    search: [
      "search",
      (g) =>
        table(
          "what | median ms | p90 ms | min ms | max ms | CPU ms (median) | samples",
          "lrrrrrr",
          distributions(g, (d, cpu) => [...[d.median, d.p90, d.min, d.max].map(fine), cpu, int(d.n)]),
        ),
    ],
    recall: [
      "search",
      (g) =>
        table(
          "approach | recall@1 | recall@5",
          "lrr",
          labelled("recall").map(([label, who]) => [
            label,
            ...[1, 5].map((k) => pct(g.samples?.[`${who}@${k}`]?.[0] ?? Number.NaN)),
          ]),
        ),
    ],
  };
  for (const [name, [groupName, draw]] of Object.entries(render)) {
    const group = groups[groupName];
    const why = group?.unavailable ?? group?.problem;
    if (group)
      blocks[name] =
        group.stats.length === 0 && why ? `Not measured: ${why}.` : draw(group) + (why ? `\n\n✗ ${why}` : "");
  }
  const missing = Object.entries(groups.startup?.missing ?? {}).map(
    ([id, why]) => `\n\n${id}: not measured: ${why}.`,
  );
  if (blocks.startup) blocks.startup += missing.join("");
  return blocks;
}

const MARKER = /^<!-- bench:([\w-]+):(start|end) -->$/;

/**
 * `text` with what is between each `<!-- bench:NAME:start -->` and `<!-- bench:NAME:end -->`
 * replaced by `blocks[NAME]` (or a line saying it was not measured in this run); every other
 * line kept as it is. `unplaced` names the blocks the text has no markers for.
 */
export function fillMarkers(
  text: string,
  blocks: Readonly<Record<string, string>>,
): { text: string; unplaced: string[] } {
  const out: string[] = [];
  const placed = new Set<string>();
  let open: string | undefined;
  for (const [i, line] of text.split("\n").entries()) {
    const [, name, edge] = MARKER.exec(line.trim()) ?? [];
    if (name === undefined) {
      if (open === undefined) out.push(line);
    } else if (edge === "start" && open === undefined) {
      open = name;
      placed.add(name);
      out.push(line, "", blocks[name] ?? "Not measured in this run.", "");
    } else if (edge === "end" && open === name) {
      open = undefined;
      out.push(line);
    } else {
      throw new Error(
        `line ${i + 1}: bench:${name}:${edge} ${open ? `inside bench:${open}` : "without its start"}`,
      );
    }
  }
  if (open !== undefined) throw new Error(`bench:${open}:start has no end`);
  return { text: out.join("\n"), unplaced: Object.keys(blocks).filter((name) => !placed.has(name)) };
}
