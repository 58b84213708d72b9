import type {
  ApproachStats,
  BenchResults,
  ChangeSeries,
  LocalSeries,
  McpResults,
  SearchResults,
} from "./report.js";
import { quantile } from "./stats.js";

export type Verdict = "met" | "missed" | "not measured";

/** One row of the targets table: what was asked, what this run measured, and the verdict. */
export interface TargetRow {
  readonly id: string;
  readonly what: string;
  readonly target: string;
  /** What was measured, or why nothing was. */
  readonly measured: string;
  /** The number compared with the limit (a ratio, milliseconds or a count); absent when not measured. */
  readonly value?: number;
  readonly verdict: Verdict;
}

/** What a target's measurement found: the value, its wording, and whether it meets the limit. */
interface Measurement {
  readonly value: number;
  readonly measured: string;
  readonly ok: boolean;
}

/** A target: how to read it from one run's results; a string is the reason it was not measured. */
export interface TargetSpec {
  readonly id: string;
  readonly what: string;
  readonly target: string;
  readonly measure: (results: BenchResults) => Measurement | string;
}

/** The reference every load target is measured against (`src/approaches/sync-floor.ts`). */
export const REFERENCE = "sync-floor";

/** The reference of the warm-start targets (`src/approaches/crawl-stat.ts`). */
export const WARM_REFERENCE = "crawl-stat";

/** Limits of the targets table (medians, ratios within one run). */
export const LIMITS = {
  load: { XS: 1.5, S: 1.4, L: 1.3 } as Readonly<Record<string, number>>,
  rssAtL: 1.0,
  updateMs: 20,
  updateShareOfReload: 1 / 30,
  eventOverDebounceMs: 50,
  startup: 2.0,
  pullSpeedup: 3,
  warmRequests: 1,
  /** `skill add` of a local pack / copying its skill folders (`fs.cpSync`), whole processes. */
  addOverCopy: 3,
  doctorOverPreset: 3,
  searchBuildMs: 150,
  searchReplaceMs: 5,
  searchQueryMs: 2,
  searchRecallAt5: 0.85,
  toolsOverIndex: 1.2,
  /** Warm start / crawl + stat, as a ratio (S, L) or as milliseconds more (XS: a fixed cost there is a few files). */
  warm: { S: 1.3, L: 1.3 } as Readonly<Record<string, number>>,
  warmOverMs: { XS: 3 } as Readonly<Record<string, number>>,
  warmChanged: 1.1,
  mcpOverDisk: 2,
  mcpReadMs: 5,
} as const;

const SKILLS_AT: Readonly<Record<string, string>> = { XS: "100", S: "1,000", L: "10,000" };

export function ratio(n: number): string {
  return Number.isFinite(n) ? `${n.toFixed(2)}×` : "–";
}

export function ms(n: number): string {
  if (!Number.isFinite(n)) return "–";
  return n >= 100 ? Math.round(n).toLocaleString("en-US") : n >= 10 ? n.toFixed(1) : n.toFixed(2);
}

function series(results: BenchResults, size: string): LocalSeries | undefined {
  return results.local.find((s) => s.size === size);
}

function approach(s: LocalSeries | undefined, id: string): ApproachStats | undefined {
  return s?.approaches.find((a) => a.id === id);
}

function changesAt(results: BenchResults, size: string): ChangeSeries | undefined {
  return results.changes?.find((c) => c.size === size);
}

/** Why a size is missing from this run. */
function missingSize(results: BenchResults, size: string): string {
  if (results.local.length === 0) return "not measured: not in this run's `--only`";
  return size === "L" ? "not measured: needs `--size L`" : `not measured: size ${size} not run`;
}

/** Why a part of the bench has no results: the missing feature, or the option that skipped it. */
function missingPart(results: BenchResults, part: string, skipped: string): string {
  const why = results.unavailable?.[part];
  return why ? `not measured: ${why}` : `not measured: ${skipped}`;
}

/** A result that failed its correctness check is never a measurement. */
function broken(a: ApproachStats | undefined): string | undefined {
  return a?.problem ? `not measured: ${a.id} did not find the expected result (${a.problem})` : undefined;
}

/**
 * The same load with every function compiled before the clock (`node --no-lazy`), against the
 * row's reference: what the row would measure if the library's code came compiled.
 */
function eagerNote(s: LocalSeries | undefined, id: string, reference: ApproachStats): string {
  const eager = approach(s, id);
  if (!eager || eager.problem) return "";
  const over = eager.time.median - reference.time.median;
  return `; with every function compiled before the clock: ${ms(eager.time.median)} ms, ${ratio(eager.time.median / reference.time.median)}, ${over < 0 ? "−" : "+"}${ms(Math.abs(over))} ms`;
}

function loadTarget(size: string): TargetSpec {
  const limit = LIMITS.load[size] as number;
  return {
    id: `load-${size}`,
    what: `discover + load, ${SKILLS_AT[size]} skills, ours / synchronous floor (median wall time)`,
    target: `≤ ${limit}×`,
    measure(results) {
      const s = series(results, size);
      const ours = approach(s, "ours");
      const floor = approach(s, REFERENCE);
      if (!ours || !floor) return missingSize(results, size);
      const bad = broken(ours) ?? broken(floor);
      if (bad) return bad;
      const value = ours.time.median / floor.time.median;
      return {
        value,
        measured: `${ratio(value)} (${ms(ours.time.median)} / ${ms(floor.time.median)} ms${eagerNote(s, "ours-eager", floor)})`,
        ok: value <= limit,
      };
    },
  };
}

function warmTarget(size: string): TargetSpec {
  const ratioLimit = LIMITS.warm[size];
  const overMs = LIMITS.warmOverMs[size];
  return {
    id: `warm-${size}`,
    what: `warm start (\`fileHeadCache\`, tree unchanged), ${SKILLS_AT[size]} skills, ours / crawl + stat (median wall time)`,
    target: overMs === undefined ? `≤ ${ratioLimit}×` : `≤ crawl + stat + ${overMs} ms`,
    measure(results) {
      const s = series(results, size);
      const warm = approach(s, "warm");
      const stat = approach(s, WARM_REFERENCE);
      if (!warm || !stat) return missingSize(results, size);
      const bad = broken(warm) ?? broken(stat);
      if (bad) return bad;
      const over = warm.time.median - stat.time.median;
      const cached = approach(s, "crawl-stat-cache");
      const times = `${ms(warm.time.median)} / ${ms(stat.time.median)} ms`;
      const note =
        (cached && !cached.problem
          ? `; crawl + stat with the cache file read and looked up: ${ms(cached.time.median)} ms`
          : "") + eagerNote(s, "warm-eager", stat);
      if (overMs !== undefined) {
        return {
          value: over,
          measured: `+${ms(over)} ms (${times}, ${ratio(warm.time.median / stat.time.median)}${note})`,
          ok: over <= overMs,
        };
      }
      const value = warm.time.median / stat.time.median;
      return { value, measured: `${ratio(value)} (${times}${note})`, ok: value <= (ratioLimit as number) };
    },
  };
}

/** The MCP results of a run, or why there are none. */
function mcpOf(results: BenchResults): McpResults | string {
  const r = results.mcp;
  if (!r) return missingPart(results, "mcp", "not in this run's `--only`");
  return r;
}

/** The search results of a run, or why there are none. */
function searchOf(results: BenchResults): SearchResults | string {
  const r = results.search;
  if (!r) return missingPart(results, "search", "not in this run's `--only`");
  if (r.problem) return `not measured: ${r.problem}`;
  return r;
}

function searchTimeTarget(
  id: string,
  what: string,
  limit: number,
  pick: (r: SearchResults) => readonly number[],
  /** A reference measured in the same run, said after the samples. */
  reference?: (r: SearchResults) => string | undefined,
): TargetSpec {
  return {
    id,
    what,
    target: `≤ ${limit} ms`,
    measure(results) {
      const r = searchOf(results);
      if (typeof r === "string") return r;
      const values = pick(r);
      if (values.length === 0) return "not measured: no samples";
      const value = quantile(values, 0.5);
      return {
        value,
        measured: `${ms(value)} ms (p90 ${ms(quantile(values, 0.9))} ms, ${values.length} samples${reference?.(r) ?? ""})`,
        ok: value <= limit,
      };
    },
  };
}

/** The search rows of the targets table (`@skill/search`, DESIGN §10). */
export const SEARCH_TARGETS: readonly TargetSpec[] = [
  searchTimeTarget(
    "search-build",
    "`createSkillIndex` of 10,000 skills, first in a fresh process (median)",
    LIMITS.searchBuildMs,
    (r) => r.coldBuild,
    (r) =>
      r.floor && r.floor.wordMap.length > 0
        ? `; a bare word map ${ms(quantile(r.floor.wordMap, 0.5))} ms, untuned MiniSearch ${ms(quantile(r.floor.miniSearch, 0.5))} ms`
        : undefined,
  ),
  searchTimeTarget(
    "search-replace",
    "`replace` with one of 10,000 skills changed (median)",
    LIMITS.searchReplaceMs,
    (r) => r.replace,
  ),
  searchTimeTarget(
    "search-query",
    "one query on 10,000 skills (median over the request set)",
    LIMITS.searchQueryMs,
    (r) => r.query,
  ),
  {
    id: "tools-build",
    what: "`skillTools` at 10,000 skills (built, catalog and definitions read) / an index build plus one `formatCatalog`, medians",
    target: `≤ ${LIMITS.toolsOverIndex.toFixed(1)}×`,
    measure(results) {
      const r = searchOf(results);
      if (typeof r === "string") return r;
      if (r.tools.length === 0 || r.toolsBaseline.length === 0) return "not measured: no samples";
      const value = quantile(r.tools, 0.5) / quantile(r.toolsBaseline, 0.5);
      return {
        value,
        measured: `${value.toFixed(2)}× (${ms(quantile(r.tools, 0.5))} ms against ${ms(quantile(r.toolsBaseline, 0.5))} ms)`,
        ok: value <= LIMITS.toolsOverIndex,
      };
    },
  },
  {
    id: "search-recall",
    what: "recall@5 over the hand-written requests on the real catalog, ours against a substring match and untuned MiniSearch",
    target: `≥ ${LIMITS.searchRecallAt5} and above both`,
    measure(results) {
      const r = searchOf(results);
      if (typeof r === "string") return r;
      const { ours, substring, minisearch } = r.recall;
      const pct = (n: number) => `${(n * 100).toFixed(1)}%`;
      return {
        value: ours.at5,
        measured: `${pct(ours.at5)} (substring ${pct(substring.at5)}, MiniSearch ${pct(minisearch.at5)}; ${r.requests} requests)`,
        ok: ours.at5 >= LIMITS.searchRecallAt5 && ours.at5 > substring.at5 && ours.at5 > minisearch.at5,
      };
    },
  },
];

/** The targets table, in order. Adding a row is adding a spec here. */
export const TARGETS: readonly TargetSpec[] = [
  loadTarget("XS"),
  loadTarget("S"),
  loadTarget("L"),
  warmTarget("XS"),
  warmTarget("S"),
  warmTarget("L"),
  {
    id: "warm-changed-L",
    what: "warm start with one SKILL.md among 10,000 changed / the warm start with none changed (medians)",
    target: `≤ ${LIMITS.warmChanged}×`,
    measure(results) {
      const s = series(results, "L");
      const changed = approach(s, "warm-changed");
      const warm = approach(s, "warm");
      if (!changed || !warm) return missingSize(results, "L");
      const bad = broken(changed) ?? broken(warm);
      if (bad) return bad;
      const value = changed.time.median / warm.time.median;
      return {
        value,
        measured: `${ratio(value)} (${ms(changed.time.median)} / ${ms(warm.time.median)} ms)`,
        ok: value <= LIMITS.warmChanged,
      };
    },
  },
  {
    id: "rss-L",
    what: "peak RSS at 10,000 skills, ours / synchronous floor",
    target: `≤ ${LIMITS.rssAtL.toFixed(1)}×`,
    measure(results) {
      const s = series(results, "L");
      const ours = approach(s, "ours");
      const floor = approach(s, REFERENCE);
      if (!ours || !floor) return missingSize(results, "L");
      const value = ours.rssMB.median / floor.rssMB.median;
      return {
        value,
        measured: `${ratio(value)} (${ours.rssMB.median.toFixed(1)} / ${floor.rssMB.median.toFixed(1)} MB)`,
        ok: value <= LIMITS.rssAtL,
      };
    },
  },
  {
    id: "update-ms",
    what: "one changed SKILL.md among 10,000: `service.update` of that file (median)",
    target: `≤ ${LIMITS.updateMs} ms`,
    measure(results) {
      const c = changesAt(results, "L");
      if (!c) return missingSize(results, "L");
      if (c.problem) return `not measured: ${c.problem}`;
      const value = quantile(c.update, 0.5);
      return {
        value,
        measured: `${ms(value)} ms (p90 ${ms(quantile(c.update, 0.9))} ms, ${c.update.length} edits)`,
        ok: value <= LIMITS.updateMs,
      };
    },
  },
  {
    id: "update-vs-reload",
    what: "the same, as a share of a full reload (medians)",
    target: "≤ 1/30",
    measure(results) {
      const c = changesAt(results, "L");
      if (!c) return missingSize(results, "L");
      if (c.problem) return `not measured: ${c.problem}`;
      const update = quantile(c.update, 0.5);
      const reload = quantile(c.reload, 0.5);
      const value = update / reload;
      return {
        value,
        measured: `1/${Math.round(reload / update).toLocaleString("en-US")} (${ms(update)} / ${ms(reload)} ms)`,
        ok: value <= LIMITS.updateShareOfReload,
      };
    },
  },
  {
    id: "event-ms",
    what: "the same, end to end: file written → `skill.changed` through `watchSkills` (median)",
    target: `≤ debounce + ${LIMITS.eventOverDebounceMs} ms`,
    measure(results) {
      const c = changesAt(results, "L");
      if (!c) return missingSize(results, "L");
      if (c.problem) return `not measured: ${c.problem}`;
      if (c.event.length === 0) return `not measured: no \`skill.changed\` arrived (${c.lost} edits lost)`;
      const value = quantile(c.event, 0.5);
      const limit = c.debounceMs + LIMITS.eventOverDebounceMs;
      const lost = c.lost > 0 ? `, ${c.lost} edits lost` : "";
      return {
        value,
        measured: `${ms(value)} ms with a ${c.debounceMs} ms debounce (p90 ${ms(quantile(c.event, 0.9))} ms${lost})`,
        ok: value <= limit && c.lost === 0,
      };
    },
  },
  {
    id: "startup",
    what: "`skill list` at 100 skills, whole process, / `node -e 0` (medians)",
    target: `≤ ${LIMITS.startup.toFixed(1)}×`,
    measure(results) {
      const st = results.startup;
      if (!st) return missingPart(results, "startup", "not in this run's `--only`");
      const bad = broken(st.cli);
      if (bad) return bad;
      const value = st.cli.time.median / st.node.time.median;
      return {
        value,
        measured: `${ratio(value)} (${ms(st.cli.time.median)} / ${ms(st.node.time.median)} ms${st.floor ? `; a minimal list process ${ratio(st.floor.time.median / st.node.time.median)}` : ""}${st.version ? `; \`skill --version\` ${ratio(st.version.time.median / st.node.time.median)}` : ""})`,
        ok: value <= LIMITS.startup,
      };
    },
  },
  {
    id: "startup-vercel",
    what: "`skill list` / Vercel's `skills list` (npm `skills`, on the Node 22 it needs, from npm), same 100-skill tree, whole processes (medians)",
    target: "< 1.0× (ours faster)",
    measure(results) {
      const st = results.startup;
      if (!st) return missingPart(results, "startup", "not in this run's `--only`");
      if (!st.peer) return `not measured: ${st.peerMissing ?? "Vercel's skills was not run"}`;
      const bad = broken(st.cli) ?? broken(st.peer.vercel);
      if (bad) return bad;
      const value = st.cli.time.median / st.peer.vercel.time.median;
      return {
        value,
        measured: `${ratio(value)} (${ms(st.cli.time.median)} / ${ms(st.peer.vercel.time.median)} ms; skills ${st.peer.skillsVersion} on Node ${st.peer.nodeVersion})`,
        ok: value < 1,
      };
    },
  },
  {
    id: "pull-cold",
    what: "cold pull of a 500-skill pack at 20 ms latency, v0.1 per-file / v0.2 archives",
    target: `v0.2 ≥ ${LIMITS.pullSpeedup}× faster`,
    measure(results) {
      const p = results.pulls;
      if (!p) return missingPart(results, "pulls", "not in this run's `--only`");
      const bad = broken(p.v1Cold) ?? broken(p.v2Cold);
      if (bad) return bad;
      const value = p.v1Cold.time.median / p.v2Cold.time.median;
      return {
        value,
        measured: `${ratio(value)} faster (v0.1 ${ms(p.v1Cold.time.median)} ms, v0.2 ${ms(p.v2Cold.time.median)} ms)`,
        ok: value >= LIMITS.pullSpeedup,
      };
    },
  },
  {
    id: "pull-warm",
    what: "warm pull of an unchanged digest-pinned pack",
    target: `${LIMITS.warmRequests} request`,
    measure(results) {
      const p = results.pulls;
      if (!p) return missingPart(results, "pulls", "not in this run's `--only`");
      const bad = broken(p.v2Warm);
      if (bad) return bad;
      const value = p.v2Warm.server?.requests.max ?? Number.NaN;
      if (!Number.isFinite(value)) return "not measured: the server counted no requests";
      return {
        value,
        measured: `${value} request${value === 1 ? "" : "s"} (max of runs)`,
        ok: value <= LIMITS.warmRequests,
      };
    },
  },
  {
    id: "add",
    what: "`skill add` of 50 skills from a local pack / copying the same folders with `fs.cpSync` (whole processes, medians)",
    target: `≤ ${LIMITS.addOverCopy}×`,
    measure(results) {
      const a = results.add;
      if (!a) return missingPart(results, "add", "not in this run's `--only`");
      const bad = broken(a.add) ?? broken(a.copy);
      if (bad) return bad;
      const value = a.add.time.median / a.copy.time.median;
      return {
        value,
        measured: `${ratio(value)} (${ms(a.add.time.median)} / ${ms(a.copy.time.median)} ms)`,
        ok: value <= LIMITS.addOverCopy,
      };
    },
  },
  {
    id: "doctor",
    what: "`skill doctor` over every preset (10 agents and the default) at 1,000 skills / one preset's load (medians)",
    target: `≤ ${LIMITS.doctorOverPreset}×`,
    measure(results) {
      const d = results.doctor;
      if (!d) return missingPart(results, "doctor", "not in this run's `--only`");
      const bad = broken(d.doctor) ?? broken(d.onePreset);
      if (bad) return bad;
      const value = d.doctor.time.median / d.onePreset.time.median;
      return {
        value,
        measured: `${ratio(value)} (${ms(d.doctor.time.median)} / ${ms(d.onePreset.time.median)} ms)`,
        ok: value <= LIMITS.doctorOverPreset,
      };
    },
  },
  {
    id: "mcp-load",
    what: "`discoverAndLoad` of 1,000 skills listed over stdio by `skill serve-mcp` (started and warmed first) / from disk (medians)",
    target: `≤ ${LIMITS.mcpOverDisk}×`,
    measure(results) {
      const r = mcpOf(results);
      if (typeof r === "string") return r;
      const bad = broken(r.mcp) ?? broken(r.disk);
      if (bad) return bad;
      const value = r.mcp.time.median / r.disk.time.median;
      return {
        value,
        measured: `${ratio(value)} (${ms(r.mcp.time.median)} / ${ms(r.disk.time.median)} ms)`,
        ok: value <= LIMITS.mcpOverDisk,
      };
    },
  },
  {
    id: "mcp-read",
    what: "`read` of one skill over the same server (median)",
    target: `≤ ${LIMITS.mcpReadMs} ms`,
    measure(results) {
      const r = mcpOf(results);
      if (typeof r === "string") return r;
      const bad = broken(r.mcp);
      if (bad) return bad;
      if (r.read.length === 0) return "not measured: no samples";
      const value = quantile(r.read, 0.5);
      return {
        value,
        measured: `${ms(value)} ms (p90 ${ms(quantile(r.read, 0.9))} ms, ${r.read.length} reads)`,
        ok: value <= LIMITS.mcpReadMs,
      };
    },
  },
  ...SEARCH_TARGETS,
];

/** Every target of `specs` against one run. */
export function evaluateTargets(results: BenchResults, specs: readonly TargetSpec[] = TARGETS): TargetRow[] {
  return specs.map((spec) => {
    const m = spec.measure(results);
    const head = { id: spec.id, what: spec.what, target: spec.target };
    if (typeof m === "string") return { ...head, measured: m, verdict: "not measured" };
    return { ...head, measured: m.measured, value: m.value, verdict: m.ok ? "met" : "missed" };
  });
}

/**
 * What `--check` prints and its exit code: 1 when any target was missed. A target not measured
 * is listed as such: it is neither met nor missed.
 */
export function checkTargets(rows: readonly TargetRow[]): { readonly code: 0 | 1; readonly lines: string[] } {
  const count = (v: Verdict) => rows.filter((r) => r.verdict === v).length;
  const lines = rows.map((r) => `${r.verdict.padEnd(12)} ${r.what} ${r.target}: ${r.measured}`);
  const missed = count("missed");
  lines.push(
    `${missed > 0 ? "FAIL" : "PASS"}: ${count("met")} met, ${missed} missed, ${count("not measured")} not measured`,
  );
  return { code: missed > 0 ? 1 : 0, lines };
}
