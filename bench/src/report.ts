// The generated parts of BENCHMARKS.md: a block of Markdown per marker pair
// (`<!-- bench:NAME:start -->` … `<!-- bench:NAME:end -->`); every other line is written by people.
import { fine, int, mb, ms, pct, ratio, table } from "./format.js";
import type { ProfileLine } from "./profile.js";
import type { BenchResults, Group, Stats } from "./results.js";
import { type Distribution, distribution } from "./stats.js";
import { EARLIER, evaluateTargets, REFERENCE, type TargetRow } from "./targets.js";

type Column = readonly [head: string, align: "l" | "r", cell: (a: Stats, group: Group) => string];
const server = (head: string, key: string): Column => [
  head,
  "r",
  (a) => int(a.server?.[key]?.median ?? Number.NaN),
];
const mark = (a: Stats) => (a.problem ? `✗ ${a.problem}` : "✓");

/** The columns of the stats tables, by name. */
const COLUMNS: Readonly<Record<string, Column>> = {
  approach: ["approach", "l", (a) => a.label],
  process: ["process", "l", (a) => a.label],
  pull: ["pull", "l", (a) => a.label],
  child: ["child", "l", (a) => a.label],
  median: ["median ms", "r", (a) => ms(a.time.median)],
  min: ["min ms", "r", (a) => ms(a.time.min)],
  max: ["max ms", "r", (a) => ms(a.time.max)],
  rss: ["peak RSS MB", "r", (a) => mb(a.rssMB.median)],
  "rss-median": ["peak RSS MB (median)", "r", (a) => mb(a.rssMB.median)],
  "rss-min": ["min", "r", (a) => mb(a.rssMB.min)],
  "rss-max": ["max", "r", (a) => mb(a.rssMB.max)],
  growth: [
    "growth MB",
    "r",
    (a, g) => (a.id === "small" ? "–" : `+${mb(a.rssMB.median - rssOf(g, "small"))}`),
  ],
  found: ["skills found", "r", (a) => a.found],
  listed: ["skills listed", "r", (a) => (a.id === "node" || a.id === "version" ? "–" : a.found)],
  skills: ["skills", "r", (a) => a.found],
  matches: ["matches", "l", mark],
  complete: ["complete", "l", mark],
  requests: server("requests", "requests"),
  "304": server("304 answers", "notModified"),
  "file-bodies": server("file bodies", "fileBodies"),
  "index-bodies": server("index bodies", "indexBodies"),
  bytes: server("body bytes", "bodyBytes"),
};
const APPROACH = "approach median min max rss found matches";

const rssOf = (group: Group, id: string) => group.stats.find((s) => s.id === id)?.rssMB.median ?? Number.NaN;

/** A table of a group's rows (`ids`, in that order, or all), with the named columns. */
function statsTable(group: Group, columns: string, ids?: string): string {
  const cols = columns.split(" ").map((c) => COLUMNS[c] as Column);
  const rows = ids ? ids.split(" ").flatMap((id) => group.stats.filter((s) => s.id === id)) : group.stats;
  const align = cols.map(([, a]) => a).join("");
  return table(
    cols.map(([head]) => head),
    align,
    rows.map((a) => cols.map(([, , cell]) => cell(a, group))),
  );
}

/** Rows of distributions of a group's samples: `[what, sample name, CPU sample name]`. */
function distributions(
  group: Group,
  rows: string,
  cells: (d: Distribution, cpu: string) => string[],
): string[][] {
  return rows
    .trim()
    .split("\n")
    .map((row) => {
      const [what = "", key = "", cpuKey] = row.split(" | ");
      const cpu = cpuKey ? fine(distribution(group.samples?.[cpuKey] ?? []).median) : "–";
      return [what, ...cells(distribution(group.samples?.[key] ?? []), cpu)];
    });
}

const SEARCH_ROWS = `
\`createSkillIndex\`, first in the process | coldBuild | coldBuildCpu
\`createSkillIndex\`, later | build | buildCpu
\`replace\`, one skill changed | replace
\`search\`, one request | query
\`loadSkillIndex\` of the saved index, nothing changed | load
\`skillTools\` over a registry of them: built, catalog and definitions read | tools
baseline: \`createSkillIndex\` of them plus one \`formatCatalog\` | toolsBaseline
reference: a bare word map (name and description lower-cased, split into words, one \`Map\` of word → skills), first in a fresh process | wordMap
reference: untuned MiniSearch \`addAll\` (name, description), first in a fresh process | miniSearch
`;

const RECALL_ROWS = [
  ["ours (`createSkillIndex`, defaults)", "ours"],
  ["substring match (every query word of 3+ letters in name or description; most words first)", "substring"],
  ["MiniSearch untuned (name + description, default options)", "minisearch"],
];

function verdicts(rows: readonly TargetRow[], earlier = false): string[][] {
  const verdict = (v: string) => (v === "missed" ? "**missed**" : earlier && v === "not measured" ? "–" : v);
  return rows.map((r) => [r.what, ...(earlier ? [] : [r.target]), r.measured, verdict(r.verdict)]);
}

/** Blocks of the groups of one size: its load table, its scaling row, its costs of change, its profile. */
function sizeBlocks(
  results: BenchResults,
  size: string,
  blocks: Record<string, string>,
  rows: Record<string, string[][]>,
) {
  const load = results.groups[`load-${size}`];
  if (load) {
    const f = load.facts ?? {};
    const decoys = `${int(Number(f.files))} files (${int(Number(f.decoys))} decoy SKILL.md files in \`node_modules\`).`;
    blocks[`load-${size}`] = `${decoys}\n\n${statsTable(load, APPROACH)}`;
    const [ours, floor] = ["ours", REFERENCE].map(
      (id) => load.stats.find((s) => s.id === id)?.time.median ?? Number.NaN,
    ) as [number, number];
    const perSkill = (n: number) => (Number.isFinite(n) ? (n / Number(f.skills)).toFixed(3) : "–");
    rows.scaling?.push([
      int(Number(f.skills)),
      ms(ours),
      perSkill(ours),
      perSkill(floor),
      ratio(ours / floor),
      mb(rssOf(load, "ours")),
    ]);
  }
  const change = results.groups[`changes-${size}`];
  if (change) {
    const [skills, s] = [int(Number(change.facts?.skills)), change.samples ?? {}];
    const what = `\`service.update([file])\` | update\nwrite → \`skill.changed\` (${change.facts?.debounceMs} ms debounce) | event\nfull reload (\`discoverAndLoad\`) | reload`;
    const cells = (d: Distribution) => [int(d.n), ...[d.median, d.p10, d.p90, d.min, d.max].map(fine)];
    rows.changes?.push(...distributions(change, what, cells).map((row) => [skills, ...row]));
    const share = int(distribution(s.reload ?? []).median / distribution(s.update ?? []).median);
    const lost = `${int(s.lost?.[0] ?? Number.NaN)}${change.problem ? ` ✗ ${change.problem}` : ""}`;
    rows.watch?.push([
      skills,
      `1/${share}`,
      ms(s.watchReadyMs?.[0] ?? Number.NaN),
      mb(Number(change.facts?.peakRssMB)),
      lost,
    ]);
  }
  const profile = results.profiles?.[size];
  if (profile) {
    const lines = (l: readonly ProfileLine[]) =>
      l.map((p) => [`\`${p.name}\``, ms(p.selfMs), `${(p.share * 100).toFixed(1)}%`]);
    blocks[`profile-${size}`] = [
      `One extra run of ours at ${size} under \`node --cpu-prof\` (the whole child process, module loading included; ${ms(profile.totalMs)} ms sampled). Self time:`,
      table(["by package", "self ms", "share"], "lrr", lines(profile.packages)),
      table(["by function", "self ms", "share"], "lrr", lines(profile.functions)),
    ].join("\n\n");
  }
}

/** The blocks of one run's report, by marker name; a group not measured has none. */
export function reportBlocks(
  results: BenchResults,
  charts: { scaling?: string; latency?: string } = {},
): Record<string, string> {
  const { machine: m, warmup } = results;
  const blocks: Record<string, string> = {};
  const rounds = `${warmup} warm-up round${warmup === 1 ? "" : "s"}, then ${results.runs} measured rounds`;
  blocks.run = [
    `Written by \`${results.command}\` from one run (${ms(results.durationMs / 1000)} s): ${rounds}, trees from seed ${results.seed}, ${results.delayMs} ms of loopback delay. Ratios compare approaches measured in that same run.`,
    `**Machine:** ${m.cpu}, ${m.cores} cores, ${m.memGiB.toFixed(1)} GiB RAM, Node ${m.node}, ${m.platform}, ${m.date} (load average ${m.loadStart.toFixed(2)} at the start, ${m.loadEnd.toFixed(2)} at the end).`,
    ...results.notes.map((note) => `> ${note}`),
  ].join("\n\n");
  blocks.targets = table(
    ["what", "target", "measured", "result"],
    "llll",
    verdicts(evaluateTargets(results)),
  );
  blocks.earlier = table(
    ["target", "measured", "result"],
    "lll",
    verdicts(evaluateTargets(results, EARLIER), true),
  );
  if (charts.scaling)
    blocks["scaling-chart"] = `![Cost per skill by tree size, log scales](${charts.scaling})`;
  if (charts.latency) blocks["latency-chart"] = `![Latency distribution of one change](${charts.latency})`;

  const rows: Record<string, string[][]> = { scaling: [], changes: [], watch: [] };
  for (const size of ["XS", "S", "L"]) sizeBlocks(results, size, blocks, rows);
  if (rows.scaling?.length) {
    const head = [
      "skills",
      "ours median ms",
      "ours ms per skill",
      "synchronous floor ms per skill",
      "ours / floor",
      "ours peak RSS MB",
    ];
    blocks.scaling = table(head, "rrrrrr", rows.scaling);
  }
  if (rows.changes?.length) {
    const head = ["skills", "what", "samples", "median ms", "p10 ms", "p90 ms", "min ms", "max ms"];
    const watch = [
      "skills",
      "one update / full reload (medians)",
      "watcher ready ms",
      "peak RSS MB",
      "edits lost",
    ];
    blocks.changes = `${table(head, "rlrrrrrr", rows.changes)}\n\n${table(watch, "rrrrr", rows.watch ?? [])}`;
  }

  const groupTables: Record<string, [group: string, render: (g: Group) => string]> = {
    startup: ["startup", (g) => statsTable(g, "process median min max listed matches")],
    pulls: ["pulls", (g) => statsTable(g, "pull median min max requests bytes rss skills complete")],
    add: ["add", (g) => statsTable(g, APPROACH)],
    doctor: ["doctor", (g) => statsTable(g, APPROACH)],
    mcp: [
      "mcp",
      (g) => {
        const [start, read] = [distribution(g.samples?.startMs ?? []), distribution(g.samples?.read ?? [])];
        const first = `The first start in each child (untimed: the server started, its own load of the tree, the handshake and listing): ${ms(start.median)} ms median.`;
        return `${statsTable(g, APPROACH)}\n\n${first} \`read\` of one skill over the server: ${fine(read.median)} ms median, p90 ${fine(read.p90)} ms, ${int(read.n)} reads.`;
      },
    ],
    search: [
      "search",
      (g) => {
        const cells = (d: Distribution, cpu: string) => [
          ...[d.median, d.p90, d.min, d.max].map(fine),
          cpu,
          int(d.n),
        ];
        const head = ["what", "median ms", "p90 ms", "min ms", "max ms", "CPU ms (median)", "samples"];
        return table(head, "lrrrrrr", distributions(g, SEARCH_ROWS, cells));
      },
    ],
    recall: [
      "search",
      (g) => {
        const at = (who: string, k: number) => pct(g.samples?.[`${who}@${k}`]?.[0] ?? Number.NaN);
        return table(
          ["approach", "recall@1", "recall@5"],
          "lrr",
          RECALL_ROWS.map(([what = "", who = ""]) => [what, at(who, 1), at(who, 5)]),
        );
      },
    ],
    "remote-cold": [
      "remote",
      (g) => statsTable(g, "approach median min max requests rss skills complete", "pull sequential"),
    ],
    "remote-warm": [
      "remote",
      (g) => statsTable(g, "median min max requests 304 file-bodies index-bodies bytes complete", "warm"),
    ],
    "remote-memory": [
      "remote",
      (g) =>
        statsTable(
          g,
          "child rss-median rss-min rss-max growth median complete",
          "small big huge buffered streamed",
        ),
    ],
  };
  for (const [name, [groupName, render]] of Object.entries(groupTables)) {
    const group = results.groups[groupName];
    const why = group?.unavailable ?? group?.problem;
    if (group)
      blocks[name] =
        group.stats.length === 0 && why
          ? `Not measured: ${why}.`
          : render(group) + (why ? `\n\n✗ ${why}` : "");
  }
  const missing = Object.entries(results.groups.startup?.missing ?? {}).map(
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
