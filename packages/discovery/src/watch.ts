import type { Stats } from "node:fs";
import { statSync } from "node:fs";
import { basename, dirname } from "node:path";
import type { LoadReport, Logger, SkillService, SkillSource } from "@skill/core";
import type { FSWatcher } from "chokidar";
import { compileIgnore } from "./ignore.js";
import { isWithin, posixRelative } from "./paths.js";
import { SKILL_FILE } from "./scan.js";
import { type DiscoveryOptions, discoveryRoots } from "./sources.js";

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

const NO_LOGGER: Logger = { warn() {} };

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
  const logger = options.logger ?? NO_LOGGER;
  const roots = [...new Set(discoveryRoots({ ...options, logger }).flatMap((root) => root.dirs))];
  return watchRoots(roots, options, listener);
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

/** The folders a source looks in: discovery sources say so; any other source is scanned once. */
async function rootsOf(sources: readonly SkillSource[]): Promise<string[]> {
  const dirs = await Promise.all(
    sources.map(async (source) => {
      const known = (source as { dirs?: unknown }).dirs;
      if (Array.isArray(known)) return known.filter((d): d is string => typeof d === "string");
      try {
        return [...(await source.scan({})).dirs];
      } catch {
        return [];
      }
    }),
  );
  return [...new Set(dirs.flat())];
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
  const logger = options.logger ?? NO_LOGGER;
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
  const started = rootsOf(sources).then((roots) => {
    if (closed) return undefined;
    inner = watchRoots(roots, options, apply);
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

function watchRoots(
  roots: readonly string[],
  options: Pick<WatchOptions, "debounceMs" | "ignore" | "followSymlinks" | "logger">,
  listener: (changes: readonly SkillChange[]) => void,
): SkillWatcher {
  const logger = options.logger ?? NO_LOGGER;
  const debounceMs = options.debounceMs ?? 100;
  const ignored = compileIgnore(options.ignore);

  // Watch each root from its nearest existing folder; drop anchors inside other anchors.
  const anchors = [...new Set(roots.map(nearestExisting))].sort();
  const watched = anchors.filter((a, i) => !anchors.slice(0, i).some((b) => a !== b && isWithin(a, b)));

  const isIgnored = (path: string, stats?: Stats): boolean => {
    let inside = false;
    for (const root of roots) {
      if (isWithin(root, path)) return false; // on the way to a root
      if (!isWithin(path, root)) continue;
      inside = true;
      const name = basename(path);
      if (stats?.isFile()) {
        if (name !== SKILL_FILE) return true;
      } else if (path !== root && ignored(name, posixRelative(root, path))) {
        return true;
      }
    }
    return !inside;
  };

  let pending = new Map<string, SkillChange["type"]>();
  let timer: NodeJS.Timeout | undefined;
  let firstPendingAt = 0;
  let closed = false;

  const flush = () => {
    timer = undefined;
    if (closed || pending.size === 0) return;
    const batch = [...pending].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
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
    if (closed || basename(path) !== SKILL_FILE) return;
    if (!roots.some((root) => isWithin(path, root))) return;
    if (pending.size === 0) firstPendingAt = Date.now();
    const next = merge(pending.get(path), type);
    if (next === undefined) pending.delete(path);
    else pending.set(path, next);
    if (timer) clearTimeout(timer);
    // A steady stream of writes must not postpone the report forever.
    const latest = firstPendingAt + MAX_WAIT_FACTOR * debounceMs - Date.now();
    timer = setTimeout(flush, Math.max(0, Math.min(debounceMs, latest)));
  };

  let markClosed: () => void = () => {};
  const closing = new Promise<void>((resolveClosed) => {
    markClosed = resolveClosed;
  });

  // chokidar loads on first watch: a harness that only scans never pays for it.
  const started: Promise<FSWatcher | undefined> = import("chokidar").then(({ watch }) => {
    if (closed) return undefined;
    const watcher = watch(watched, {
      ignoreInitial: true,
      followSymlinks: options.followSymlinks ?? true,
      ignored: isIgnored,
    });
    watcher.on("add", (path) => record("added", path));
    watcher.on("change", (path) => record("changed", path));
    watcher.on("unlink", (path) => record("removed", path));
    watcher.on("error", (error) => {
      const message = error instanceof Error ? error.message : String(error);
      logger.warn(`Skill watcher error: ${message}`, {});
    });
    return watcher;
  });

  const ready = started.then(
    (watcher) =>
      watcher ? new Promise<void>((resolveReady) => watcher.once("ready", () => resolveReady())) : undefined,
    (error: unknown) => {
      logger.warn(
        `Skill watcher could not start: ${error instanceof Error ? error.message : String(error)}`,
        {},
      );
    },
  );

  return {
    ready: Promise.race([ready, closing]),
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      pending.clear();
      markClosed();
      const watcher = await started.catch(() => undefined);
      await watcher?.close();
    },
  };
}
