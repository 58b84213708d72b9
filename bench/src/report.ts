// The generated parts of BENCHMARKS.md: a block of Markdown per marker pair
// (`<!-- bench:NAME:start -->` … `<!-- bench:NAME:end -->`); every other line is written by people.
import { type Column, type Distribution, distribution, fine, int, mb, ms, table } from "./format.js";
import type { BenchResults, Group, Stats } from "./results.js";
import { evaluateTargets, type TargetRow } from "./targets.js";

// The rows of the tables, by group and id (the search rows: sample keys); `{name}` is a fact of the group.
const LABELS = `
load sync-floor | synchronous floor (fdir sync + readFileSync + indexOf)
load crawl-stat | fdir crawl + \`statSync\` of each SKILL.md (warm-start reference)
load opencode-style | opencode-style (glob + gray-matter)
load ours | ours (discoverySources + SkillService)
load warm | ours, warm start (\`fileHeadCache\` of an earlier start, tree unchanged)
load warm-changed | ours, warm start, one SKILL.md changed since
doctor doctor | \`compareAgents\` over {presets} presets (what \`skill doctor\` runs)
doctor ours | one preset's load (ours, default preset)
mcp mcp | \`discoverAndLoad\` over \`skill serve-mcp\` (stdio; server started and warmed first)
mcp ours | \`discoverAndLoad\` from disk (ours, a fresh process)
mcp-http ours | ours: \`createSkillsServer\` over a registry of the tree, \`recheckMs: 2000\` (an edit is listed within 2 s)
mcp-http ours-default | ours with the defaults (each listing checks every file it lists)
mcp-http sdk | the SDK's own: \`SkillsExtension.load\` of the same skill folders, attached per session
startup cli | \`skill list\` ({skills} skills, {node})
startup node | \`node -e 0\` ({node})
startup floor | a minimal list: crawl, read each SKILL.md, print (\`bench/dist/floor-list.js\`, {node})
startup version | \`skill --version\` (the CLI's start-up alone, {node})
startup vercel | Vercel's \`skills list\` (skills {skillsVersion}, {peerNode} from npm)
startup cli22 | \`skill list\` ({skills} skills, {peerNode}, compile cache)
list table-1000 | \`skill list\`, a table 100 columns wide (\`SKILL_FORCE_TTY=100\`), 1,000 real skills
list json-1000 | \`skill list --json\`, 1,000 real skills
list pipe-1000 | \`skill list\` in a pipe (a line per skill, fields between tabs), 1,000 real skills
list table-2000 | \`skill list\`, a table 100 columns wide, 2,000 real skills
list json-2000 | \`skill list --json\`, 2,000 real skills
list pipe-2000 | \`skill list\` in a pipe, 2,000 real skills
pulls v1-cold | index v0.1, cold (a request per file)
pulls v2-cold | index v0.2, cold (an archive per skill)
pulls v2-warm | index v0.2, warm (unchanged, same cache)
add add | \`skill add <pack> --for codex\`
add copy | copy floor: \`fs.cpSync\` of each skill folder
search coldBuild | \`createSkillIndex\`, first in the process
search coldBuildSummaries | \`createSkillIndex\` of skills with body summaries (the catalog's: 729 of 1,636 names), first in a fresh process
search replace | \`replace\`, one skill changed
search query | \`search\`, one request
search tools | \`skillTools\` over a registry of them: built, catalog and definitions read
search toolsBaseline | baseline: \`createSkillIndex\` of them plus one \`formatCatalog\`
search wordMap | reference: a bare word map (name and description lower-cased, split into words, one \`Map\` of word → skills), first in a fresh process
search miniSearch | reference: untuned MiniSearch \`addAll\` (name, description), first in a fresh process
`
  .trim()
  .split("\n")
  .map((line) => /^(\S+) (\S+) \| (.*)$/.exec(line)?.slice(1) as [group: string, id: string, label: string]);

/** The rows of `group`, in order: `[label, id]`, each `{fact}` of the label filled. */
type Labelled = readonly [label: string, id: string];
function labelled(group: string, facts: Group["facts"] = {}): Labelled[] {
  const fill = (label: string) => label.replace(/\{(\w+)\}/g, (_, k) => String(facts[k] ?? "?"));
  return LABELS.filter(([g]) => g === group).map(([, id, label]) => [fill(label), id]);
}

type Row = readonly [label: string, stats: Stats];
const COLUMNS: Readonly<Record<string, Column<Row>>> = {
  median: ["median ms", ([, s]) => ms(s.time.median)],
  min: ["min ms", ([, s]) => ms(s.time.min)],
  max: ["max ms", ([, s]) => ms(s.time.max)],
  rss: ["peak RSS MB", ([, s]) => mb(s.rssMB.median)],
  found: ["skills found", ([, s]) => s.found],
  listed: ["skills listed", ([, s]) => (s.id === "node" || s.id === "version" ? "–" : s.found)],
  mark: ["matches", ([, s]) => (s.problem ? `✗ ${s.problem}` : "✓"), true],
  requests: ["requests", ([, s]) => int(s.more?.requests?.median)],
  bytes: ["body bytes", ([, s]) => int(s.more?.bodyBytes?.median)],
  rps: ["requests/s (median)", ([, s]) => int(s.more?.rps?.median)],
  "rps-min": ["min", ([, s]) => int(s.more?.rps?.min)],
  "rps-max": ["max", ([, s]) => int(s.more?.rps?.max)],
  cpu: ["server CPU ms", ([, s]) => int(s.more?.cpuMs?.median)],
  idle: ["heap KB per idle session", ([, s]) => fine(s.more?.idleHeapKB?.median ?? Number.NaN)],
  errors: ["errors (max)", ([, s]) => int(s.more?.errors?.max)],
};

// The tables of approaches, by group (`APPROACH` unless named): the first column's header, then the others.
const APPROACH = "approach median min max rss found mark";
const STATS_TABLES: Readonly<Record<string, string>> = {
  startup: "process median min max listed mark",
  list: "process median min max listed mark",
  pulls: "pull median min max requests bytes rss found mark",
  "mcp-http": "server rps rps-min rps-max cpu idle errors mark",
};

const TARGETS: Column<TargetRow>[] = [
  ["what", (r) => r.what, true],
  ["target", (r) => r.target, true],
  ["measured", (r) => r.measured, true],
  ["result", (r) => (r.verdict === "missed" ? "**missed**" : r.verdict), true],
];

const d = (g: Group, key: string) => distribution(g.samples?.[key]);
/** Columns of quantiles of the samples `of` a row names. */
const spread = <R>(qs: readonly (keyof Distribution)[], of: (row: R) => Distribution): Column<R>[] =>
  qs.map((q) => [q === "n" ? "samples" : `${q} ms`, (r) => (q === "n" ? int(of(r).n) : fine(of(r)[q]))]);

type Change = readonly [g: Group, what: string, key: string];
const changes = (g: Group): Change[] => [
  [g, "`service.update([file])`", "update"],
  [g, `write → \`skill.changed\` (${g.facts?.debounceMs} ms debounce)`, "event"],
  [g, "full reload (`discoverAndLoad`)", "reload"],
];
const CHANGES: Column<Change>[] = [
  ["skills", ([g]) => int(Number(g.facts?.skills))],
  ["what", ([, what]) => what, true],
  ...spread<Change>(["n", "median", "p10", "p90", "min", "max"], ([g, , k]) => d(g, k)),
];

/** The table of a group: a row per approach, or for search a row per sample series. */
function draw(name: string, g: Group): string {
  if (name === "search") {
    const quantiles = spread<Labelled>(["median", "p90", "min", "max", "n"], ([, k]) => d(g, k));
    return table([["what", ([label]) => label, true], ...quantiles], labelled("search"));
  }
  const group = name.startsWith("load-") ? "load" : name;
  const rows = labelled(group, g.facts).flatMap(([label, id]) => {
    const s = g.stats.find((a) => a.id === id);
    return s ? [[label, s] as const] : [];
  });
  const [first = "", ...columns] = (STATS_TABLES[group] ?? APPROACH).split(" ");
  return table([[first, ([l]) => l, true], ...columns.map((c) => COLUMNS[c] as Column<Row>)], rows);
}

const SIZES = ["XS", "S", "L"];
// The blocks drawn from one group each, in the order of the report.
const DRAWN = [
  ...SIZES.map((size) => `load-${size}`),
  ..."startup list pulls add doctor mcp mcp-http search".split(" "),
];

/** The blocks of one run's report, by marker name; a group not measured has none. */
export function reportBlocks(results: BenchResults, charts: { scaling?: string; latency?: string } = {}) {
  const { machine: m, warmup, groups } = results;
  const rounds = `${warmup} warm-up round${warmup === 1 ? "" : "s"}, then ${results.runs} measured rounds`;
  const load = `load average ${m.loadStart.toFixed(2)} at the start, ${m.loadEnd.toFixed(2)} at the end`;
  const blocks: Record<string, string> = {
    run: [
      `Written by \`${results.command}\` from one run (${ms(results.durationMs / 1000)} s): ${rounds}, trees from seed ${results.seed}, ${results.delayMs} ms of loopback delay. Ratios compare approaches measured in that same run.`,
      `**Machine:** ${m.cpu}, ${m.cores} cores, ${m.memGiB.toFixed(1)} GiB RAM, Node ${m.node}, ${m.platform}, ${m.date} (${load}).`,
    ].join("\n\n"),
    targets: table(TARGETS, evaluateTargets(results)),
  };
  if (charts.scaling)
    blocks["scaling-chart"] = `![Cost per skill by tree size, log scales](${charts.scaling})`;
  if (charts.latency) blocks["latency-chart"] = `![Latency distribution of one change](${charts.latency})`;
  const changed = SIZES.flatMap((size) => groups[`changes-${size}`] ?? []);
  if (changed.length > 0) blocks.changes = table(CHANGES, changed.flatMap(changes));
  for (const name of DRAWN) {
    const group = groups[name];
    if (!group) continue;
    const why = group.unavailable ?? group.problem;
    const missing = Object.entries(group.missing ?? {}).map(([id, no]) => `\n\n${id}: not measured: ${no}.`);
    blocks[name] =
      group.stats.length === 0 && why
        ? `Not measured: ${why}.`
        : draw(name, group) + (why ? `\n\n✗ ${why}` : "") + missing.join("");
  }
  return blocks;
}

const MARKER = /^<!-- bench:([\w-]+):(start|end) -->$/;

/** `text` with each marker pair's inside replaced by its block (or "not measured"); `unplaced`: blocks without markers. */
export function fillMarkers(text: string, blocks: Readonly<Record<string, string>>) {
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
      const where = open ? `inside bench:${open}` : "without its start";
      throw new Error(`line ${i + 1}: bench:${name}:${edge} ${where}`);
    }
  }
  if (open !== undefined) throw new Error(`bench:${open}:start has no end`);
  return { text: out.join("\n"), unplaced: Object.keys(blocks).filter((name) => !placed.has(name)) };
}
