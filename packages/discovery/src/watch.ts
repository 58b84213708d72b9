import { type FSWatcher, lstatSync, realpathSync, type Stats, statSync, watch } from "node:fs";
import { basename, dirname, join, sep } from "node:path";
import {
  compareCodeUnits,
  type Diagnostic,
  errnoOf,
  errorMessage,
  type LoadReport,
  type Logger,
  noopLogger,
  type SkillService,
  type SkillSource,
} from "@skill/core";
import type { DiscoveryOptions } from "./discovery-options.js";
import { discoveryRoots } from "./roots.js";
import { SKILL_FILE, scanRoots } from "./scan.js";
import { rootScanOptions, type ScanPlan, scanPlanOf, sharedScanOptions } from "./sources.js";

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

/**
 * The nearest folder at or above `dir`. Anything that is not a folder we can look at counts as
 * missing: a file where a folder should be (`ENOTDIR`), a loop, a folder we may not enter.
 */
function nearestExisting(dir: string): string {
  let current = dir;
  for (;;) {
    if (isFolder(current)) return current;
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
      logger.warn(`Skill watch listener threw: ${errorMessage(error)}`, {});
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
    })()
      .catch((error: unknown) => {
        // A rescan runs from a timer: a rejection here would end the host process.
        logger.warn(`Skill watcher could not rescan: ${errorMessage(error)}`, {});
      })
      .finally(() => {
        planning = undefined;
      });
    return planning;
  };

  /** Folders that could not be watched, each warned about once until it can be. */
  const unwatchable = new Set<string>();
  /** The scan warnings of the last plan, so that each is logged once, when it appears. */
  let warned = new Set<string>();
  const plan = async (report: boolean) => {
    const reachedOf = new Map<string, Set<string>>();
    const files = new Set<string>();
    const missing: string[] = [];
    const warnings: Diagnostic[] = [];
    for (const p of plans) {
      const found = await scanRoots(p.dirs, {
        ...p.options,
        onWarning: (d) => warnings.push(d),
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
    // The first scan's warnings are the sources' own (the service reported them); later ones
    // (a loop, a folder made unreadable) would otherwise go unsaid, since update() does not scan.
    const current = new Set<string>();
    for (const d of warnings) {
      const key = `${d.code}\0${d.path ?? ""}`;
      current.add(key);
      if (report && !warned.has(key)) {
        logger.warn(d.message, { code: d.code, ...(d.path === undefined ? {} : { path: d.path }) });
      }
    }
    warned = current;
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
        const handle = open(
          real,
          (name) => onEvent(real, name),
          (gone) => {
            if (watched.get(real)?.handle === gone) watched.delete(real);
          },
        );
        if (handle) watched.set(real, { handle, reached });
        if (handle && report) opened.push(...reached);
      }
    }
    // A SKILL.md written between the scan and the watch of its new folder is caught here.
    for (const dir of opened) {
      const path = join(dir, SKILL_FILE);
      if (!files.has(path) && isPlainFile(path)) files.add(path);
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
        const handle = open(
          anchor,
          (name) => {
            const a = anchors.get(anchor);
            if (name === null || a?.next.has(name)) requestPlan();
          },
          (gone) => {
            if (anchors.get(anchor)?.handle === gone) anchors.delete(anchor);
          },
        );
        if (handle) anchors.set(anchor, { handle, next });
      }
    }
    // A folder no longer wanted is warned about again if it comes back and still cannot be watched.
    for (const dir of unwatchable)
      if (!reachedOf.has(dir) && !wantedAnchors.has(dir)) unwatchable.delete(dir);
    if (report) {
      for (const f of files) if (!known.has(f)) record("added", f);
      for (const f of known) if (!files.has(f)) record("removed", f);
    }
    known = files;
  };

  /**
   * Watches `dir`. `onGone` is told when the handle died on an error (Node closes it then), so
   * the next plan, requested here, watches the folder again if it is still wanted.
   */
  const open = (
    dir: string,
    onName: (name: string | null) => void,
    onGone: (handle: FSWatcher) => void,
  ): FSWatcher | undefined => {
    let handle: FSWatcher;
    try {
      handle = watch(dir, { persistent: true }, (_event, name) => {
        if (closed) return;
        // These run straight from the event loop: whatever goes wrong in one must not end the
        // host process. A rescan settles what the event meant.
        try {
          onName(name === null ? null : String(name));
        } catch (error) {
          logger.warn(`Skill watcher failed on a change in ${dir}: ${errorMessage(error)}`, { path: dir });
          requestPlan();
        }
      });
    } catch (error) {
      const code = errnoOf(error);
      if (code !== "ENOENT" && code !== "ENOTDIR" && !unwatchable.has(dir)) {
        unwatchable.add(dir);
        logger.warn(`Cannot watch ${dir} (${errorMessage(error)}); changes there are not seen`, {
          path: dir,
          ...(code === undefined ? {} : { errno: code }),
        });
      }
      return undefined;
    }
    unwatchable.delete(dir);
    handle.on("error", (error: unknown) => {
      onGone(handle);
      const code = errnoOf(error);
      // A folder that went away is the next plan's business; anything else is worth a word.
      if (code === "ENOENT" || code === "EPERM") {
        logger.debug?.(`Stopped watching ${dir} (${errorMessage(error)})`, { path: dir, errno: code });
      } else {
        logger.warn(`Watching ${dir} failed (${errorMessage(error)}); it is watched again after a rescan`, {
          path: dir,
          ...(code === undefined ? {} : { errno: code }),
        });
      }
      requestPlan();
    });
    return handle;
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
    const file = join(real, SKILL_FILE);
    let stats: Stats | undefined;
    try {
      // lstat: a SKILL.md that links to itself would fail a stat with ELOOP.
      stats = lstatSync(file, { throwIfNoEntry: false });
    } catch (error) {
      // Not ours to look at (the folder was made unreadable): the scanner's rule decides, and
      // the plan logs its warning once.
      logger.debug?.(`Cannot look at ${file} (${errorMessage(error)}); rescanning`, { path: file });
      requestPlan();
      return;
    }
    if (stats?.isSymbolicLink()) {
      // Whether a symlinked SKILL.md counts (and where it leads) is the scanner's rule: ask it.
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
    logger.warn(`Skill watcher could not start: ${errorMessage(error)}`, {});
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

function isFolder(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}
