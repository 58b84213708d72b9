// The targets table and the earlier targets: each row reads its numbers from one run's results,
// or says why it was not measured. Adding a row is adding a spec here.
import { fine, mb, pct, ratio } from "./format.js";
import type { BenchResults, Group, Stats } from "./results.js";
import { quantile } from "./stats.js";

export type Verdict = "met" | "missed" | "not measured";

/** One row of the targets table: what was asked, what this run measured, and the verdict. */
export interface TargetRow {
  readonly id: string;
  readonly what: string;
  readonly target: string;
  /** What was measured, or why nothing was. */
  readonly measured: string;
  /** The number compared with the limit; absent when not measured. */
  readonly value?: number;
  readonly verdict: Verdict;
}

type Measure = (results: BenchResults) => readonly [value: number, measured: string] | string;

export interface TargetSpec {
  readonly id: string;
  readonly what: string;
  readonly target: string;
  readonly ok: (value: number, results: BenchResults) => boolean;
  readonly measure: Measure;
}

/** The reference every load target is measured against, and that of the warm-start targets. */
export const REFERENCE = "sync-floor";
export const WARM_REFERENCE = "crawl-stat";

/** Limits of the targets table (medians, ratios within one run). */
export const LIMITS = {
  load: { XS: 1.5, S: 1.4, L: 1.3 } as Readonly<Record<string, number>>,
  /** Warm start / crawl + stat: milliseconds more at 100 skills (a fixed cost there is a few files), a ratio above. */
  warm: { XS: 3, S: 1.3, L: 1.3 } as Readonly<Record<string, number>>,
  updateMs: 20,
  eventOverDebounceMs: 50,
} as const;

const SKILLS_AT: Readonly<Record<string, string>> = { XS: "100", S: "1,000", L: "10,000" };
const le = (limit: number) => (value: number) => value <= limit;

/** A group of the run, or why it is not there. */
function groupOf(results: BenchResults, name: string): Group | string {
  const group = results.groups[name];
  const why = group?.unavailable ?? group?.problem;
  if (group && !why) return group;
  if (why) return `not measured: ${why}`;
  const needsL = name.endsWith("-L") && !results.command.includes("--size L");
  return `not measured: ${needsL ? "needs `--size L`" : "not in this run's `--only`"}`;
}

/** Approaches of a group, or why they cannot be compared: a run that found the wrong skills is no measurement. */
function pick(results: BenchResults, name: string, ...ids: string[]): Stats[] | string {
  const group = groupOf(results, name);
  if (typeof group === "string") return group;
  const stats = ids.map((id) => group.stats.find((s) => s.id === id));
  const gone = ids.find((_, i) => !stats[i]);
  if (gone) return `not measured: ${group.missing?.[gone] ?? `no ${gone} in this run`}`;
  const bad = stats.find((s) => s?.problem);
  if (bad) return `not measured: ${bad.id} did not find the expected result (${bad.problem})`;
  return stats as Stats[];
}

/**
 * `a / b` of two approaches' medians, as `1.25× (105 / 83.8 ms…)`, or with `over` the difference,
 * as `+5.53 ms (14.2 / 8.72 ms, 1.63×…)`; `note` is said after the times.
 */
function medians(
  name: string,
  a: string,
  b: string,
  note?: (results: BenchResults) => string,
  over = false,
): Measure {
  return (results) => {
    const stats = pick(results, name, a, b);
    if (typeof stats === "string") return stats;
    const [x, y] = stats.map((s) => s.time.median) as [number, number];
    const times = `${fine(x)} / ${fine(y)} ms`;
    const head = over ? `+${fine(x - y)} ms (${times}, ${ratio(x / y)}` : `${ratio(x / y)} (${times}`;
    return [over ? x - y : x / y, `${head}${note?.(results) ?? ""})`];
  };
}

/** The median of a group's samples, as `2.18 ms (p90 3.57 ms, 50 edits…)`. */
function sampled(name: string, key: string, noun: string, note?: (group: Group) => string): Measure {
  return (results) => {
    const group = groupOf(results, name);
    if (typeof group === "string") return group;
    const bad = group.stats.find((s) => s.problem);
    if (bad) return `not measured: ${bad.id} did not find the expected result (${bad.problem})`;
    const values = group.samples?.[key] ?? [];
    if (values.length === 0) return "not measured: no samples";
    const median = quantile(values, 0.5);
    const p90 = fine(quantile(values, 0.9));
    return [median, `${fine(median)} ms (p90 ${p90} ms, ${values.length} ${noun}${note?.(group) ?? ""})`];
  };
}

/** The median of one approach, when it ran and found what it should, else "". */
function medianOf(results: BenchResults, name: string, id: string): number | undefined {
  const stats = pick(results, name, id);
  return typeof stats === "string" ? undefined : stats[0]?.time.median;
}

/** The same load with every function compiled before the clock (`node --no-lazy`), against `reference`. */
function eager(size: string, id: string, reference: string) {
  return (results: BenchResults) => {
    const [e, ref] = [medianOf(results, `load-${size}`, id), medianOf(results, `load-${size}`, reference)];
    if (e === undefined || ref === undefined) return "";
    const over = `${e < ref ? "−" : "+"}${fine(Math.abs(e - ref))} ms`;
    return `; with every function compiled before the clock: ${fine(e)} ms, ${ratio(e / ref)}, ${over}`;
  };
}

function warmNote(size: string) {
  return (results: BenchResults) => {
    const cached = medianOf(results, `load-${size}`, "crawl-stat-cache");
    const note =
      cached === undefined ? "" : `; crawl + stat with the cache file read and looked up: ${fine(cached)} ms`;
    return note + eager(size, "warm-eager", WARM_REFERENCE)(results);
  };
}

function loadTarget(size: string): TargetSpec {
  return {
    id: `load-${size}`,
    what: `discover + load, ${SKILLS_AT[size]} skills, ours / synchronous floor (median wall time)`,
    target: `≤ ${LIMITS.load[size]}×`,
    ok: le(LIMITS.load[size] as number),
    measure: medians(`load-${size}`, "ours", REFERENCE, eager(size, "ours-eager", REFERENCE)),
  };
}

function warmTarget(size: string): TargetSpec {
  const limit = LIMITS.warm[size] as number;
  return {
    id: `warm-${size}`,
    what: `warm start (\`fileHeadCache\`, tree unchanged), ${SKILLS_AT[size]} skills, ours / crawl + stat (median wall time)`,
    target: size === "XS" ? `≤ crawl + stat + ${limit} ms` : `≤ ${limit}×`,
    ok: le(limit),
    measure: medians(`load-${size}`, "warm", WARM_REFERENCE, warmNote(size), size === "XS"),
  };
}

const fromSearch = (name: string) => (results: BenchResults) => {
  const values = results.groups.search?.samples?.[name] ?? [];
  return values.length > 0 ? quantile(values, 0.5) : Number.NaN;
};
const recall = (results: BenchResults, who: string) =>
  results.groups.search?.samples?.[`${who}@5`]?.[0] ?? Number.NaN;

/** The targets table, in order. */
export const TARGETS: readonly TargetSpec[] = [
  ...["XS", "S", "L"].map(loadTarget),
  ...["XS", "S", "L"].map(warmTarget),
  {
    id: "warm-changed-L",
    what: "warm start with one SKILL.md among 10,000 changed / the warm start with none changed (medians)",
    target: "≤ 1.1×",
    ok: le(1.1),
    measure: medians("load-L", "warm-changed", "warm"),
  },
  {
    id: "rss-L",
    what: "peak RSS at 10,000 skills, ours / synchronous floor",
    target: "≤ 1.0×",
    ok: le(1),
    measure(results) {
      const stats = pick(results, "load-L", "ours", REFERENCE);
      if (typeof stats === "string") return stats;
      const [x, y] = stats.map((s) => s.rssMB.median) as [number, number];
      return [x / y, `${ratio(x / y)} (${mb(x)} / ${mb(y)} MB)`];
    },
  },
  {
    id: "update-ms",
    what: "one changed SKILL.md among 10,000: `service.update` of that file (median)",
    target: `≤ ${LIMITS.updateMs} ms`,
    ok: le(LIMITS.updateMs),
    measure: sampled("changes-L", "update", "edits"),
  },
  {
    id: "update-vs-reload",
    what: "the same, as a share of a full reload (medians)",
    target: "≤ 1/30",
    ok: le(1 / 30),
    measure(results) {
      const group = groupOf(results, "changes-L");
      if (typeof group === "string") return group;
      const [update, reload] = ["update", "reload"].map((k) => quantile(group.samples?.[k] ?? [], 0.5)) as [
        number,
        number,
      ];
      return [
        update / reload,
        `1/${Math.round(reload / update).toLocaleString("en-US")} (${fine(update)} / ${fine(reload)} ms)`,
      ];
    },
  },
  {
    id: "event-ms",
    what: "the same, end to end: file written → `skill.changed` through `watchSkills` (median)",
    target: `≤ debounce + ${LIMITS.eventOverDebounceMs} ms`,
    ok: (value, results) => {
      const group = results.groups["changes-L"];
      const limit = Number(group?.facts?.debounceMs) + LIMITS.eventOverDebounceMs;
      return value <= limit && !group?.samples?.lost?.[0];
    },
    measure(results) {
      const m = sampled("changes-L", "event", "edits")(results);
      const group = results.groups["changes-L"];
      const lost = group?.samples?.lost?.[0] ?? 0;
      if (typeof m === "string")
        return lost ? `not measured: no \`skill.changed\` arrived (${lost} edits lost)` : m;
      const p90 = fine(quantile(group?.samples?.event ?? [], 0.9));
      const debounce = `${fine(m[0])} ms with a ${group?.facts?.debounceMs} ms debounce`;
      return [m[0], `${debounce} (p90 ${p90} ms${lost ? `, ${lost} edits lost` : ""})`];
    },
  },
  {
    id: "startup",
    what: "`skill list` at 100 skills, whole process, / `node -e 0` (medians)",
    target: "≤ 2.0×",
    ok: le(2),
    measure: medians("startup", "cli", "node", (results) => {
      const node = medianOf(results, "startup", "node") as number;
      const of = (id: string, what: string) => {
        const m = medianOf(results, "startup", id);
        return m === undefined ? "" : `; ${what} ${ratio(m / node)}`;
      };
      return of("floor", "a minimal list process") + of("version", "`skill --version`");
    }),
  },
  {
    id: "startup-vercel",
    what: "`skill list` / Vercel's `skills list` (npm `skills`, on the Node 22 it needs, from npm), same 100-skill tree, whole processes (medians)",
    target: "< 1.0× (ours faster)",
    ok: (value) => value < 1,
    measure: medians("startup", "cli", "vercel", (results) => {
      const facts = results.groups.startup?.facts;
      return `; skills ${facts?.skillsVersion} on Node ${facts?.peerNode}`;
    }),
  },
  {
    id: "pull-cold",
    what: "cold pull of a 500-skill pack at 20 ms latency, v0.1 per-file / v0.2 archives",
    target: "v0.2 ≥ 3× faster",
    ok: (value) => value >= 3,
    measure(results) {
      const stats = pick(results, "pulls", "v1-cold", "v2-cold");
      if (typeof stats === "string") return stats;
      const [v1, v2] = stats.map((s) => s.time.median) as [number, number];
      return [v1 / v2, `${ratio(v1 / v2)} faster (v0.1 ${fine(v1)} ms, v0.2 ${fine(v2)} ms)`];
    },
  },
  {
    id: "pull-warm",
    what: "warm pull of an unchanged digest-pinned pack",
    target: "1 request",
    ok: le(1),
    measure(results) {
      const stats = pick(results, "pulls", "v2-warm");
      if (typeof stats === "string") return stats;
      const requests = stats[0]?.server?.requests?.max;
      if (requests === undefined) return "not measured: the server counted no requests";
      return [requests, `${requests} request${requests === 1 ? "" : "s"} (max of runs)`];
    },
  },
  {
    id: "add",
    what: "`skill add` of 50 skills from a local pack / copying the same folders with `fs.cpSync` (whole processes, medians)",
    target: "≤ 3×",
    ok: le(3),
    measure: medians("add", "add", "copy"),
  },
  {
    id: "doctor",
    what: "`skill doctor` over every preset (10 agents and the default) at 1,000 skills / one preset's load (medians)",
    target: "≤ 3×",
    ok: le(3),
    measure: medians("doctor", "doctor", "ours"),
  },
  {
    id: "mcp-load",
    what: "`discoverAndLoad` of 1,000 skills listed over stdio by `skill serve-mcp` (started and warmed first) / from disk (medians)",
    target: "≤ 2×",
    ok: le(2),
    measure: medians("mcp", "mcp", "ours"),
  },
  {
    id: "mcp-read",
    what: "`read` of one skill over the same server (median)",
    target: "≤ 5 ms",
    ok: le(5),
    measure: sampled("mcp", "read", "reads"),
  },
  {
    id: "search-build",
    what: "`createSkillIndex` of 10,000 skills, first in a fresh process (median)",
    target: "≤ 150 ms",
    ok: le(150),
    measure: sampled("search", "coldBuild", "samples", (group) => {
      const [map, mini] = ["wordMap", "miniSearch"].map((k) => quantile(group.samples?.[k] ?? [], 0.5));
      return map === undefined || Number.isNaN(map)
        ? ""
        : `; a bare word map ${fine(map)} ms, untuned MiniSearch ${fine(mini as number)} ms`;
    }),
  },
  {
    id: "search-replace",
    what: "`replace` with one of 10,000 skills changed (median)",
    target: "≤ 5 ms",
    ok: le(5),
    measure: sampled("search", "replace", "samples"),
  },
  {
    id: "search-query",
    what: "one query on 10,000 skills (median over the request set)",
    target: "≤ 2 ms",
    ok: le(2),
    measure: sampled("search", "query", "samples"),
  },
  {
    id: "tools-build",
    what: "`skillTools` at 10,000 skills (built, catalog and definitions read) / an index build plus one `formatCatalog`, medians",
    target: "≤ 1.2×",
    ok: le(1.2),
    measure(results) {
      const group = groupOf(results, "search");
      if (typeof group === "string") return group;
      const [tools, baseline] = [fromSearch("tools")(results), fromSearch("toolsBaseline")(results)];
      if (Number.isNaN(tools) || Number.isNaN(baseline)) return "not measured: no samples";
      return [
        tools / baseline,
        `${ratio(tools / baseline)} (${fine(tools)} ms against ${fine(baseline)} ms)`,
      ];
    },
  },
  {
    id: "search-recall",
    what: "recall@5 over the hand-written requests on the real catalog, ours against a substring match and untuned MiniSearch",
    target: "≥ 0.85 and above both",
    ok: (value, results) =>
      value >= 0.85 && value > recall(results, "substring") && value > recall(results, "minisearch"),
    measure(results) {
      const group = groupOf(results, "search");
      if (typeof group === "string") return group;
      const [ours, substring, mini] = ["ours", "substring", "minisearch"].map((who) =>
        recall(results, who),
      ) as number[];
      const requests = group.samples?.requests?.[0];
      return [
        ours as number,
        `${pct(ours as number)} (substring ${pct(substring as number)}, MiniSearch ${pct(mini as number)}; ${requests} requests)`,
      ];
    },
  },
];

/** An earlier target at 10,000 skills: `a / b` of medians (or of peak RSS), said as a bare ratio. */
function earlier(what: string, limit: number, a: string, b: string, rss = false): TargetSpec {
  const measure: Measure = (results) => {
    const stats = pick(results, "load-L", a, b);
    if (typeof stats === "string") return stats;
    const [x, y] = stats.map((s) => (rss ? s.rssMB : s.time).median) as [number, number];
    return [x / y, ratio(x / y)];
  };
  return { id: `earlier-${a}-${b}${rss ? "-rss" : ""}`, what, target: "", ok: le(limit), measure };
}

/** Earlier targets, kept for context (not part of `--check`): at 10,000 skills, against the line-reader floor. */
export const EARLIER: readonly TargetSpec[] = [
  earlier("ours ≤ 1.6× line-reader floor, median wall time (at L)", 1.6, "ours", "floor"),
  earlier("ours ≤ 0.4× opencode-style, median wall time (at L)", 0.4, "ours", "opencode-style"),
  earlier("ours peak RSS ≤ 1.3× line-reader floor's (at L)", 1.3, "ours", "floor", true),
  {
    id: "earlier-growth",
    what: "ours: cost per skill grows no more than linearly from S to L (per-skill ratio ≤ 1.1)",
    target: "",
    ok: le(1.1),
    measure(results) {
      const [s, l] = [medianOf(results, "load-S", "ours"), medianOf(results, "load-L", "ours")];
      if (s === undefined || l === undefined) return "not measured: needs `--size L`";
      const [perS, perL] = [s / 1_000, l / 10_000];
      return [perL / perS, `${ratio(perL / perS)} (${perS.toFixed(3)} → ${perL.toFixed(3)} ms/skill)`];
    },
  },
  earlier(
    "warm start with a persistent index (`fileHeadCache`) ≤ 0.8× line-reader floor (at L)",
    0.8,
    "warm",
    "floor",
  ),
  {
    id: "earlier-pull",
    what: "cold pull ≥ 6× faster than sequential fetch",
    target: "",
    ok: (value) => value >= 6,
    measure(results) {
      const m = medians("remote", "sequential", "pull")(results);
      return typeof m === "string" ? m : [m[0], `${ratio(m[0])} faster`];
    },
  },
  {
    id: "earlier-warm-bodies",
    what: "warm pull downloads 0 file bodies",
    target: "",
    ok: le(0),
    measure(results) {
      const stats = pick(results, "remote", "warm");
      if (typeof stats === "string") return stats;
      const bodies = stats[0]?.server?.fileBodies?.max ?? Number.NaN;
      return [bodies, `${bodies} file bodies (max of runs)`];
    },
  },
  {
    id: "earlier-big-file",
    what: "pull's peak RSS grows by far less than the 50 MB file (≤ 12.5 MB)",
    target: "",
    ok: le(12.5),
    measure(results) {
      const stats = pick(results, "remote", "small", "big", "huge");
      if (typeof stats === "string") return stats;
      const [small, big, huge] = stats.map((s) => s.rssMB.median) as [number, number, number];
      return [big - small, `+${mb(big - small)} MB (+${mb(huge - small)} MB for a 200 MB file)`];
    },
  },
];

/** Every target of `specs` against one run. */
export function evaluateTargets(results: BenchResults, specs: readonly TargetSpec[] = TARGETS): TargetRow[] {
  return specs.map(({ id, what, target, ok, measure }) => {
    const m = measure(results);
    if (typeof m === "string") return { id, what, target, measured: m, verdict: "not measured" };
    return { id, what, target, measured: m[1], value: m[0], verdict: ok(m[0], results) ? "met" : "missed" };
  });
}

/** What `--check` prints and its exit code: 1 when a target was missed; one not measured is neither met nor missed. */
export function checkTargets(rows: readonly TargetRow[]): { readonly code: 0 | 1; readonly lines: string[] } {
  const count = (v: Verdict) => rows.filter((r) => r.verdict === v).length;
  const lines = rows.map((r) => `${r.verdict.padEnd(12)} ${r.what} ${r.target}: ${r.measured}`);
  const missed = count("missed");
  lines.push(
    `${missed > 0 ? "FAIL" : "PASS"}: ${count("met")} met, ${missed} missed, ${count("not measured")} not measured`,
  );
  return { code: missed > 0 ? 1 : 0, lines };
}
