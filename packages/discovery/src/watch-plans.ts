import { type FSWatcher, lstatSync, type Stats, watch } from "node:fs";
import { join } from "node:path";
import { type Diagnostic, errnoOf, errorMessage, type Logger, noopLogger } from "@skill/core";
import { ChangeBatch, type SkillChange } from "./change-batch.js";
import { anchorsFor, isPlainFile, scanPlans } from "./plan-scan.js";
import { SKILL_FILE } from "./scan.js";
import type { ScanPlan } from "./sources.js";

/** A running watch; `close()` it to release every file handle. */
export interface SkillWatcher {
  /** Resolves once every root (or its nearest existing parent) is being watched. */
  readonly ready: Promise<void>;
  /** Stops watching; no listener call happens after it resolves. */
  close(): Promise<void>;
}

/** A folder being watched: its real path, and every path it was reached at. */
interface Watched {
  readonly handle: FSWatcher;
  reached: Set<string>;
}

/** The nearest existing folder of missing roots, watched for the next name toward them. */
interface Anchor {
  readonly handle: FSWatcher;
  next: Set<string>;
}

/** One running watch of a list of scan plans. */
interface PlanWatch {
  readonly plans: readonly ScanPlan[];
  readonly logger: Logger;
  readonly debounceMs: number;
  readonly batch: ChangeBatch;
  closed: boolean;
  /** The `SKILL.md` files known to exist, as last reported. */
  known: Set<string>;
  /** Watched folders by real path. */
  readonly watched: Map<string, Watched>;
  /** Missing roots are watched from their nearest existing folder, for the next name toward them. */
  readonly anchors: Map<string, Anchor>;
  /** Folders that could not be watched, each warned about once until it can be. */
  readonly unwatchable: Set<string>;
  /** The scan warnings of the last plan, so that each is logged once, when it appears. */
  warned: Set<string>;
  // Re-plans run one at a time; a request during one runs once more after it.
  planning: Promise<void> | undefined;
  again: boolean;
  planTimer: NodeJS.Timeout | undefined;
}

/**
 * Watches exactly the folders the scanner enters (the same loop, ignore, depth and folder
 * rules), one `fs.watch` per real folder, plus the nearest existing parent of each missing
 * root. A `SKILL.md` event is reported at once; anything else (a folder or link added or
 * removed) re-plans: the roots are scanned again, new folders watched, gone ones released,
 * and the `SKILL.md` files that appeared or vanished with them reported.
 */
export function watchPlans(
  plans: readonly ScanPlan[],
  options: { readonly debounceMs?: number; readonly logger?: Logger },
  listener: (changes: readonly SkillChange[]) => void,
): SkillWatcher {
  const logger = options.logger ?? noopLogger;
  const debounceMs = options.debounceMs ?? 100;
  const w: PlanWatch = {
    plans,
    logger,
    debounceMs,
    batch: new ChangeBatch(listener, debounceMs, logger),
    closed: false,
    known: new Set(),
    watched: new Map(),
    anchors: new Map(),
    unwatchable: new Set(),
    warned: new Set(),
    planning: undefined,
    again: false,
    planTimer: undefined,
  };
  let markClosed: () => void = () => {};
  const closing = new Promise<void>((resolveClosed) => {
    markClosed = resolveClosed;
  });
  const ready = plan(w, false).catch((error: unknown) => {
    logger.warn(`Skill watcher could not start: ${errorMessage(error)}`, {});
  });
  return {
    ready: Promise.race([ready, closing]),
    async close() {
      w.closed = true;
      if (w.planTimer) clearTimeout(w.planTimer);
      w.batch.close();
      markClosed();
      await ready;
      await w.planning?.catch(() => {});
      for (const watched of w.watched.values()) watched.handle.close();
      for (const a of w.anchors.values()) a.handle.close();
      w.watched.clear();
      w.anchors.clear();
    },
  };
}

/** Asks for a re-plan soon; requests until it starts make one. */
function requestPlan(w: PlanWatch): void {
  if (w.closed || w.planTimer) return;
  w.planTimer = setTimeout(
    () => {
      w.planTimer = undefined;
      void replan(w);
    },
    Math.min(w.debounceMs, 50),
  );
}

/** Plans again, reporting what changed; one at a time, once more if asked during one. */
function replan(w: PlanWatch): Promise<void> {
  if (w.planning) {
    w.again = true;
    return w.planning;
  }
  w.planning = (async () => {
    do {
      w.again = false;
      await plan(w, true);
    } while (w.again && !w.closed);
  })()
    .catch((error: unknown) => {
      // A rescan runs from a timer: a rejection here would end the host process.
      w.logger.warn(`Skill watcher could not rescan: ${errorMessage(error)}`, {});
    })
    .finally(() => {
      w.planning = undefined;
    });
  return w.planning;
}

/**
 * Scans the plans and watches what they enter; `report`: also report the `SKILL.md` files that
 * appeared or vanished since the last plan (the first plan reports nothing).
 */
async function plan(w: PlanWatch, report: boolean): Promise<void> {
  const { reachedOf, files, missing, warnings } = await scanPlans(w.plans);
  if (w.closed) return;
  logNewWarnings(w, warnings, report);
  const opened = watchFolders(w, reachedOf, report);
  // A SKILL.md written between the scan and the watch of its new folder is caught here.
  for (const dir of opened) {
    const path = join(dir, SKILL_FILE);
    if (!files.has(path) && isPlainFile(path)) files.add(path);
  }
  const wantedAnchors = anchorsFor(missing);
  watchAnchors(w, wantedAnchors);
  // A folder no longer wanted is warned about again if it comes back and still cannot be watched.
  for (const dir of w.unwatchable)
    if (!reachedOf.has(dir) && !wantedAnchors.has(dir)) w.unwatchable.delete(dir);
  if (report) {
    for (const f of files) if (!w.known.has(f)) w.batch.record("added", f);
    for (const f of w.known) if (!files.has(f)) w.batch.record("removed", f);
  }
  w.known = files;
}

/**
 * Logs the scan warnings the last plan did not have. The first scan's warnings are the
 * sources' own (the service reported them); later ones (a loop, a folder made unreadable)
 * would otherwise go unsaid, since update() does not scan.
 */
function logNewWarnings(w: PlanWatch, warnings: readonly Diagnostic[], report: boolean): void {
  const current = new Set<string>();
  for (const d of warnings) {
    const key = `${d.code}\0${d.path ?? ""}`;
    current.add(key);
    if (report && !w.warned.has(key)) {
      w.logger.warn(d.message, { code: d.code, ...(d.path === undefined ? {} : { path: d.path }) });
    }
  }
  w.warned = current;
}

/**
 * Watches the folders the scan entered and releases the others. Returns the paths of the
 * folders newly watched when `report` is set (their SKILL.md may predate the watch).
 */
function watchFolders(w: PlanWatch, reachedOf: ReadonlyMap<string, Set<string>>, report: boolean): string[] {
  for (const [real, watched] of w.watched) {
    if (reachedOf.has(real)) continue;
    watched.handle.close();
    w.watched.delete(real);
  }
  const opened: string[] = [];
  for (const [real, reached] of reachedOf) {
    const watched = w.watched.get(real);
    if (watched) watched.reached = reached;
    else {
      const handle = openWatch(
        w,
        real,
        (name) => onEvent(w, real, name),
        (gone) => {
          if (w.watched.get(real)?.handle === gone) w.watched.delete(real);
        },
      );
      if (handle) w.watched.set(real, { handle, reached });
      if (handle && report) opened.push(...reached);
    }
  }
  return opened;
}

/** Watches the wanted anchors of missing roots, each for its names, and releases the others. */
function watchAnchors(w: PlanWatch, wanted: ReadonlyMap<string, Set<string>>): void {
  for (const [anchor, a] of w.anchors) {
    if (wanted.has(anchor)) continue;
    a.handle.close();
    w.anchors.delete(anchor);
  }
  for (const [anchor, next] of wanted) {
    const a = w.anchors.get(anchor);
    if (a) a.next = next;
    else {
      const handle = openWatch(
        w,
        anchor,
        (name) => {
          const a = w.anchors.get(anchor);
          if (name === null || a?.next.has(name)) requestPlan(w);
        },
        (gone) => {
          if (w.anchors.get(anchor)?.handle === gone) w.anchors.delete(anchor);
        },
      );
      if (handle) w.anchors.set(anchor, { handle, next });
    }
  }
}

/**
 * Watches `dir`. `onGone` is told when the handle died on an error (Node closes it then), so
 * the next plan, requested here, watches the folder again if it is still wanted.
 */
function openWatch(
  w: PlanWatch,
  dir: string,
  onName: (name: string | null) => void,
  onGone: (handle: FSWatcher) => void,
): FSWatcher | undefined {
  const logger = w.logger;
  let handle: FSWatcher;
  try {
    handle = watch(dir, { persistent: true }, (_event, name) => {
      if (w.closed) return;
      // These run straight from the event loop: whatever goes wrong in one must not end the
      // host process. A rescan settles what the event meant.
      try {
        onName(name === null ? null : String(name));
      } catch (error) {
        logger.warn(`Skill watcher failed on a change in ${dir}: ${errorMessage(error)}`, { path: dir });
        requestPlan(w);
      }
    });
  } catch (error) {
    const code = errnoOf(error);
    if (code !== "ENOENT" && code !== "ENOTDIR" && !w.unwatchable.has(dir)) {
      w.unwatchable.add(dir);
      logger.warn(`Cannot watch ${dir} (${errorMessage(error)}); changes there are not seen`, {
        path: dir,
        ...(code === undefined ? {} : { errno: code }),
      });
    }
    return undefined;
  }
  w.unwatchable.delete(dir);
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
    requestPlan(w);
  });
  return handle;
}

/** An event in the watched folder `real`: a SKILL.md change reported at once, anything else re-planned. */
function onEvent(w: PlanWatch, real: string, name: string | null): void {
  if (name !== SKILL_FILE) {
    // A plain file changing (a script, a reference) moves no skill; anything else may.
    if (name !== null && isPlainFile(join(real, name))) return;
    requestPlan(w);
    return;
  }
  const watched = w.watched.get(real);
  if (!watched) return;
  const file = join(real, SKILL_FILE);
  let stats: Stats | undefined;
  try {
    // lstat: a SKILL.md that links to itself would fail a stat with ELOOP.
    stats = lstatSync(file, { throwIfNoEntry: false });
  } catch (error) {
    // Not ours to look at (the folder was made unreadable): the scanner's rule decides, and
    // the plan logs its warning once.
    w.logger.debug?.(`Cannot look at ${file} (${errorMessage(error)}); rescanning`, { path: file });
    requestPlan(w);
    return;
  }
  if (stats?.isSymbolicLink()) {
    // Whether a symlinked SKILL.md counts (and where it leads) is the scanner's rule: ask it.
    requestPlan(w);
    return;
  }
  for (const dir of watched.reached) {
    const path = join(dir, SKILL_FILE);
    if (stats?.isFile()) {
      w.batch.record(w.known.has(path) ? "changed" : "added", path);
      w.known.add(path);
    } else if (w.known.has(path)) {
      w.batch.record("removed", path);
      w.known.delete(path);
    }
  }
}
