import { type FSWatcher, lstatSync, realpathSync, statSync, watch } from "node:fs";
import { basename, dirname, join, sep } from "node:path";
import {
  compareCodeUnits,
  type LoadReport,
  type Logger,
  noopLogger,
  type SkillService,
  type SkillSource,
} from "@skill/core";
import { type RootsScanOptions, SKILL_FILE, scanRoots } from "./scan.js";
import { type DiscoveryOptions, discoveryRoots, type ScanPlan, scanPlanOf } from "./sources.js";

/** What happened to one `SKILL.md`. */
export interface SkillChange {
  readonly type: "added" | "changed" | "removed";
  /** Absolute path of the SKILL.md, as reached under its root. */
  readonly path: string;
}

/** A running watch; `close()` it to release every file handle. */
export interface SkillWatcher {
  /** Resolves once every root (or its nearest existing parent) is being watched. */
  readonly ready: Promise<void>;
  /** Stops watching; no listener call happens after it resolves. */
  close(): Promise<void>;
}

/** Options of {@link watchSkillFiles}: the discovery options plus the debounce. */
export interface WatchOptions extends DiscoveryOptions {
  /**
   * Quiet time in milliseconds before changes are reported together (default 100); under a
   * steady stream of changes they are reported at least every `10 × debounceMs`.
   */
  readonly debounceMs?: number;
}

/** Changes are reported at the latest this many debounce periods after the first one. */
const MAX_WAIT_FACTOR = 10;

/** Merges a new event into the one pending for the same file. `undefined`: nothing happened. */
function merge(
  previous: SkillChange["type"] | undefined,
  next: SkillChange["type"],
): SkillChange["type"] | undefined {
  if (previous === undefined) return next;
  if (previous === "added") return next === "removed" ? undefined : "added";
  if (previous === "removed") return next === "removed" ? "removed" : "changed";
  return next === "removed" ? "removed" : "changed";
}

function nearestExisting(dir: string): string {
  let current = dir;
  for (;;) {
    if (statSync(current, { throwIfNoEntry: false })?.isDirectory()) return current;
    const parent = dirname(current);
    if (parent === current) return current;
    current = parent;
  }
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
    (root): ScanPlan => ({ dirs: root.dirs, options: { ...shared, ...root.limits } }),
  );
  return watchPlans(plans, options, listener);
}

function sharedScanOptions(options: {
  readonly ignore?: readonly string[];
  readonly followSymlinks?: boolean;
}): RootsScanOptions {
  return {
    ...(options.ignore === undefined ? {} : { ignore: options.ignore }),
    ...(options.followSymlinks === undefined ? {} : { followSymlinks: options.followSymlinks }),
  };
}

/** Options of {@link watchSkills}. */
export interface ServiceWatchOptions {
  /** Quiet time in milliseconds before changes are applied together (default 100). */
  readonly debounceMs?: number;
  /** Folder globs not to watch (default `["node_modules", ".git"]`). */
  readonly ignore?: readonly string[];
  /** Follow symlinked folders (default `true`). */
  readonly followSymlinks?: boolean;
  /** Receives watcher errors and a failed update. */
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
      try {
        const report = await service.update(changes.map((c) => c.path));
        if (!closed) options.onChange?.(changes, report);
      } catch (error) {
        logger.warn(`Skill update failed: ${error instanceof Error ? error.message : String(error)}`, {});
      }
    });
  };
  const started = plansOf(sources, options).then((plans) => {
    if (closed) return undefined;
    inner = watchPlans(plans, options, apply);
    return inner;
  });
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

/** A folder being watched: its real path, and every path it was reached at. */
interface Watched {
  readonly handle: FSWatcher;
  reached: Set<string>;
}

/**
 * Watches exactly the folders the scanner enters (the same loop, ignore, depth and folder
 * rules), one `fs.watch` per real folder, plus the nearest existing parent of each missing
 * root. A `SKILL.md` event is reported at once; anything else (a folder or link added or
 * removed) re-plans: the roots are scanned again, new folders watched, gone ones released,
 * and the `SKILL.md` files that appeared or vanished with them reported.
 */
function watchPlans(
  plans: readonly ScanPlan[],
  options: Pick<WatchOptions, "debounceMs" | "logger">,
  listener: (changes: readonly SkillChange[]) => void,
): SkillWatcher {
  const logger = options.logger ?? noopLogger;
  const debounceMs = options.debounceMs ?? 100;
  let pending = new Map<string, SkillChange["type"]>();
  let timer: NodeJS.Timeout | undefined;
  let firstPendingAt = 0;
  let closed = false;
  let known = new Set<string>();
  const watched = new Map<string, Watched>();
  /** Missing roots are watched from their nearest existing folder, for the next name toward them. */
  const anchors = new Map<string, { handle: FSWatcher; next: Set<string> }>();

  const flush = () => {
    timer = undefined;
    if (closed || pending.size === 0) return;
    const batch = [...pending].sort(([a], [b]) => compareCodeUnits(a, b));
    pending = new Map();
    try {
      listener(batch.map(([path, type]) => ({ type, path })));
    } catch (error) {
      logger.warn(
        `Skill watch listener threw: ${error instanceof Error ? error.message : String(error)}`,
        {},
      );
    }
  };
  const record = (type: SkillChange["type"], path: string) => {
    if (closed) return;
    if (pending.size === 0) firstPendingAt = Date.now();
    const next = merge(pending.get(path), type);
    if (next === undefined) pending.delete(path);
    else pending.set(path, next);
    if (timer) clearTimeout(timer);
    // A steady stream of writes must not postpone the report forever.
    const latest = firstPendingAt + MAX_WAIT_FACTOR * debounceMs - Date.now();
    timer = setTimeout(flush, Math.max(0, Math.min(debounceMs, latest)));
  };

  // Re-plans run one at a time; a request during one runs once more after it.
  let planning: Promise<void> | undefined;
  let again = false;
  let planTimer: NodeJS.Timeout | undefined;
  const requestPlan = () => {
    if (closed || planTimer) return;
    planTimer = setTimeout(
      () => {
        planTimer = undefined;
        void replan();
      },
      Math.min(debounceMs, 50),
    );
  };
  const replan = async (): Promise<void> => {
    if (planning) {
      again = true;
      return planning;
    }
    planning = (async () => {
      do {
        again = false;
        await plan(true);
      } while (again && !closed);
    })().finally(() => {
      planning = undefined;
    });
    return planning;
  };

  const plan = async (report: boolean) => {
    const reachedOf = new Map<string, Set<string>>();
    const files = new Set<string>();
    const missing: string[] = [];
    for (const p of plans) {
      const found = await scanRoots(p.dirs, {
        ...p.options,
        onWarning: () => {},
        onMissingRoot: (root) => missing.push(root),
        onDir: (path, real) => {
          const set = reachedOf.get(real);
          if (set) set.add(path);
          else reachedOf.set(real, new Set([path]));
        },
      });
      for (const f of found) files.add(f);
      // A root that is a SKILL.md itself is watched through its folder.
      for (const root of p.dirs) {
        if (basename(root) !== SKILL_FILE || !files.has(root)) continue;
        const folder = dirname(root);
        const real = realFolder(folder);
        if (real === undefined) continue;
        const set = reachedOf.get(real);
        if (set) set.add(folder);
        else reachedOf.set(real, new Set([folder]));
      }
    }
    if (closed) return;
    for (const [real, w] of watched) {
      if (reachedOf.has(real)) continue;
      w.handle.close();
      watched.delete(real);
    }
    const opened: string[] = [];
    for (const [real, reached] of reachedOf) {
      const w = watched.get(real);
      if (w) w.reached = reached;
      else {
        const handle = open(real, (name) => onEvent(real, name));
        if (handle) watched.set(real, { handle, reached });
        if (handle && report) opened.push(...reached);
      }
    }
    // A SKILL.md written between the scan and the watch of its new folder is caught here.
    for (const dir of opened) {
      const path = join(dir, SKILL_FILE);
      if (!files.has(path) && !isSymlinkPath(path) && statSync(path, { throwIfNoEntry: false })?.isFile()) {
        files.add(path);
      }
    }
    const wantedAnchors = new Map<string, Set<string>>();
    for (const root of missing) {
      const anchor = nearestExisting(root);
      const next = root.slice(anchor.length + (anchor.endsWith(sep) ? 0 : 1)).split(sep)[0] ?? "";
      const set = wantedAnchors.get(anchor);
      if (set) set.add(next);
      else wantedAnchors.set(anchor, new Set([next]));
    }
    for (const [anchor, a] of anchors) {
      if (wantedAnchors.has(anchor)) continue;
      a.handle.close();
      anchors.delete(anchor);
    }
    for (const [anchor, next] of wantedAnchors) {
      const a = anchors.get(anchor);
      if (a) a.next = next;
      else {
        const handle = open(anchor, (name) => {
          const current = anchors.get(anchor);
          if (name === null || current?.next.has(name)) requestPlan();
        });
        if (handle) anchors.set(anchor, { handle, next });
      }
    }
    if (report) {
      for (const f of files) if (!known.has(f)) record("added", f);
      for (const f of known) if (!files.has(f)) record("removed", f);
    }
    known = files;
  };

  const open = (dir: string, onName: (name: string | null) => void): FSWatcher | undefined => {
    try {
      const handle = watch(dir, { persistent: true }, (_event, name) => {
        if (!closed) onName(name === null ? null : String(name));
      });
      handle.on("error", () => {
        // The folder went away (or cannot be watched any more): the next plan settles it.
        requestPlan();
      });
      return handle;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") {
        logger.warn(
          `Cannot watch ${dir} (${error instanceof Error ? error.message : String(error)}); changes there are not seen`,
          { path: dir, ...(code === undefined ? {} : { errno: code }) },
        );
      }
      return undefined;
    }
  };

  const onEvent = (real: string, name: string | null) => {
    if (name !== SKILL_FILE) {
      // A plain file changing (a script, a reference) moves no skill; anything else may.
      if (name !== null && isPlainFile(join(real, name))) return;
      requestPlan();
      return;
    }
    const w = watched.get(real);
    if (!w) return;
    const stats = statSync(join(real, SKILL_FILE), { throwIfNoEntry: false });
    const linked = stats !== undefined && isSymlinkPath(join(real, SKILL_FILE));
    if (linked) {
      // Whether a symlinked SKILL.md counts is the scanner's rule: ask it.
      requestPlan();
      return;
    }
    for (const dir of w.reached) {
      const path = join(dir, SKILL_FILE);
      if (stats?.isFile()) {
        record(known.has(path) ? "changed" : "added", path);
        known.add(path);
      } else if (known.has(path)) {
        record("removed", path);
        known.delete(path);
      }
    }
  };

  let markClosed: () => void = () => {};
  const closing = new Promise<void>((resolveClosed) => {
    markClosed = resolveClosed;
  });
  const ready = plan(false).catch((error: unknown) => {
    logger.warn(
      `Skill watcher could not start: ${error instanceof Error ? error.message : String(error)}`,
      {},
    );
  });
  return {
    ready: Promise.race([ready, closing]),
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      if (planTimer) clearTimeout(planTimer);
      timer = undefined;
      pending.clear();
      markClosed();
      await ready;
      await planning?.catch(() => {});
      for (const w of watched.values()) w.handle.close();
      for (const a of anchors.values()) a.handle.close();
      watched.clear();
      anchors.clear();
    },
  };
}

function realFolder(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function isPlainFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

function isSymlinkPath(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
