import {
  errorMessage,
  type LoadReport,
  type Logger,
  noopLogger,
  type SkillService,
  type SkillSource,
} from "@skill/core";
import type { SkillChange } from "./change-batch.js";
import type { DiscoveryOptions } from "./discovery-options.js";
import { discoveryRoots } from "./roots.js";
import { rootScanOptions, type ScanPlan, scanPlanOf, sharedScanOptions } from "./sources.js";
import { type SkillWatcher, watchPlans } from "./watch-plans.js";

/** Options of {@link watchSkillFiles}: the discovery options plus the debounce. */
export interface WatchOptions extends DiscoveryOptions {
  /**
   * Quiet time in milliseconds before changes are reported together (default 100); under a
   * steady stream of changes they are reported at least every `10 × debounceMs`.
   */
  readonly debounceMs?: number;
}

/**
 * Watches every root of `options` (as {@link discoverySources} would scan them) and reports
 * added, changed and removed `SKILL.md` files, batched after `debounceMs` of quiet and sorted
 * by path. Roots that do not exist yet are watched from their nearest existing parent, so a
 * new `.agents/skills` is noticed. To keep a `SkillService` current, use {@link watchSkills}.
 *
 * @example
 * const watcher = watchSkillFiles({ cwd }, (changes) => console.log(changes));
 * await watcher.ready;
 * await watcher.close();
 */
export function watchSkillFiles(
  options: WatchOptions,
  listener: (changes: readonly SkillChange[]) => void,
): SkillWatcher {
  const logger = options.logger ?? noopLogger;
  const shared = sharedScanOptions(options);
  const plans = discoveryRoots({ ...options, logger }).map(
    (root): ScanPlan => ({ dirs: root.dirs, options: rootScanOptions(root, shared) }),
  );
  return watchPlans(plans, options, listener);
}

/** Options of {@link watchSkills}. */
export interface ServiceWatchOptions {
  /** Quiet time in milliseconds before changes are applied together (default 100). */
  readonly debounceMs?: number;
  /** Folder globs not to watch (default `["node_modules", ".git"]`). */
  readonly ignore?: readonly string[];
  /** Follow symlinked folders (default `true`). */
  readonly followSymlinks?: boolean;
  /**
   * Receives what goes wrong while watching, each once when it appears: scan warnings (a symlink
   * loop, a folder made unreadable), folders that cannot be watched, a failed update. Nothing a
   * watched tree holds makes the watcher throw.
   */
  readonly logger?: Logger;
  /** Called after each batch was applied with `service.update`. */
  readonly onChange?: (changes: readonly SkillChange[], report: LoadReport) => void;
}

/**
 * What to watch for each source: a discovery source's own plan (its folders, limits and scan
 * rules); for any other source, the folders it reports, scanned with the default rules.
 */
async function plansOf(sources: readonly SkillSource[], options: ServiceWatchOptions): Promise<ScanPlan[]> {
  const shared = sharedScanOptions(options);
  return Promise.all(
    sources.map(async (source): Promise<ScanPlan> => {
      const plan = scanPlanOf(source);
      if (plan) return plan;
      const known = (source as { dirs?: unknown }).dirs;
      let dirs: string[] = [];
      if (Array.isArray(known)) dirs = known.filter((d): d is string => typeof d === "string");
      else {
        try {
          dirs = [...(await source.scan({})).dirs];
        } catch {
          dirs = [];
        }
      }
      return { dirs, options: shared };
    }),
  );
}

/**
 * Keeps `service` current: watches the folders of `sources` (the ones the service loads from)
 * and applies every batch of changed `SKILL.md` files with `service.update`, which re-reads
 * only those files and publishes `skill.changed`. Call `service.discoverAndLoad()` first.
 *
 * @example
 * const sources = discoverySources({ cwd });
 * const service = new SkillService({ sources, bus });
 * await service.discoverAndLoad();
 * const watcher = watchSkills(service, sources);
 * await watcher.ready;
 */
export function watchSkills(
  service: SkillService,
  sources: readonly SkillSource[],
  options: ServiceWatchOptions = {},
): SkillWatcher {
  const logger = options.logger ?? noopLogger;
  let inner: SkillWatcher | undefined;
  let closed = false;
  let queue = Promise.resolve();
  const apply = (changes: readonly SkillChange[]) => {
    // Batches apply in order: an update never overtakes the one before it.
    queue = queue.then(async () => {
      if (closed) return;
      let report: LoadReport;
      try {
        report = await service.update(changes.map((c) => c.path));
      } catch (error) {
        logger.warn(`Skill update failed: ${errorMessage(error)}`, {});
        return;
      }
      if (closed) return;
      try {
        options.onChange?.(changes, report);
      } catch (error) {
        logger.warn(`Skill watch onChange threw: ${errorMessage(error)}`, {});
      }
    });
  };
  const started = plansOf(sources, options).then(
    (plans) => {
      if (closed) return undefined;
      inner = watchPlans(plans, options, apply);
      return inner;
    },
    (error: unknown) => {
      logger.warn(`Skill watcher could not start: ${errorMessage(error)}`, {});
      return undefined;
    },
  );
  return {
    ready: started.then((w) => w?.ready),
    async close() {
      closed = true;
      const w = await started;
      await w?.close();
      await queue;
    },
  };
}
