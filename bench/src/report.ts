// The generated parts of BENCHMARKS.md: one block of Markdown per marker pair
// (`<!-- bench:NAME:start -->` … `<!-- bench:NAME:end -->`); every other line of the file is
// written by people and kept as it is.
import { fine, int, mb, ms, pct, ratio, table } from "./format.js";
import type { ProfileLine } from "./profile.js";
import type { BenchResults, Group, Stats } from "./results.js";
import { distribution } from "./stats.js";
import { EARLIER, evaluateTargets, REFERENCE, type TargetRow } from "./targets.js";

type Column = readonly [head: string, align: "l" | "r", cell: (a: Stats) => string];

const label = (head: string): Column => [head, "l", (a) => a.label];
const median: Column = ["median ms", "r", (a) => ms(a.time.median)];
const min: Column = ["min ms", "r", (a) => ms(a.time.min)];
const max: Column = ["max ms", "r", (a) => ms(a.time.max)];
const rss: Column = ["peak RSS MB", "r", (a) => mb(a.rssMB.median)];
const found = (head: string): Column => [head, "r", (a) => a.found];
const matches = (head: string): Column => [head, "l", (a) => (a.problem ? `✗ ${a.problem}` : "✓")];
const counted = (head: string, key: string): Column => [
  head,
  "r",
  (a) => int(a.server?.[key]?.median ?? Number.NaN),
];
const APPROACH = [label("approach"), median, min, max, rss, found("skills found"), matches("matches")];

function statsTable(stats: readonly Stats[], columns: readonly Column[]): string {
  const rows = stats.map((a) => columns.map(([, , cell]) => cell(a)));
  return table(
    columns.map(([head]) => head),
    columns.map(([, align]) => align).join(""),
    rows,
  );
}

function verdicts(rows: readonly TargetRow[], columns: readonly ("what" | "target")[]): string[][] {
  const verdict = (v: string) =>
    v === "missed" ? "**missed**" : v === "not measured" && !columns.includes("target") ? "–" : v;
  return rows.map((r) => [...columns.map((c) => r[c]), r.measured, verdict(r.verdict)]);
}

/** Rows of a distribution table: `[what, sample name, CPU sample name?]`. */
function distributions(
  group: Group,
  rows: readonly (readonly string[])[],
  pick: (d: ReturnType<typeof distribution>, cpu: string) => string[],
) {
  return rows.map(([what, key, cpuKey]) => {
    const cpu = cpuKey ? fine(distribution(group.samples?.[cpuKey] ?? []).median) : "–";
    return [what as string, ...pick(distribution(group.samples?.[key as string] ?? []), cpu)];
  });
}

const SEARCH_ROWS = [
  ["`createSkillIndex`, first in the process", "coldBuild", "coldBuildCpu"],
  ["`createSkillIndex`, later", "build", "buildCpu"],
  ["`replace`, one skill changed", "replace"],
  ["`search`, one request", "query"],
  ["`loadSkillIndex` of the saved index, nothing changed", "load"],
  ["`skillTools` over a registry of them: built, catalog and definitions read", "tools"],
  ["baseline: `createSkillIndex` of them plus one `formatCatalog`", "toolsBaseline"],
  [
    "reference: a bare word map (name and description lower-cased, split into words, one `Map` of word → skills), first in a fresh process",
    "wordMap",
  ],
  ["reference: untuned MiniSearch `addAll` (name, description), first in a fresh process", "miniSearch"],
] as const;

const RECALL_ROWS = [
  ["ours (`createSkillIndex`, defaults)", "ours"],
  ["substring match (every query word of 3+ letters in name or description; most words first)", "substring"],
  ["MiniSearch untuned (name + description, default options)", "minisearch"],
] as const;

/** File names of the charts written beside the report, relative to it. */
export interface Charts {
  readonly scaling?: string;
  readonly latency?: string;
}

/** The blocks of one run's report, by marker name; a group not measured has none. */
export function reportBlocks(results: BenchResults, charts: Charts = {}): Record<string, string> {
  const { groups, machine: m } = results;
  const blocks: Record<string, string> = {};
  const rounds = `${results.warmup} warm-up round${results.warmup === 1 ? "" : "s"}, then ${results.runs} measured rounds`;
  blocks.run = [
    `Written by \`${results.command}\` from one run (${ms(results.durationMs / 1000)} s): ${rounds}, trees from seed ${results.seed}, ${results.delayMs} ms of loopback delay. Ratios compare approaches measured in that same run.`,
    "",
    `**Machine:** ${m.cpu}, ${m.cores} cores, ${m.memGiB.toFixed(1)} GiB RAM, Node ${m.node}, ${m.platform}, ${m.date} (load average ${m.loadStart.toFixed(2)} at the start, ${m.loadEnd.toFixed(2)} at the end).`,
    ...results.notes.flatMap((note) => ["", `> ${note}`]),
  ].join("\n");
  blocks.targets = table(
    ["what", "target", "measured", "result"],
    "llll",
    verdicts(evaluateTargets(results), ["what", "target"]),
  );
  blocks.earlier = table(
    ["target", "measured", "result"],
    "lll",
    verdicts(evaluateTargets(results, EARLIER), ["what"]),
  );
  if (charts.scaling)
    blocks["scaling-chart"] = `![Cost per skill by tree size, log scales](${charts.scaling})`;
  if (charts.latency) blocks["latency-chart"] = `![Latency distribution of one change](${charts.latency})`;

  const scaling: string[][] = [];
  const changes: string[][] = [];
  const watch: string[][] = [];
  for (const size of ["XS", "S", "L"]) {
    const load = groups[`load-${size}`];
    const f = load?.facts ?? {};
    if (load) {
      const decoys = `${int(Number(f.files))} files (${int(Number(f.decoys))} decoy SKILL.md files in \`node_modules\`).`;
      blocks[`load-${size}`] = `${decoys}\n\n${statsTable(load.stats, APPROACH)}`;
      const [ours, floor] = ["ours", REFERENCE].map(
        (id) => load.stats.find((s) => s.id === id)?.time.median ?? Number.NaN,
      ) as [number, number];
      const perSkill = (n: number) => (Number.isFinite(n) ? (n / Number(f.skills)).toFixed(3) : "–");
      const rssOurs = load.stats.find((s) => s.id === "ours")?.rssMB.median;
      scaling.push([
        int(Number(f.skills)),
        ms(ours),
        perSkill(ours),
        perSkill(floor),
        ratio(ours / floor),
        mb(rssOurs ?? Number.NaN),
      ]);
    }
    const change = groups[`changes-${size}`];
    if (change) {
      const skills = int(Number(change.facts?.skills));
      const s = change.samples ?? {};
      const what = [
        ["`service.update([file])`", "update"],
        [`write → \`skill.changed\` (${change.facts?.debounceMs} ms debounce)`, "event"],
        ["full reload (`discoverAndLoad`)", "reload"],
      ];
      changes.push(
        ...distributions(change, what, (d) => [
          int(d.n),
          fine(d.median),
          fine(d.p10),
          fine(d.p90),
          fine(d.min),
          fine(d.max),
        ]).map((row) => [skills, ...row]),
      );
      const share = distribution(s.reload ?? []).median / distribution(s.update ?? []).median;
      const problem = change.problem ? ` ✗ ${change.problem}` : "";
      watch.push([
        skills,
        `1/${int(share)}`,
        ms(s.watchReadyMs?.[0] ?? Number.NaN),
        mb(Number(change.facts?.peakRssMB)),
        `${int(s.lost?.[0] ?? Number.NaN)}${problem}`,
      ]);
    }
    const profile = results.profiles?.[size];
    if (profile) {
      const rows = (lines: readonly ProfileLine[]) =>
        lines.map((l) => [`\`${l.name}\``, ms(l.selfMs), `${(l.share * 100).toFixed(1)}%`]);
      blocks[`profile-${size}`] = [
        `One extra run of ours at ${size} under \`node --cpu-prof\` (the whole child process, module loading included; ${ms(profile.totalMs)} ms sampled). Self time:`,
        "",
        table(["by package", "self ms", "share"], "lrr", rows(profile.packages)),
        "",
        table(["by function", "self ms", "share"], "lrr", rows(profile.functions)),
      ].join("\n");
    }
  }
  if (scaling.length > 0) {
    const head = [
      "skills",
      "ours median ms",
      "ours ms per skill",
      "synchronous floor ms per skill",
      "ours / floor",
      "ours peak RSS MB",
    ];
    blocks.scaling = table(head, "rrrrrr", scaling);
  }
  if (changes.length > 0) {
    blocks.changes = [
      table(
        ["skills", "what", "samples", "median ms", "p10 ms", "p90 ms", "min ms", "max ms"],
        "rlrrrrrr",
        changes,
      ),
      "",
      table(
        ["skills", "one update / full reload (medians)", "watcher ready ms", "peak RSS MB", "edits lost"],
        "rrrrr",
        watch,
      ),
    ].join("\n");
  }

  const tables: Record<string, (g: Group) => string> = {
    startup: (g) =>
      statsTable(g.stats, [
        label("process"),
        median,
        min,
        max,
        ["skills listed", "r", (a) => (a.id === "node" || a.id === "version" ? "–" : a.found)],
        matches("matches"),
      ]),
    pulls: (g) =>
      statsTable(g.stats, [
        label("pull"),
        median,
        min,
        max,
        counted("requests", "requests"),
        counted("body bytes", "bodyBytes"),
        rss,
        found("skills"),
        matches("complete"),
      ]),
    add: (g) => statsTable(g.stats, APPROACH),
    doctor: (g) => statsTable(g.stats, APPROACH),
    mcp: (g) => {
      const [start, read] = [distribution(g.samples?.startMs ?? []), distribution(g.samples?.read ?? [])];
      return [
        statsTable(g.stats, APPROACH),
        "",
        `The first start in each child (untimed: the server started, its own load of the tree, the handshake and listing): ${ms(start.median)} ms median. \`read\` of one skill over the server: ${fine(read.median)} ms median, p90 ${fine(read.p90)} ms, ${int(read.n)} reads.`,
      ].join("\n");
    },
    search: (g) => {
      const pick = (d: ReturnType<typeof distribution>, cpu: string) => [
        fine(d.median),
        fine(d.p90),
        fine(d.min),
        fine(d.max),
        cpu,
        int(d.n),
      ];
      return table(
        ["what", "median ms", "p90 ms", "min ms", "max ms", "CPU ms (median)", "samples"],
        "lrrrrrr",
        distributions(g, SEARCH_ROWS, pick),
      );
    },
    recall: (g) => {
      const at = (who: string, k: number) => pct(g.samples?.[`${who}@${k}`]?.[0] ?? Number.NaN);
      return table(
        ["approach", "recall@1", "recall@5"],
        "lrr",
        RECALL_ROWS.map(([what, who]) => [what, at(who, 1), at(who, 5)]),
      );
    },
    "remote-cold": (g) =>
      statsTable(
        g.stats.filter((a) => a.id === "pull" || a.id === "sequential"),
        [
          label("approach"),
          median,
          min,
          max,
          counted("requests", "requests"),
          rss,
          found("skills"),
          matches("complete"),
        ],
      ),
    "remote-warm": (g) =>
      statsTable(
        g.stats.filter((a) => a.id === "warm"),
        [
          median,
          min,
          max,
          ...(["requests", "notModified", "fileBodies", "indexBodies", "bodyBytes"] as const).map((k, i) =>
            counted(["requests", "304 answers", "file bodies", "index bodies", "body bytes"][i] as string, k),
          ),
          matches("complete"),
        ],
      ),
    "remote-memory": (g) => {
      const base = g.stats.find((a) => a.id === "small")?.rssMB.median ?? Number.NaN;
      const growth: Column = [
        "growth MB",
        "r",
        (a) => (a.id === "small" ? "–" : `+${mb(a.rssMB.median - base)}`),
      ];
      const memory = ["small", "big", "huge", "buffered", "streamed"].flatMap((id) =>
        g.stats.filter((a) => a.id === id),
      );
      const rssMin: Column = ["min", "r", (a) => mb(a.rssMB.min)];
      const rssMax: Column = ["max", "r", (a) => mb(a.rssMB.max)];
      return statsTable(memory, [
        label("child"),
        ["peak RSS MB (median)", "r", (a) => mb(a.rssMB.median)],
        rssMin,
        rssMax,
        growth,
        median,
        matches("complete"),
      ]);
    },
  };
  for (const [name, render] of Object.entries(tables)) {
    const group = groups[name.replace(/^recall$/, "search").replace(/^remote-.*/, "remote")];
    if (!group) continue;
    const why = group.unavailable ?? group.problem;
    blocks[name] =
      group.stats.length === 0 && why ? `Not measured: ${why}.` : render(group) + (why ? `\n\n✗ ${why}` : "");
  }
  const missing = Object.entries(groups.startup?.missing ?? {});
  if (blocks.startup && missing.length > 0)
    blocks.startup += missing.map(([id, why]) => `\n\n${id}: not measured: ${why}.`).join("");
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
