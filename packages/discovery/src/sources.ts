import {
  compareCodeUnits,
  type Diagnostic,
  type LoadRules,
  type Logger,
  type ScanContext,
  type SkillSource,
  type SkippedPath,
  type SourceScan,
} from "@skill/core";
import type { DiscoveryOptions, DiscoveryRoot } from "./discovery-options.js";
import { presetDuplicates, presetRules } from "./presets.js";
import { discoveryRoots } from "./roots.js";
import { scanRoots } from "./scan.js";
import type { Listings, RootsScanOptions } from "./scan-options.js";

/**
 * Folders a scan enters per root of an agent's layout when the agent has no bound of its own
 * (Codex keeps its 2,000), so that a checkout cannot make a scan cost what it likes. Configured
 * paths are the user's choice and have no bound.
 */
export const DEFAULT_MAX_DIRS = 20_000;

/** The scan options every source of one discovery (or watcher) shares. */
export function sharedScanOptions(options: {
  readonly ignore?: readonly string[];
  readonly followSymlinks?: boolean;
  readonly logger?: Logger;
  readonly home?: string;
}): RootsScanOptions {
  return {
    ...(options.ignore === undefined ? {} : { ignore: options.ignore }),
    ...(options.followSymlinks === undefined ? {} : { followSymlinks: options.followSymlinks }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.home === undefined ? {} : { home: options.home }),
  };
}

/**
 * How one root is scanned: the shared options and the agent's limits; for a root of the agent's
 * layout (not a configured path), a folder budget ({@link DEFAULT_MAX_DIRS} unless the agent has
 * one) and the rule that it may not lead to the filesystem root, the home folder or above the
 * folder it sits in.
 */
export function rootScanOptions(root: DiscoveryRoot, shared: RootsScanOptions): RootsScanOptions {
  if (root.configured !== undefined) return { ...shared, ...root.limits };
  return { maxDirs: DEFAULT_MAX_DIRS, ...shared, ...root.limits, layoutRoots: true };
}

/**
 * The skill sources an agent sees from `options.cwd`, lowest precedence first: hand them to
 * `new SkillService({ sources })`. Each source scans its folders for `SKILL.md` files on every
 * `scan()`, so skills added later are found by the next `discoverAndLoad()`.
 *
 * @example
 * const service = new SkillService({ sources: discoverySources({ cwd: process.cwd(), preset: "opencode" }) });
 * await service.discoverAndLoad();
 */
export function discoverySources(options: DiscoveryOptions): SkillSource[] {
  const shared = sharedScanOptions(options);
  return discoveryRoots(options).map((root): SkillSource & { readonly dirs: readonly string[] } => {
    const dirs = [...root.dirs];
    const configured = root.configured;
    const base = rootScanOptions(root, shared);
    const source: SkillSource & { readonly dirs: readonly string[] } = {
      id: root.id,
      ...(root.precedence === undefined ? {} : { precedence: root.precedence }),
      // Known before any scan, so a watcher can start without scanning.
      dirs,
      async scan(ctx: ScanContext, listings?: Listings) {
        const diagnostics: Diagnostic[] = [];
        const skipped: SkippedPath[] = [];
        const files = await scanRoots(dirs, {
          ...base,
          ...(listings === undefined ? {} : { listings }),
          onSkip: (s) => skipped.push(s),
          ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
          onWarning: (d) => diagnostics.push({ ...d, source: root.id }),
          ...(configured === undefined
            ? {}
            : {
                onMissingRoot: (dir: string) =>
                  diagnostics.push({
                    code: "path-not-found",
                    severity: "warning",
                    message: `Skill path not found: ${dir} (configured as ${JSON.stringify(configured)})`,
                    path: dir,
                    source: root.id,
                  }),
              }),
        });
        skipped.sort((a, b) => compareCodeUnits(a.path, b.path) || compareCodeUnits(a.reason, b.reason));
        return {
          entries: files.map((location) => ({ location })),
          dirs: [...dirs],
          diagnostics,
          ...(skipped.length > 0 ? { skipped } : {}),
        };
      },
    };
    SCAN_PLANS.set(source, { dirs, options: base });
    return source;
  });
}

/**
 * What a discovery source scans and how, for the watcher: the same folders under the same
 * rules (loops, ignore globs, depth and folder caps).
 */
export interface ScanPlan {
  readonly dirs: readonly string[];
  readonly options: RootsScanOptions;
}

const SCAN_PLANS = new WeakMap<SkillSource, ScanPlan>();

/** The scan plan of a source made by {@link discoverySources}; `undefined` for any other source. */
export function scanPlanOf(source: SkillSource): ScanPlan | undefined {
  return SCAN_PLANS.get(source);
}

/**
 * `source.scan(ctx)`, with folder listings shared with other scans when the source is one of
 * {@link discoverySources} (see `RootsScanOptions.listings`).
 */
export function scanListed(source: SkillSource, ctx: ScanContext, listings: Listings): Promise<SourceScan> {
  if (!SCAN_PLANS.has(source)) return Promise.resolve(source.scan(ctx));
  const scan = source.scan as (ctx: ScanContext, listings: Listings) => Promise<SourceScan>;
  return scan.call(source, ctx, listings);
}

/**
 * What an agent sees from `options.cwd`: its sources (as {@link discoverySources}) and the load
 * rules it reads SKILL.md files with (pass both to `SkillService`), as measured on the real
 * agents: Claude Code keys a skill by its folder and loads one without a description, without
 * frontmatter or with broken YAML; Codex, Gemini CLI and pi refuse a UTF-8 BOM; Copilot CLI
 * refuses long fields and invalid names; see the package README for every preset.
 *
 * @example
 * const { sources, rules } = agentProfile({ cwd: process.cwd(), preset: "codex" });
 * const service = new SkillService({ sources, ...rules });
 */
export function agentProfile(options: DiscoveryOptions): {
  sources: SkillSource[];
  rules: LoadRules;
  /**
   * What the agent does with two skills of one name, where one registry cannot: Codex lists
   * every copy (`duplicate-listed`), opencode keeps one at random (`nondeterministic`).
   */
  duplicates?: "duplicate-listed" | "nondeterministic";
} {
  const preset = options.preset ?? "default";
  const duplicates = presetDuplicates(preset);
  return {
    sources: discoverySources(options),
    rules: presetRules(preset),
    ...(duplicates === undefined ? {} : { duplicates }),
  };
}
