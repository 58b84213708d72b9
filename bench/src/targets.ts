// The targets table: each row reads its value from one run's groups, or
// says why it was not measured. Adding a row is a line in a table and a measure of the same id.
import { fine, int, mb, pct, quantile, ratio } from "./format.js";
import type { BenchResults, Group } from "./results.js";

export type Verdict = "met" | "missed" | "not measured";

export interface TargetRow extends Readonly<Record<"id" | "what" | "target", string>> {
  /** What was measured, or why nothing was; `value` is compared with the limit. */
  readonly measured: string;
  readonly value?: number;
  readonly verdict: Verdict;
}

/** A value and its wording (and the verdict where the limit alone does not decide), or why there is none. */
type Said = readonly [value: number, measured: string, ok?: boolean];
type Measure = (r: BenchResults) => Said | string;
type Say = (x: number, y: number) => Said;

export const REFERENCE = "sync-floor";
export const WARM_REFERENCE = "crawl-stat";

// id | what | target: the limit is the number after ≤, ≥ or < (`≤` when there is none).
const TABLE = `
load-XS | discover + load, 100 skills, ours / synchronous floor (median wall time) | ≤ 1.5×
load-S | discover + load, 1,000 skills, ours / synchronous floor (median wall time) | ≤ 1.4×
load-L | discover + load, 10,000 skills, ours / synchronous floor (median wall time) | ≤ 1.3×
warm-XS | warm start (\`fileHeadCache\`, tree unchanged), 100 skills, ours / crawl + stat (median wall time) | ≤ crawl + stat + 3 ms
warm-S | warm start (\`fileHeadCache\`, tree unchanged), 1,000 skills, ours / crawl + stat (median wall time) | ≤ 1.3×
warm-L | warm start (\`fileHeadCache\`, tree unchanged), 10,000 skills, ours / crawl + stat (median wall time) | ≤ 1.3×
warm-changed-L | warm start with one SKILL.md among 10,000 changed / the warm start with none changed (medians) | ≤ 1.1×
rss-L | peak RSS at 10,000 skills, ours / synchronous floor | ≤ 1.0×
update-ms | one changed SKILL.md among 10,000: \`service.update\` of that file (median) | ≤ 20 ms
update-vs-reload | the same, as a share of a full reload (medians) | ≤ 1/30
event-ms | the same, end to end: file written → \`skill.changed\` through \`watchSkills\` (median) | ≤ debounce + 50 ms
startup | \`skill list\` at 100 skills, whole process, / \`node -e 0\` (medians) | ≤ 2.0×
startup-vercel | \`skill list\` / Vercel's \`skills list\` (npm \`skills\`, on the Node 22 it needs, from npm), same 100-skill tree, whole processes (medians) | < 1.0× (ours faster)
list-table-S | \`skill list\` as a terminal gets it (a table) / \`skill list --json\`, 1,000 real skills, whole processes (medians) | ≤ 1.2×
list-table-2k | the same at 2,000 real skills | ≤ 1.2×
pull-cold | cold pull of a 500-skill pack at 20 ms latency, v0.1 per-file / v0.2 archives | v0.2 ≥ 3× faster
pull-warm | warm pull of an unchanged digest-pinned pack | 1 request
add | \`skill add\` of 50 skills from a local pack / copying the same folders with \`fs.cpSync\` (whole processes, medians) | ≤ 3×
doctor | \`skill doctor\` over every preset (10 agents and the default) at 1,000 skills / one preset's load (medians) | ≤ 3×
mcp-load | \`discoverAndLoad\` of 1,000 skills listed over stdio by \`skill serve-mcp\` (started and warmed first) / from disk (medians) | ≤ 2×
mcp-read | \`read\` of one skill over the same server (median) | ≤ 5 ms
mcp-http | \`createSkillsServer\` (\`recheckMs: 2000\`) over Streamable HTTP, a server per session, 20 clients at once listing and reading 1,000 skills: requests/s, ours / the SDK's own skills server (medians) | ≥ 1×
mcp-http-idle | the same server: heap per idle session (after a full GC, median) | ≤ 0.5 MB
search-build | \`createSkillIndex\` of 10,000 skills, first in a fresh process (median) | ≤ 150 ms
search-build-summaries | the same, the skills carrying body summaries (the catalog's, 729 of 1,636 names) | ≤ 200 ms
search-replace | \`replace\` with one of 10,000 skills changed (median) | ≤ 5 ms
search-query | one query on 10,000 skills (median over the request set) | ≤ 2 ms
tools-build | \`skillTools\` at 10,000 skills (built, catalog and definitions read) / an index build plus one \`formatCatalog\`, medians | ≤ 1.2×
tools-stable | bytes of tool definitions that changed over a 20-step session loading a skill a step, at 10,000 skills: ours (a catalog only \`refresh()\` moves), beside a catalog ranked by the session's loads | 0 changed
search-recall | recall@5 over the hand-written requests on the real catalog, ours against a substring match and untuned MiniSearch | ≥ 0.85 and above both
`;

/** A group of the run whose approaches `ids` (all when none) found what they should, or why not. */
function groupOf(r: BenchResults, name: string, ids?: readonly string[]): Group | string {
  const group = r.groups[name];
  const why = group?.unavailable ?? group?.problem;
  if (why) return `not measured: ${why}`;
  if (!group) {
    const needsL = name.endsWith("-L") && !r.command.includes("--size L");
    return `not measured: ${needsL ? "needs `--size L`" : "not in this run's `--only`"}`;
  }
  const gone = ids?.find((id) => !group.stats.some((s) => s.id === id));
  if (gone) return `not measured: ${group.missing?.[gone] ?? `no ${gone} in this run`}`;
  // A run that found the wrong skills is no measurement.
  const bad = group.stats.find((s) => s.problem && (ids ?? [s.id]).includes(s.id));
  return bad ? `not measured: ${bad.id} did not find the expected result (${bad.problem})` : group;
}

/** Series of a group's samples, or why there are none. */
function samples(r: BenchResults, name: string, ...keys: string[]): (readonly number[])[] | string {
  const group = groupOf(r, name);
  if (typeof group === "string") return group;
  const series = keys.map((k) => group.samples?.[k] ?? []);
  return series.some((s) => s.length === 0) ? "not measured: no samples" : series;
}

// Ways to say `x / y`: `1.25× (105 / 83.8 ms)`, in MB, as a share, as a speed-up, in words.
const over: Say = (x, y) => [x / y, `${ratio(x / y)} (${fine(x)} / ${fine(y)} ms)`];
const inMB: Say = (x, y) => [x / y, `${ratio(x / y)} (${mb(x)} / ${mb(y)} MB)`];
const share: Say = (x, y) => [x / y, `1/${int(y / x)} (${fine(x)} / ${fine(y)} ms)`];
const faster: Say = (x, y) => [x / y, `${ratio(x / y)} faster (v0.1 ${fine(x)} ms, v0.2 ${fine(y)} ms)`];
const against: Say = (x, y) => [x / y, `${ratio(x / y)} (${fine(x)} ms against ${fine(y)} ms)`];

/** Two approaches' medians (time, or peak RSS), said by `say`. */
function pair(name: string, a: string, b: string, say: Say = over, of: "time" | "rssMB" = "time"): Measure {
  return (r) => {
    const g = groupOf(r, name, [a, b]);
    if (typeof g === "string") return g;
    const median = (id: string) => g.stats.find((s) => s.id === id)?.[of].median as number;
    return say(median(a), median(b));
  };
}

/** The median of a group's samples, as `2.18 ms (p90 3.57 ms, 50 edits)`. */
function sampled(name: string, key: string, noun: string): Measure {
  return (r) => {
    const s = samples(r, name, key);
    if (typeof s === "string") return s;
    const [values = []] = s;
    const m = quantile(values, 0.5);
    return [m, `${fine(m)} ms (p90 ${fine(quantile(values, 0.9))} ms, ${values.length} ${noun})`];
  };
}

/** The medians of two sample series of a group, said by `say`. */
function samplePair(name: string, a: string, b: string, say: Say): Measure {
  return (r) => {
    const s = samples(r, name, a, b);
    return typeof s === "string" ? s : say(quantile(s[0] ?? [], 0.5), quantile(s[1] ?? [], 0.5));
  };
}

// At 100 skills the warm start's limit is milliseconds over crawl + stat: `+3.00 ms (8.00 / 5.00 ms, 1.60×)`.
const warm = (size: string) =>
  pair(`load-${size}`, "warm", WARM_REFERENCE, (x, y) =>
    size === "XS" ? [x - y, `+${fine(x - y)} ms (${fine(x)} / ${fine(y)} ms, ${ratio(x / y)})`] : over(x, y),
  );

const MEASURES: Readonly<Record<string, Measure>> = {
  ...Object.fromEntries(
    ["XS", "S", "L"].flatMap((size) => [
      [`load-${size}`, pair(`load-${size}`, "ours", REFERENCE)],
      [`warm-${size}`, warm(size)],
    ]),
  ),
  "warm-changed-L": pair("load-L", "warm-changed", "warm"),
  "rss-L": pair("load-L", "ours", REFERENCE, inMB, "rssMB"),
  "update-ms": sampled("changes-L", "update", "edits"),
  "update-vs-reload": samplePair("changes-L", "update", "reload", share),
  "event-ms": (r) => {
    const group = r.groups["changes-L"];
    const [lost = 0, debounce] = [group?.samples?.lost?.[0], Number(group?.facts?.debounceMs)];
    const s = samples(r, "changes-L", "event");
    if (typeof s === "string")
      return lost ? `not measured: no \`skill.changed\` arrived (${lost} edits lost)` : s;
    const [m, p90] = [quantile(s[0] ?? [], 0.5), quantile(s[0] ?? [], 0.9)];
    const said = `${fine(m)} ms with a ${debounce} ms debounce (p90 ${fine(p90)} ms${lost ? `, ${lost} edits lost` : ""})`;
    return [m, said, m <= debounce + 50 && lost === 0];
  },
  startup: pair("startup", "cli", "node"),
  "startup-vercel": pair("startup", "cli", "vercel"),
  "list-table-S": pair("list", "table-1000", "json-1000"),
  "list-table-2k": pair("list", "table-2000", "json-2000"),
  "pull-cold": pair("pulls", "v1-cold", "v2-cold", faster),
  "pull-warm": (r) => {
    const group = groupOf(r, "pulls", ["v2-warm"]);
    if (typeof group === "string") return group;
    const requests = group.stats.find((s) => s.id === "v2-warm")?.more?.requests?.max;
    if (requests === undefined) return "not measured: the server counted no requests";
    return [requests, `${requests} request${requests === 1 ? "" : "s"} (max of runs)`];
  },
  add: pair("add", "add", "copy"),
  doctor: pair("doctor", "doctor", "ours"),
  "mcp-load": pair("mcp", "mcp", "ours"),
  "mcp-read": sampled("mcp", "read", "reads"),
  "mcp-http": (r) => {
    const group = groupOf(r, "mcp-http", ["ours", "sdk", "ours-default"]);
    if (typeof group === "string") return group;
    const rps = (id: string) => group.stats.find((s) => s.id === id)?.more?.rps?.median ?? Number.NaN;
    const [ours, sdk, plain] = [rps("ours"), rps("sdk"), rps("ours-default")];
    const said = `${ratio(ours / sdk)} (${int(ours)} / ${int(sdk)} requests/s; defaults ${ratio(plain / sdk)})`;
    return [ours / sdk, said];
  },
  "mcp-http-idle": (r) => {
    const group = groupOf(r, "mcp-http", ["ours"]);
    if (typeof group === "string") return group;
    const kb = group.stats.find((s) => s.id === "ours")?.more?.idleHeapKB?.median ?? Number.NaN;
    return [kb / 1024, `${fine(kb)} KB of heap per session`];
  },
  "search-build": sampled("search", "coldBuild", "samples"),
  "search-build-summaries": sampled("search", "coldBuildSummaries", "samples"),
  "search-replace": sampled("search", "replace", "samples"),
  "search-query": sampled("search", "query", "samples"),
  "tools-build": samplePair("search", "tools", "toolsBaseline", against),
  "tools-stable": (r) => {
    const s = samples(r, "search", "definitionBytes", "definitionBytesBaseline");
    if (typeof s === "string") return s;
    const [ours, moving] = [s[0]?.[0] ?? Number.NaN, s[1]?.[0] ?? Number.NaN];
    return [
      ours,
      `${int(ours)} bytes changed (ranked by the session's loads: ${int(moving)} bytes)`,
      ours === 0,
    ];
  },
  "search-recall": (r) => {
    const group = groupOf(r, "search");
    if (typeof group === "string") return group;
    const recall = (who: string) => group.samples?.[`${who}@5`]?.[0] ?? Number.NaN;
    const [ours, substring, mini] = [recall("ours"), recall("substring"), recall("minisearch")];
    const said = `${pct(ours)} (substring ${pct(substring)}, MiniSearch ${pct(mini)}; ${group.samples?.requests?.[0]} requests)`;
    return [ours, said, ours >= 0.85 && ours > Math.max(substring, mini)];
  },
};

/** The rows of TABLE; `limit`: what the value must be at most (`≤`), below (`<`) or at least (`≥`). */
export const TARGETS = TABLE.trim()
  .split("\n")
  .map((line) => {
    const [id = "", what = "", target = ""] = line.split(" | ");
    const [, comparison = "≤", a = "", b] =
      /(≤|≥|<)\s*([\d.]+)(?:\/([\d.]+))?/.exec(target) ?? /()([\d.]+)/.exec(target) ?? [];
    return { id, what, target, limit: [comparison, Number(a) / Number(b ?? 1)] as const };
  });

/** The limit of a row of the targets table, e.g. for the charts' target lines. */
export const limitOf = (id: string) => TARGETS.find((t) => t.id === id)?.limit[1] ?? Number.NaN;

export function evaluateTargets(results: BenchResults): TargetRow[] {
  return TARGETS.map(({ id, what, target, limit: [comparison, limit] }) => {
    const m = MEASURES[id]?.(results) ?? "not measured: no measure";
    if (typeof m === "string") return { id, what, target, measured: m, verdict: "not measured" };
    const [value, measured, met] = m;
    const ok =
      met ?? (comparison === "≥" ? value >= limit : comparison === "<" ? value < limit : value <= limit);
    return { id, what, target, measured, value, verdict: ok ? "met" : "missed" };
  });
}

/** What `--check` prints and its exit code: 1 when a target was missed; one not measured is neither. */
export function checkTargets(rows: readonly TargetRow[]): { readonly code: 0 | 1; readonly lines: string[] } {
  const count = (v: Verdict) => rows.filter((r) => r.verdict === v).length;
  const lines = rows.map((r) => `${r.verdict.padEnd(12)} ${r.what} ${r.target}: ${r.measured}`);
  const missed = count("missed");
  const counts = `${count("met")} met, ${missed} missed, ${count("not measured")} not measured`;
  lines.push(`${missed > 0 ? "FAIL" : "PASS"}: ${counts}`);
  return { code: missed > 0 ? 1 : 0, lines };
}
