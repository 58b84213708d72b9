import { statSync } from "node:fs";
import { basename, dirname } from "node:path";
import {
  type AgentInfo,
  type LoadReport,
  type LoadRules,
  type PermissionPolicy,
  SKILL_FILE,
  type SkillError,
  type SkillMetadata,
  SkillService,
  type SkillSource,
  type SkippedPath,
} from "@skill/core";
import { looksLikeStub, smallText } from "./git-stub.js";
import { classifyShadowed } from "./nested.js";
import { isWithin } from "./paths.js";
import { type DiscoveryPreset, presetDuplicates, presetLimits, type RootLimits } from "./presets.js";
import type { SharedWork } from "./shared-work.js";
import { scanPlanOf } from "./sources.js";
import type { VisibilityCell } from "./visibility.js";

/** What one agent's load gave: a verdict for every location its sources returned. */
export interface AgentRun {
  /** Every folder its sources scan. */
  readonly dirs: ReadonlySet<string>;
  /** The verdict on every location its sources returned. */
  readonly cells: ReadonlyMap<string, VisibilityCell>;
  /** The name a location goes by for this agent (loaded, denied or shadowed). */
  readonly names: ReadonlyMap<string, string>;
  /** The frontmatter of every skill it loaded, by location. */
  readonly frontmatter: ReadonlyMap<string, Readonly<Record<string, unknown>>>;
  /** What its scans passed over on purpose, by path. */
  readonly skipped: ReadonlyMap<string, readonly SkippedPath[]>;
  /** The depth and dot-folder limits of each scanned folder that has some. */
  readonly limits: ReadonlyMap<string, RootLimits>;
  /** The scanned folders with no depth, dot-folder or leaf limit, not cut by a folder bound: every skill below is found. */
  readonly complete: ReadonlySet<string>;
  /** True when the folder bound is the preset's own safety bound, not one the agent has. */
  readonly boundIsOurs: boolean;
}

/** Loads the skills `agent` sees, as that agent does, and reads a verdict per location off the result. */
export async function loadAs(
  { sources, rules }: { readonly sources: readonly SkillSource[]; readonly rules: LoadRules },
  shared: SharedWork,
  permission: PermissionPolicy | undefined,
  who: AgentInfo | undefined,
  preset: DiscoveryPreset,
): Promise<AgentRun> {
  const { limits, unlimited } = scanLimits(sources);
  const found = new Set<string>();
  const dirs = new Set<string>();
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

  const names = new Map<string, string>();
  const cells = loadVerdicts(report, winners, visible, who, presetDuplicates(preset), names);
  const tooLong = tooLongPaths(report);
  for (const f of report.failed) {
    if (!found.has(f.path)) continue; // a whole source failed: its entries are unknown
    cells.set(f.path, await failureCell(f.path, f.error, tooLong));
  }
  sameFileVerdicts(found, cells, names);
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
  const frontmatter = new Map(winners.map((s) => [s.location, s.frontmatter]));
  return { dirs, cells, names, frontmatter, skipped, limits, complete, boundIsOurs };
}

/**
 * The depth and dot-folder limits of each folder the sources scan (`limits`), and the folders
 * they scan with no limit at all (`unlimited`).
 */
function scanLimits(sources: readonly SkillSource[]): {
  limits: Map<string, RootLimits>;
  unlimited: string[];
} {
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
  return { limits, unlimited };
}

/**
 * The verdicts a load gives by itself: each winner loaded (or denied the agent), each skill it
 * shadowed; `names` takes the name each location goes by.
 */
function loadVerdicts(
  report: LoadReport,
  winners: readonly SkillMetadata[],
  visible: ReadonlySet<string> | undefined,
  who: AgentInfo | undefined,
  duplicates: "duplicate-listed" | "nondeterministic" | undefined,
  names: Map<string, string>,
): Map<string, VisibilityCell> {
  const cells = new Map<string, VisibilityCell>();
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
  return cells;
}

/** A file reached twice counts once, at its later position: the earlier path gets that verdict. */
function sameFileVerdicts(
  found: ReadonlySet<string>,
  cells: Map<string, VisibilityCell>,
  names: Map<string, string>,
): void {
  const unjudged = [...found].filter((location) => !cells.has(location));
  if (unjudged.length === 0) return;
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

/** `<path>\0<field>` of every file the load refused for a field over its limit (`rejectLongName`/`Description`). */
function tooLongPaths(report: LoadReport): Set<string> {
  const out = new Set<string>();
  for (const d of report.diagnostics) {
    if (d.severity !== "error" || d.path === undefined || d.field === undefined) continue;
    if (d.code === `${d.field}-too-long`) out.add(`${d.path}\0${d.field}`);
  }
  return out;
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
