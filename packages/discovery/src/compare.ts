import { readlinkSync, statSync } from "node:fs";
import { basename, dirname, sep } from "node:path";
import {
  type AgentInfo,
  compareCodeUnits,
  type LoadReport,
  type LoadRules,
  loadSkillFile,
  type PermissionPolicy,
  quote,
  readInside,
  type SharedReads,
  SKILL_FILE,
  type SkillError,
  SkillError as SkillErrorClass,
  type SkillFile,
  SkillService,
  type SkillSource,
  type SkippedPath,
  type SourceScan,
  sharedReads,
  skillFiles,
} from "@skill/core";
import { classifyShadowed, type NestedCopy } from "./nested.js";
import { isWithin } from "./paths.js";
import { scanRoots } from "./scan.js";
import type { Listings } from "./scan-options.js";
import {
  agentProfile,
  DEFAULT_MAX_DIRS,
  DISCOVERY_PRESETS,
  type DiscoveryOptions,
  type DiscoveryPreset,
  presetDuplicates,
  presetLimits,
  type RootLimits,
  scanListed,
  scanPlanOf,
  sharedScanOptions,
} from "./sources.js";

/** Why an agent does not load a skill; when several apply, the first in this list is given. */
export type VisibilityReason =
  | "not-scanned"
  | "too-deep"
  | "dot-folder"
  | "symlinked-file"
  | "name-missing"
  | "too-long"
  | "parse-error"
  | "shadowed"
  | "dangling-symlink"
  | "git-symlink-stub"
  | "denied";

/** Reason ids in order of priority. */
export const VISIBILITY_REASONS: readonly VisibilityReason[] = Object.freeze([
  "not-scanned",
  "too-deep",
  "dot-folder",
  "symlinked-file",
  "name-missing",
  "too-long",
  "parse-error",
  "shadowed",
  "dangling-symlink",
  "git-symlink-stub",
  "denied",
] as const);

/** One agent's verdict on one skill. */
export type VisibilityCell =
  | {
      readonly loaded: true;
      /** The key the agent loads it under (Claude Code: the folder name). */
      readonly name: string;
      /** The `name` shown beside the key when the agent keys by folder (Claude Code). */
      readonly displayName?: string;
      /** `nondeterministic`: the agent's winner among same-named skills changes between runs (opencode). */
      readonly detail?: string;
    }
  | {
      readonly loaded: false;
      readonly reason: VisibilityReason;
      /**
       * More about the reason: the winner's location for `shadowed`, or what the agent really
       * does where a registry keeps one winner: `duplicate-listed` (Codex lists every copy) or
       * `nondeterministic` (opencode's winner changes between runs).
       */
      readonly detail?: string;
      /**
       * On a `shadowed` cell whose pair is one skill installed twice, inside its parent skill's
       * folder and in its own (see `classifyShadowed`): the parent's name and which copy is the
       * one inside it (this location, or the winner's).
       */
      readonly nested?: NestedCopy;
      /**
       * A deliberate difference from the agent, which follows such links and has no such bound:
       * the preset did not follow a link to the filesystem root, the home folder or above its
       * root (`link-to-ancestor`), or stopped at the folder bound it adds (`max-dirs`).
       */
      readonly deliberate?: DeliberateSkip;
    };

/** Why a preset stops where its agent goes on, on purpose (see {@link VisibilityReport.deliberate}). */
export type DeliberateSkip = "link-to-ancestor" | "max-dirs";

/** Which agent sees which skill, and why not. */
export interface VisibilityReport {
  readonly agents: readonly DiscoveryPreset[];
  /** Sorted by name, then location. */
  readonly skills: readonly {
    readonly name: string;
    readonly location: string;
    readonly cells: Readonly<Record<string, VisibilityCell>>;
  }[];
  /**
   * Where a preset stopped on purpose and its agent would go on, sorted by agent then path: a
   * link not followed (`link-to-ancestor`; nothing behind it was read, so the skills there have
   * no rows) or a folder past the preset's own folder bound (`max-dirs`).
   */
  readonly deliberate: readonly {
    readonly agent: string;
    readonly path: string;
    readonly reason: DeliberateSkip;
  }[];
}

/** Options of {@link compareAgents}. */
export interface CompareOptions extends Omit<DiscoveryOptions, "preset"> {
  /** The agents to compare (default: every preset). */
  readonly agents?: readonly DiscoveryPreset[];
  /** With `agent`: skills this policy denies are reported `denied`. */
  readonly permission?: PermissionPolicy;
  readonly agent?: AgentInfo;
}

/** A git symlink stub is the link target written into a file: short, one line, a path. */
const STUB_MAX_BYTES = 1024;

/** What one agent's load gave: a verdict for every location its sources returned. */
interface AgentRun {
  /** Every folder its sources scan. */
  readonly dirs: ReadonlySet<string>;
  /** The verdict on every location its sources returned. */
  readonly cells: ReadonlyMap<string, VisibilityCell>;
  /** The name a location goes by for this agent (loaded, denied or shadowed). */
  readonly names: ReadonlyMap<string, string>;
  /** What its scans passed over on purpose, by path. */
  readonly skipped: ReadonlyMap<string, readonly SkippedPath[]>;
  /** The depth and dot-folder limits of each scanned folder that has some. */
  readonly limits: ReadonlyMap<string, RootLimits>;
  /** The scanned folders with no depth, dot-folder or leaf limit, not cut by a folder bound: every skill below is found. */
  readonly complete: ReadonlySet<string>;
  /** True when the folder bound is the preset's own safety bound, not one the agent has. */
  readonly boundIsOurs: boolean;
}

/**
 * For every skill any of `agents` would find from `options.cwd`, and for every agent: whether
 * it loads the skill, under which name, and if not, why not (one reason id; see
 * {@link VISIBILITY_REASONS}). Each agent's skills are loaded exactly as that agent loads
 * them — `agentProfile` and a `SkillService` with its rules — and every cell is read off that
 * load's report: winners, `failed`, `shadowed` and the scans' `skipped` paths.
 *
 * @example
 * const report = await compareAgents({ cwd: process.cwd(), agents: ["claude-code", "codex"] });
 * for (const s of report.skills) console.log(s.name, s.cells.codex);
 */
export async function compareAgents(options: CompareOptions): Promise<VisibilityReport> {
  const agents = [...(options.agents ?? DISCOVERY_PRESETS)];
  for (const agent of agents) {
    if (!DISCOVERY_PRESETS.includes(agent)) {
      throw new SkillErrorClass(
        "INVALID_FIELD",
        `Unknown discovery preset ${quote(agent)} (expected one of: ${DISCOVERY_PRESETS.join(", ")})`,
        { field: "agents" },
      );
    }
  }
  const { agents: _agents, permission, agent: who, ...discovery } = options;
  const profiles = agents.map((agent) => [agent, agentProfile({ ...discovery, preset: agent })] as const);
  // Looked for while the agents load: it waits on the disk, the loads mostly do not.
  const stubsFound = rootStubs(
    new Set(profiles.flatMap(([, p]) => p.sources.flatMap((source) => scanPlanOf(source)?.dirs ?? []))),
  );
  const shared = new SharedWork();
  const runs = new Map<DiscoveryPreset, AgentRun>();
  for (const [agent, profile] of profiles) {
    runs.set(agent, await loadAs(profile, shared, permission, who, agent));
  }

  // Every location some agent's scan returned, or a place that stands for a skill it could not use.
  const locations = new Set<string>();
  for (const run of runs.values()) for (const location of run.cells.keys()) locations.add(location);
  for (const location of await pastLimits(runs, discovery, shared.listings)) locations.add(location);
  const skillDirs = new Set([...locations].map((l) => dirname(l)));
  const skips = [...runs.values()].flatMap((run) => [...run.skipped.values()].flat());
  for (const s of skips) {
    if (s.reason === "symlinked-file" || s.reason === "too-shallow") {
      locations.add(s.path);
      skillDirs.add(dirname(s.path));
    }
  }
  for (const run of runs.values()) {
    for (const [path, list] of run.skipped) {
      // A dangling link inside a skill folder is a broken bundled file, not a missing skill.
      if (list.some((s) => s.reason === "dangling-symlink") && !insideSkill(path, run.dirs, skillDirs)) {
        locations.add(path);
      }
    }
  }
  const stubs = await stubsFound;
  for (const location of stubs.keys()) locations.add(location);

  const skills: { name: string; location: string; cells: Record<string, VisibilityCell> }[] = [];
  // A row's name is nearly always known from the loads; the file is read only when it is not.
  const unnamed: Promise<void>[] = [];
  for (const location of locations) {
    const cells: Record<string, VisibilityCell> = {};
    for (const [agent, run] of runs) cells[agent] = cellOf(location, run, stubs);
    const name = knownName(location, cells, runs);
    if (name !== undefined) skills.push({ name, location, cells });
    else unnamed.push(ownName(location).then((own) => void skills.push({ name: own, location, cells })));
  }
  await Promise.all(unnamed);
  skills.sort((a, b) => compareCodeUnits(a.name, b.name) || compareCodeUnits(a.location, b.location));
  return { agents, skills, deliberate: deliberateSkips(runs) };
}

/** Every skipped path of each agent that {@link deliberateOf} calls deliberate. */
function deliberateSkips(runs: ReadonlyMap<DiscoveryPreset, AgentRun>): VisibilityReport["deliberate"] {
  const out: { agent: string; path: string; reason: DeliberateSkip }[] = [];
  for (const [agent, run] of runs) {
    for (const [path, list] of run.skipped) {
      for (const s of list) {
        const reason = deliberateOf(s, run);
        if (reason !== undefined) out.push({ agent, path, reason });
      }
    }
  }
  return out.sort((a, b) => compareCodeUnits(a.agent, b.agent) || compareCodeUnits(a.path, b.path));
}

/** The deliberate reason of a skipped path, if it is one. */
function deliberateOf(s: SkippedPath, run: AgentRun): DeliberateSkip | undefined {
  if (s.reason === "link-to-ancestor") return "link-to-ancestor";
  if (s.reason === "max-dirs" && run.boundIsOurs) return "max-dirs";
  return undefined;
}

/** Loads the skills `agent` sees, as that agent does, and reads a verdict per location off the result. */
async function loadAs(
  { sources, rules }: { readonly sources: readonly SkillSource[]; readonly rules: LoadRules },
  shared: SharedWork,
  permission: PermissionPolicy | undefined,
  who: AgentInfo | undefined,
  preset: DiscoveryPreset,
): Promise<AgentRun> {
  const duplicates = presetDuplicates(preset);
  const found = new Set<string>();
  const dirs = new Set<string>();
  const limits = new Map<string, RootLimits>();
  const unlimited: string[] = [];
  for (const source of sources) {
    const plan = scanPlanOf(source);
    const { maxDepth, skipDotDirs, leafSkills, minDepth } = plan?.options ?? {};
    if (plan && maxDepth === undefined && !skipDotDirs && !leafSkills && !minDepth)
      unlimited.push(...plan.dirs);
    if (!plan || (maxDepth === undefined && !skipDotDirs)) continue;
    for (const dir of plan.dirs) {
      limits.set(dir, {
        ...(maxDepth === undefined ? {} : { maxDepth }),
        ...(skipDotDirs ? { skipDotDirs } : {}),
      });
    }
  }
  const observed = sources.map((source) =>
    shared.observe(source, (scan) => {
      for (const entry of scan.entries) found.add(entry.location);
      for (const dir of scan.dirs) dirs.add(dir);
    }),
  );
  // Scanned first: an agent whose scans and rules are another's (sources with nothing to give
  // aside) loads what that agent loaded.
  const scans = await Promise.allSettled(observed.map(async (source) => source.scan({})));
  const { report, winners, visible } = await shared.load(shared.loadKey(sources, scans, rules), async () => {
    const service = new SkillService({
      sources: observed,
      ...rules,
      sharedReads: shared.reads,
      ...(permission === undefined ? {} : { permission }),
    });
    const report = await service.discoverAndLoad();
    const visible = permission && who ? new Set(service.all(who).map((s) => s.location)) : undefined;
    return { report, winners: service.all(), visible };
  });

  const cells = new Map<string, VisibilityCell>();
  const names = new Map<string, string>();
  const winnerOf = new Map(winners.map((s) => [s.name, s.location]));
  // opencode: which of several same-named skills wins changes between runs, the winner too.
  const contested =
    duplicates === "nondeterministic" ? new Set(report.shadowed.map((s) => s.name)) : new Set<string>();
  for (const skill of winners) {
    names.set(skill.location, skill.name);
    cells.set(
      skill.location,
      visible && !visible.has(skill.location)
        ? { loaded: false, reason: "denied", detail: `agent ${who?.name ?? ""}` }
        : {
            loaded: true,
            name: skill.name,
            ...(skill.displayName === undefined ? {} : { displayName: skill.displayName }),
            ...(contested.has(skill.name) ? { detail: "nondeterministic" } : {}),
          },
    );
  }
  for (const s of classifyShadowed(report.shadowed, winners)) {
    names.set(s.dropped, s.name);
    cells.set(s.dropped, {
      loaded: false,
      reason: "shadowed",
      detail: duplicates ?? winnerOf.get(s.name) ?? s.kept,
      ...(s.nested === undefined ? {} : { nested: s.nested }),
    });
  }
  const tooLong = tooLongPaths(report);
  for (const f of report.failed) {
    if (!found.has(f.path)) continue; // a whole source failed: its entries are unknown
    cells.set(f.path, await failureCell(f.path, f.error, tooLong));
  }
  // A file reached twice counts once, at its later position: the earlier path gets that verdict.
  const unjudged = [...found].filter((location) => !cells.has(location));
  if (unjudged.length > 0) {
    const byFile = new Map<string, string>();
    for (const location of cells.keys()) {
      const id = fileId(location);
      if (id !== undefined) byFile.set(id, location);
    }
    for (const location of unjudged) {
      const id = fileId(location);
      const same = id === undefined ? undefined : byFile.get(id);
      const cell = same === undefined ? undefined : cells.get(same);
      if (same === undefined || cell === undefined) continue;
      cells.set(location, cell.loaded ? { loaded: false, reason: "shadowed", detail: same } : cell);
      const name = names.get(same);
      if (name !== undefined) names.set(location, name);
    }
  }
  const skipped = new Map<string, SkippedPath[]>();
  for (const s of report.skipped ?? []) {
    const list = skipped.get(s.path);
    if (list) list.push(s);
    else skipped.set(s.path, [s]);
  }
  // A folder bound that cut a root leaves skills below it unfound.
  const cut = (report.skipped ?? []).filter((s) => s.reason === "max-dirs").map((s) => s.path);
  const complete = new Set(unlimited.filter((dir) => !cut.some((path) => isWithin(path, dir))));
  const boundIsOurs = presetLimits(preset)?.maxDirs === undefined;
  return { dirs, cells, names, skipped, limits, complete, boundIsOurs };
}

/** The verdict on a file the agent's load refused, from the error the load gave. */
async function failureCell(
  location: string,
  error: SkillError,
  tooLong: ReadonlySet<string>,
): Promise<VisibilityCell> {
  if (error.code === "MISSING_FIELD" && error.field === "name") {
    return { loaded: false, reason: "name-missing", detail: error.message };
  }
  if (error.code === "INVALID_FIELD" && tooLong.has(`${location}\0${error.field ?? ""}`)) {
    return { loaded: false, reason: "too-long", detail: error.message };
  }
  if (error.code === "PARSE_ERROR" && basename(location) === SKILL_FILE) {
    const text = await smallText(dirname(location), SKILL_FILE);
    if (text !== undefined && looksLikeStub(text)) {
      return { loaded: false, reason: "git-symlink-stub", detail: text.trim() };
    }
  }
  return { loaded: false, reason: "parse-error", detail: error.message };
}

/** `<path>\0<field>` of every file the load refused for a field over its limit (`rejectLongFields`). */
function tooLongPaths(report: LoadReport): Set<string> {
  const out = new Set<string>();
  for (const d of report.diagnostics) {
    if (d.severity !== "error" || d.path === undefined || d.field === undefined) continue;
    if (d.code === `${d.field}-too-long`) out.add(`${d.path}\0${d.field}`);
  }
  return out;
}

/** One agent's cell for a location: its load's verdict, else why its scan passed it over. */
function cellOf(location: string, run: AgentRun, stubs: ReadonlyMap<string, string>): VisibilityCell {
  const known = run.cells.get(location);
  if (known) return known;
  // The location itself, or a folder holding it, that the agent's scan passed over.
  let best: { reason: VisibilityReason; detail?: string; deliberate?: DeliberateSkip } | undefined;
  for (let path = location; ; path = dirname(path)) {
    for (const s of run.skipped.get(path) ?? []) {
      const why = skipReason(s, run);
      if (best === undefined || rank(why.reason) < rank(best.reason)) best = why;
    }
    if (run.dirs.has(path) || dirname(path) === path) break;
  }
  if (best) {
    // The scan names the first rule it met on the way; a rule ranked before it that holds for
    // this location too (a dot-folder deeper than the agent looks) is the one given.
    const limit = limitReason(location, run);
    return limit !== undefined && rank(limit) < rank(best.reason)
      ? { loaded: false, reason: limit }
      : { loaded: false, ...best };
  }
  const stub = stubs.get(location);
  if (stub !== undefined && run.dirs.has(dirname(location))) {
    return { loaded: false, reason: "git-symlink-stub", detail: stub };
  }
  return { loaded: false, reason: "not-scanned" };
}

/** What a skipped path (the location itself, or a folder holding it) says about the location. */
function skipReason(
  s: SkippedPath,
  run: AgentRun,
): { reason: VisibilityReason; detail?: string; deliberate?: DeliberateSkip } {
  switch (s.reason) {
    case "too-deep":
    case "dot-folder":
    case "symlinked-file":
      return { reason: s.reason };
    case "dangling-symlink": {
      const target = linkTarget(s.path);
      return { reason: "dangling-symlink", ...(target === undefined ? {} : { detail: target }) };
    }
    default: {
      // node-modules, ignored, max-dirs, symlink-loop, link-to-ancestor, leaf (inside a skill
      // folder), too-shallow (a SKILL.md directly in a root): the agent never looked there.
      const deliberate = deliberateOf(s, run);
      return {
        reason: "not-scanned",
        detail: `${s.reason}: ${s.path}`,
        ...(deliberate === undefined ? {} : { deliberate }),
      };
    }
  }
}

/**
 * `too-deep` or `dot-folder` when the location lies below the agent's root (one of its scan
 * plans' folders) deeper than that plan's `maxDepth`, or inside a dot-folder it skips.
 */
function limitReason(location: string, run: AgentRun): "too-deep" | "dot-folder" | undefined {
  let found: "too-deep" | "dot-folder" | undefined;
  for (const [dir, limits] of run.limits) {
    if (location === dir || !isWithin(location, dir)) continue;
    const parts = location.slice(dir.length + (dir.endsWith(sep) ? 0 : 1)).split(sep);
    // A SKILL.md sits in its folder; anything else (a link, a stub) stands for a folder.
    const folders = basename(location) === SKILL_FILE ? parts.slice(0, -1) : parts;
    if (limits.maxDepth !== undefined && folders.length > limits.maxDepth) return "too-deep";
    if (limits.skipDotDirs && folders.some((name) => name.startsWith("."))) found = "dot-folder";
  }
  return found;
}

function rank(reason: VisibilityReason): number {
  return VISIBILITY_REASONS.indexOf(reason);
}

/** True when a folder between a scanned root (excluded) and `path` (excluded) holds a skill. */
function insideSkill(path: string, roots: ReadonlySet<string>, skillDirs: ReadonlySet<string>): boolean {
  if (basename(path) === SKILL_FILE) return false;
  for (let dir = dirname(path); !roots.has(dir) && dirname(dir) !== dir; dir = dirname(dir)) {
    if (skillDirs.has(dir)) return true;
  }
  return false;
}

/** `dev:ino` of a file, to tell the same file reached through two paths. */
function fileId(path: string): string | undefined {
  try {
    const stats = statSync(path);
    return `${stats.dev}:${stats.ino}`;
  } catch {
    return undefined;
  }
}

function linkTarget(path: string): string | undefined {
  try {
    return `-> ${readlinkSync(path)}`;
  } catch {
    return undefined;
  }
}

/** The text of a small file, through core's safe reader; `undefined` when it is not one. */
async function smallText(dir: string, path: string): Promise<string | undefined> {
  try {
    const bytes = await readInside(dir, path, { maxBytes: STUB_MAX_BYTES });
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  } catch {
    return undefined;
  }
}

/** One short line holding a path: what git writes for a symlink when it cannot make one. */
function looksLikeStub(text: string): boolean {
  if (text.length === 0 || text.length > STUB_MAX_BYTES) return false;
  const line = text.endsWith("\n") ? text.slice(0, -1) : text;
  return !/[\n\r\0]/.test(line) && line.includes("/") && !line.startsWith("---") && !/\s{2}/.test(line);
}

/**
 * Small files directly in a scanned folder, each holding one path: symlinked skill folders
 * checked out as text. Listed by core's walker of a folder, read by its safe reader.
 */
async function rootStubs(dirs: ReadonlySet<string>): Promise<Map<string, string>> {
  const found = await Promise.all(
    [...dirs].map(async (dir) => {
      let files: SkillFile[];
      try {
        // Its own files only: a stub stands for a skill folder directly in the root.
        files = await skillFiles(dir, {
          limit: Number.POSITIVE_INFINITY,
          maxBytes: Number.POSITIVE_INFINITY,
          maxDepth: 0,
        });
      } catch {
        return []; // missing, unreadable or too large to list: no stubs to report there
      }
      const stubs: [string, string][] = [];
      for (const file of files) {
        if (file.path.includes("/") || file.path === SKILL_FILE || file.link !== undefined) continue;
        if (file.size === 0 || file.size > STUB_MAX_BYTES) continue;
        const text = await smallText(dir, file.path);
        if (text !== undefined && looksLikeStub(text)) {
          stubs.push([dir.endsWith(sep) ? dir + file.path : dir + sep + file.path, text.trim()]);
        }
      }
      return stubs;
    }),
  );
  return new Map(found.flat());
}

/**
 * The name a row goes by, as the loads tell it: the name the first agent loading it gives it,
 * else a name an agent gave it, else its file's or (a SKILL.md some agent reached) its
 * folder's name. `undefined` for a SKILL.md no agent reached: {@link ownName} reads it.
 */
function knownName(
  location: string,
  cells: Readonly<Record<string, VisibilityCell>>,
  runs: ReadonlyMap<DiscoveryPreset, AgentRun>,
): string | undefined {
  for (const cell of Object.values(cells)) if (cell.loaded) return cell.name;
  for (const run of runs.values()) {
    const name = run.names.get(location);
    if (name !== undefined) return name;
  }
  if (basename(location) !== SKILL_FILE) return basename(location);
  const reached = [...runs.values()].some((run) => run.cells.has(location));
  return reached ? basename(dirname(location)) : undefined;
}

/** The name a SKILL.md no agent reached gives itself, else its folder's. */
async function ownName(location: string): Promise<string> {
  const own = await loadSkillFile(location).then(
    ({ skill }) => skill.name,
    () => undefined,
  );
  return own ?? basename(dirname(location));
}

/** Reasons a scan gives for a folder it did not enter because of the agent's own limits. */
const LIMIT_SKIPS: ReadonlySet<string> = new Set(["too-deep", "dot-folder", "max-dirs", "leaf"]);

/**
 * The `SKILL.md` files below the folders some agent passed over for its limits (too deep, a
 * dot-folder, past its folder budget): skills in that agent's roots that it does not reach.
 * Found by discovery's one scanner, with the caller's ignore and symlink options, through the
 * folder listings the agents' scans made.
 */
async function pastLimits(
  runs: ReadonlyMap<DiscoveryPreset, AgentRun>,
  discovery: Omit<DiscoveryOptions, "preset">,
  listings: Listings,
): Promise<string[]> {
  const folders = new Set<string>();
  for (const run of runs.values()) {
    for (const [path, list] of run.skipped) {
      if (basename(path) !== SKILL_FILE && list.some((s) => LIMIT_SKIPS.has(s.reason))) folders.add(path);
    }
  }
  // An agent that scans a folder holding it without limits has found every skill there already.
  const complete = new Set([...runs.values()].flatMap((run) => [...run.complete]));
  const outer = [...folders].filter((folder) => {
    for (let dir = dirname(folder); dirname(dir) !== dir; dir = dirname(dir)) {
      if (folders.has(dir) || complete.has(dir)) return false;
    }
    return true;
  });
  if (outer.length === 0) return [];
  // One folder bound for all of them: what the agents passed over cannot make this cost more.
  return scanRoots(outer.sort(compareCodeUnits), {
    ...sharedScanOptions(discovery),
    maxDirs: DEFAULT_MAX_DIRS,
    sharedBudget: true,
    onWarning: () => {},
    onMissingRoot: () => {},
    listings,
  });
}

/**
 * What the agents' loads may share without changing what any of them finds: a source whose
 * scan plan another agent's source has already run gives that scan, every scan lists a folder
 * once, every load reads and YAML-parses a SKILL.md through one memo (each applies its
 * own rules to the parse; no head cache: the memo makes a second load as cheap), and an agent
 * whose scans and rules are another's takes that agent's load.
 */
class SharedWork {
  /** Each file read and parsed once for all agents' loads, whatever their rules. */
  readonly reads: SharedReads = sharedReads();
  readonly #scans = new Map<string, Promise<SourceScan>>();
  readonly #loads = new Map<string, Promise<unknown>>();
  /** Each folder is listed once for all agents' scans, whatever their limits, and for `pastLimits`. */
  readonly listings: Listings = new Map();

  /** The source, reporting each scan it returns; scans with the same plan run once. */
  observe(source: SkillSource, seen: (scan: SourceScan) => void): SkillSource {
    const plan = scanPlanOf(source);
    const key = plan && planKey(source.id, plan.dirs, plan.options);
    return {
      id: source.id,
      ...(source.precedence === undefined ? {} : { precedence: source.precedence }),
      scan: async (ctx) => {
        let pending = key === undefined ? undefined : this.#scans.get(key);
        if (pending === undefined) {
          pending = scanListed(source, ctx, this.listings);
          if (key !== undefined) this.#scans.set(key, pending);
        }
        const scan = await pending;
        seen(scan);
        return scan;
      },
    };
  }

  /**
   * What makes two agents' loads the same: their rules and, in order, each source that gave
   * something (entries, findings, skipped paths, a failure), by its scan plan and precedence.
   * `undefined` when a source has no plan (its scans cannot be told apart).
   */
  loadKey(
    sources: readonly SkillSource[],
    scans: readonly PromiseSettledResult<SourceScan>[],
    rules: LoadRules,
  ): string | undefined {
    const parts: unknown[] = [];
    for (let i = 0; i < sources.length; i++) {
      const source = sources[i] as SkillSource;
      const plan = scanPlanOf(source);
      if (!plan) return undefined;
      const settled = scans[i];
      const scan = settled?.status === "fulfilled" ? settled.value : undefined;
      if (scan && scan.entries.length === 0 && !scan.diagnostics?.length && !scan.skipped?.length) continue;
      parts.push([planKey(source.id, plan.dirs, plan.options), source.precedence ?? null]);
    }
    return JSON.stringify([JSON.stringify(rules, Object.keys(rules).sort()), parts]);
  }

  /** `run()`'s result, once per key (every time without one). */
  load<T>(key: string | undefined, run: () => Promise<T>): Promise<T> {
    if (key === undefined) return run();
    let pending = this.#loads.get(key) as Promise<T> | undefined;
    if (pending === undefined) {
      pending = run();
      this.#loads.set(key, pending);
    }
    return pending;
  }
}

/** What makes two scans the same: the source, its folders and its options (the logger aside). */
function planKey(id: string, dirs: readonly string[], options: object): string {
  const { logger: _logger, signal: _signal, ...rest } = options as Record<string, unknown>;
  const fields = Object.entries(rest).sort(([a], [b]) => compareCodeUnits(a, b));
  return JSON.stringify([id, dirs, fields]);
}
