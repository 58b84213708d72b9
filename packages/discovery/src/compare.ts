import { readlinkSync } from "node:fs";
import { basename, dirname, sep } from "node:path";
import {
  codexSidecarUserOnly,
  compareCodeUnits,
  loadSkillFile,
  quote,
  SKILL_FILE,
  SkillError,
  type SkippedPath,
  type UserOnlySpelling,
  userOnlySpellings,
  userOnlyVerdict,
} from "@skill/core";
import { type AgentRun, loadAs } from "./agent-run.js";
import type { DiscoveryOptions } from "./discovery-options.js";
import { rootStubs } from "./git-stub.js";
import { isSkillFilePath, isWithin } from "./paths.js";
import { DISCOVERY_PRESETS, type DiscoveryPreset } from "./presets.js";
import { scanRoots } from "./scan.js";
import type { Listings } from "./scan-options.js";
import { SharedWork } from "./shared-work.js";
import { agentProfile, DEFAULT_MAX_DIRS, scanPlanOf, sharedScanOptions } from "./sources.js";
import {
  type CompareOptions,
  type DeliberateSkip,
  VISIBILITY_REASONS,
  type VisibilityCell,
  type VisibilityReason,
  type VisibilityReport,
} from "./visibility.js";

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
      throw new SkillError(
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

  type Row = VisibilityReport["skills"][number];
  const skills: Row[] = [];
  // A row's name is nearly always known from the loads; the file is read only when it is not.
  const unnamed: Promise<void>[] = [];
  for (const location of locations) {
    const userOnly = userOnlyOf(location, runs, shared);
    const cells: Record<string, VisibilityCell> = {};
    for (const [agent, run] of runs)
      cells[agent] = withUserOnly(cellOf(location, run, stubs), agent, userOnly);
    const row = (name: string): Row => ({
      name,
      location,
      cells,
      ...(userOnly.length > 0 ? { userOnly } : {}),
    });
    const name = knownName(location, cells, runs);
    if (name !== undefined) skills.push(row(name));
    else unnamed.push(ownName(location).then((own) => void skills.push(row(own))));
  }
  await Promise.all(unnamed);
  skills.sort((a, b) => compareCodeUnits(a.name, b.name) || compareCodeUnits(a.location, b.location));
  return { agents, skills, deliberate: deliberateSkips(runs) };
}

/**
 * The ways a skill some agent loaded says "user-only": its frontmatter's, and Codex's sidecar
 * beside it (one stat, shared with the Codex load through the shared reads).
 */
function userOnlyOf(
  location: string,
  runs: ReadonlyMap<DiscoveryPreset, AgentRun>,
  shared: SharedWork,
): UserOnlySpelling[] {
  let frontmatter: Readonly<Record<string, unknown>> | undefined;
  for (const run of runs.values()) {
    frontmatter = run.frontmatter.get(location);
    if (frontmatter !== undefined) break;
  }
  if (frontmatter === undefined) return [];
  return userOnlySpellings(frontmatter, codexSidecarUserOnly(location, { sharedReads: shared.reads }));
}

/** A loaded cell with what its agent does with the skill's "user-only", where that is known. */
function withUserOnly(
  cell: VisibilityCell,
  agent: DiscoveryPreset,
  spellings: readonly UserOnlySpelling[],
): VisibilityCell {
  if (!cell.loaded || spellings.length === 0) return cell;
  const verdict = userOnlyVerdict(agent, spellings);
  return verdict === undefined ? cell : { ...cell, userOnly: verdict };
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
  const detail = fileNameDetail(location);
  return { loaded: false, reason: "not-scanned", ...(detail === undefined ? {} : { detail }) };
}

/**
 * Why a file no rule skipped was not taken, by its name: a lower-case skill.md where the agent
 * reads only SKILL.md (Amp reads both), a flat `.md` file where it reads only skill folders (pi
 * reads such files in its own roots).
 */
function fileNameDetail(location: string): string | undefined {
  const file = basename(location);
  if (file === SKILL_FILE) return undefined;
  if (isSkillFilePath(location)) return `file-name: ${file} (it reads SKILL.md)`;
  return file.endsWith(".md") ? `flat-file: ${file} (it reads skill folders only here)` : undefined;
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
    const folders = isSkillFilePath(location) ? parts.slice(0, -1) : parts;
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
  if (isSkillFilePath(path)) return false;
  for (let dir = dirname(path); !roots.has(dir) && dirname(dir) !== dir; dir = dirname(dir)) {
    if (skillDirs.has(dir)) return true;
  }
  return false;
}

function linkTarget(path: string): string | undefined {
  try {
    return `-> ${readlinkSync(path)}`;
  } catch {
    return undefined;
  }
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
  if (!isSkillFilePath(location)) return basename(location).replace(/\.md$/, "");
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
      if (!isSkillFilePath(path) && list.some((s) => LIMIT_SKIPS.has(s.reason))) folders.add(path);
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
