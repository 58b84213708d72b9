// The walk behind skillFiles and listSkillFiles: one walker, in either order, that stops at
// the first bound it meets and keeps what it listed before it.
import type { Dir, Dirent, Stats } from "node:fs";
import { lstat, opendir, realpath, stat } from "node:fs/promises";
import { join, sep } from "node:path";
import { SKILL_FILE } from "../spec/constants.js";
import { SkillError } from "../spec/errors.js";
import type { SkillFile } from "../spec/skill-source.js";
import { abortError } from "../util/abort.js";
import { errnoOf } from "../util/errno.js";
import { errorMessage } from "../util/error-text.js";
import { compareCodeUnits, formatBytes } from "../util/text.js";
import { isInside } from "./inside.js";

/** Folders below the skill folder the walk may enter, whatever the options. */
export const MAX_DEPTH = 16;
/** Directory entries the walk may look at, whatever the options. */
export const MAX_ENTRIES = 100_000;
/** Entries read from the system per call: small folders cost one read, huge ones stop early. */
const DIR_BUFFER = 128;

/** The order a walk lists files in (see `ListSkillFilesOptions.order`). */
export type SkillFilesOrder = "sorted" | "shallow-first";
/** The bound that stopped a walk (see `SkillFileList.bound`). */
export type SkillFilesBound = "limit" | "maxBytes" | "depth" | "entries";

/** What a walk is asked to do, checked. */
export interface WalkSettings {
  /** The folder as the caller named it (absolute): messages name paths below it. */
  readonly base: string;
  readonly realRoot: string;
  readonly order: SkillFilesOrder;
  readonly limit: number;
  readonly maxBytes: number;
  readonly hidden: boolean;
  readonly nested: boolean;
  readonly links: boolean;
  readonly maxDepth: number;
  readonly signal: AbortSignal | undefined;
}

/** Why a walk stopped before it looked at everything. */
export interface WalkStop {
  readonly bound: SkillFilesBound;
  readonly error: SkillError;
}

/** What one directory entry turned out to be. */
type Found =
  | { readonly kind: "file"; readonly name: string; readonly stats: Stats; readonly link: boolean }
  | { readonly kind: "folder"; readonly name: string; readonly real: string; readonly link: boolean }
  | { readonly kind: "outside" | "dangling"; readonly name: string };

/** A folder to list: where it really is, its path in the list, and the folders on its way. */
interface Place {
  readonly real: string;
  readonly rel: string;
  readonly depth: number;
  /** Real paths of the folders on the way here, this one included: a link back to one is a loop. */
  readonly chain: readonly string[];
  /** Reached through a folder link that stays inside: every file below is `link: "inside"`. */
  readonly viaLink: boolean;
}

interface Walk extends WalkSettings {
  readonly files: SkillFile[];
  /** Real folder → holds a SKILL.md (so is a skill of its own). */
  readonly skillFolders: Map<string, Promise<boolean>>;
  /** Shallow-first: folders waiting to be listed, in order. */
  readonly queue: Place[];
  bytes: number;
  entries: number;
  /** Nothing more is listed. */
  done: boolean;
  /** The bound that ended the list. */
  stop: WalkStop | undefined;
  /** Shallow-first: the first folder too deep; the walk goes on with the shallower ones. */
  deep: WalkStop | undefined;
}

function throwIfAborted(walk: Walk): void {
  if (walk.signal?.aborted) {
    throw abortError(walk.signal, `Listing the files of ${walk.base} was aborted`, { path: walk.base });
  }
}

function skipped(walk: Walk, name: string): boolean {
  if (name === ".git") return true;
  return !walk.hidden && (name.startsWith(".") || name === "node_modules");
}

/** The error for the skill folder itself; `opened`: the error came from opening it as a folder. */
export function folderError(path: string, error: unknown, opened: boolean): SkillError {
  const code = errnoOf(error);
  // ENOTDIR before the open: a file on the way (`notes.txt/pdf`), so no such folder.
  if (code === "ENOENT" || (code === "ENOTDIR" && !opened)) {
    return new SkillError("NOT_FOUND", `Skill folder not found: ${path}`, { path, cause: error });
  }
  const why = code === "ENOTDIR" ? "expected a folder, found a file" : (code ?? errorMessage(error));
  return new SkillError("READ_ERROR", `Failed to read skill folder: ${path} (${why})`, {
    path,
    cause: error,
  });
}

function stopAt(walk: Walk, bound: SkillFilesBound, message: string, path: string): void {
  walk.stop ??= { bound, error: new SkillError("LIMIT_EXCEEDED", message, { path }) };
  walk.done = true;
}

/** The list is full and `rel` was not looked at: the `limit` ended it. */
function cutAt(walk: Walk, rel: string): void {
  const shown = join(walk.base, rel);
  const message = `Skill folder listing stopped after ${walk.limit} files (limit): ${shown} and what follows it were not looked at`;
  stopAt(walk, "limit", message, shown);
}

/**
 * A folder's entries, counting every entry seen. A subfolder that is unreadable or gone
 * gives undefined; for the skill folder itself (`root`) that is an error. Passing the bound
 * on entries stops the walk (undefined: the folder is not listed in part).
 */
async function readFolder(
  walk: Walk,
  real: string,
  shown: string,
  root = false,
): Promise<Dirent[] | undefined> {
  throwIfAborted(walk);
  let dir: Dir;
  try {
    dir = await opendir(real, { bufferSize: DIR_BUFFER });
  } catch (error) {
    if (root) throw folderError(shown, error, true);
    return undefined;
  }
  const entries: Dirent[] = [];
  try {
    for (let entry = await dir.read(); entry !== null; entry = await dir.read()) {
      if (++walk.entries > MAX_ENTRIES) {
        const message = `Skill folder too large: ${walk.base} has more than ${MAX_ENTRIES} entries to look at (stopped in ${shown})`;
        stopAt(walk, "entries", message, shown);
        return undefined;
      }
      entries.push(entry);
    }
  } catch (error) {
    if (root) throw folderError(shown, error, true);
    return undefined; // the folder went away while it was read
  } finally {
    // Not awaited: nothing depends on it, and a round trip per folder is most of a small walk.
    dir.close().catch(() => {});
  }
  return entries;
}

function holdsSkill(entries: readonly Dirent[]): boolean {
  return entries.some((entry) => entry.name === SKILL_FILE && !entry.isDirectory());
}

/** Whether the real folder `dir` holds a SKILL.md (a link named so counts, whatever its target). */
function isSkillFolder(walk: Walk, dir: string): Promise<boolean> {
  let known = walk.skillFolders.get(dir);
  if (known === undefined) {
    known = lstat(join(dir, SKILL_FILE)).then(
      (stats) => !stats.isDirectory(),
      () => false,
    );
    walk.skillFolders.set(dir, known);
  }
  return known;
}

/** Where a link leads, judged against the skill: inside it, out of it, or nowhere. */
async function followLink(walk: Walk, path: string, name: string): Promise<Found | undefined> {
  let target: string;
  let stats: Stats;
  try {
    target = await realpath(path);
    stats = await stat(target);
  } catch {
    return { kind: "dangling", name };
  }
  if (!isInside(walk.realRoot, target)) return { kind: "outside", name };
  const parts = target === walk.realRoot ? [] : target.slice(walk.realRoot.length + 1).split(sep);
  // Git's own files are never part of a skill, whatever name a link gives them.
  if (parts.includes(".git")) return { kind: "outside", name };
  if (!walk.nested) {
    // A folder on the way to the target (or the target folder itself) that holds a SKILL.md
    // belongs to another skill.
    const folders = stats.isDirectory() ? parts.length : parts.length - 1;
    for (let i = 1; i <= folders; i++) {
      if (await isSkillFolder(walk, join(walk.realRoot, ...parts.slice(0, i)))) {
        return { kind: "outside", name };
      }
    }
  }
  if (stats.isFile()) return { kind: "file", name, stats, link: true };
  if (stats.isDirectory()) return { kind: "folder", name, real: target, link: true };
  return undefined; // a FIFO, socket or device is not a file of a skill
}

async function classify(walk: Walk, real: string, entry: Dirent): Promise<Found | undefined> {
  const path = join(real, entry.name);
  if (entry.isDirectory()) return { kind: "folder", name: entry.name, real: path, link: false };
  if (entry.isSymbolicLink()) return followLink(walk, path, entry.name);
  if (!entry.isFile()) return undefined;
  // lstat, not stat: an entry swapped for a link since it was listed is not followed.
  const stats = await lstat(path).catch(() => undefined);
  return stats?.isFile() ? { kind: "file", name: entry.name, stats, link: false } : undefined;
}

// Folders sort as `name/`: walking each folder in this order lists the files already in
// code-unit order of their whole paths (within one level, for shallow-first), so the walk can
// stop as soon as the list is full.
function sortKey(found: Found): string {
  return found.kind === "folder" ? `${found.name}/` : found.name;
}

function add(walk: Walk, file: SkillFile): void {
  if (walk.bytes + file.size > walk.maxBytes) {
    const shown = join(walk.base, file.path);
    const message = `Skill folder listing stopped after ${formatBytes(walk.bytes)} of files (maxBytes ${formatBytes(walk.maxBytes)}): ${shown} (${formatBytes(file.size)}) and what follows it were not looked at`;
    stopAt(walk, "maxBytes", message, shown);
    return;
  }
  walk.files.push(file);
  walk.bytes += file.size;
  if (walk.files.length >= walk.limit) walk.done = true;
}

/** A folder's entries when it is one to list: readable, and not a nested skill. */
async function enter(walk: Walk, place: Place): Promise<Dirent[] | undefined> {
  const children = await readFolder(walk, place.real, join(walk.base, place.rel));
  if (children === undefined) return undefined; // unreadable, gone, or the walk stopped
  const isSkill = holdsSkill(children);
  if (!walk.skillFolders.has(place.real)) walk.skillFolders.set(place.real, Promise.resolve(isSkill));
  return isSkill && !walk.nested ? undefined : children;
}

/** A subfolder met in a listing: entered now (sorted), or queued for its level (shallow-first). */
async function subfolder(walk: Walk, at: Place, real: string, rel: string, link: boolean): Promise<void> {
  if (at.chain.includes(real) || at.depth + 1 > walk.maxDepth) return;
  const place: Place = {
    real,
    rel,
    depth: at.depth + 1,
    chain: [...at.chain, real],
    viaLink: at.viaLink || link,
  };
  if (place.depth > MAX_DEPTH) {
    const shown = join(walk.base, rel);
    const message = `Skill folder too deep: ${shown} is ${place.depth} folders below ${walk.base}, the limit is ${MAX_DEPTH}`;
    // Shallow-first, every folder still queued is shallower than this one: they are listed.
    if (walk.order === "sorted") stopAt(walk, "depth", message, shown);
    else walk.deep ??= { bound: "depth", error: new SkillError("LIMIT_EXCEEDED", message, { path: shown }) };
    return;
  }
  if (walk.order === "shallow-first") {
    walk.queue.push(place);
    return;
  }
  const children = await enter(walk, place);
  if (children !== undefined) await listFolder(walk, children, place);
}

/** Lists the entries of one folder in code-unit order, until the walk is done. */
async function listFolder(walk: Walk, entries: readonly Dirent[], at: Place): Promise<void> {
  throwIfAborted(walk);
  const visible = entries.filter((entry) => !skipped(walk, entry.name));
  if (walk.done) {
    if (visible.length > 0) cutAt(walk, at.rel);
    return;
  }
  const found = await Promise.all(visible.map((entry) => classify(walk, at.real, entry)));
  const kept = found.filter((f): f is Found => f !== undefined);
  kept.sort((a, b) => compareCodeUnits(sortKey(a), sortKey(b)));
  for (const item of kept) {
    const path = at.rel === "" ? item.name : `${at.rel}/${item.name}`;
    if (walk.done) {
      cutAt(walk, path);
      return;
    }
    if (item.kind === "file") {
      const { size, mode } = item.stats;
      const file: SkillFile = { path, size, executable: (mode & 0o111) !== 0 };
      add(walk, at.viaLink || item.link ? { ...file, link: "inside" } : file);
    } else if (item.kind === "folder") {
      await subfolder(walk, at, item.real, path, item.link);
    } else if (walk.links) {
      add(walk, { path, size: 0, executable: false, link: item.kind });
    }
  }
}

/**
 * Walks the skill folder `settings.realRoot` in the order asked for: the files listed before
 * the first bound met, and that bound (none: every entry within `maxDepth` was looked at).
 *
 * @throws SkillError `NOT_FOUND`/`READ_ERROR` for the folder itself, `ABORTED`
 */
export async function walkFolder(settings: WalkSettings): Promise<{ files: SkillFile[]; stop?: WalkStop }> {
  const walk: Walk = {
    ...settings,
    files: [],
    skillFolders: new Map(),
    queue: [],
    bytes: 0,
    entries: 0,
    done: settings.limit === 0,
    stop: undefined,
    deep: undefined,
  };
  const root: Place = { real: walk.realRoot, rel: "", depth: 0, chain: [walk.realRoot], viaLink: false };
  const entries = await readFolder(walk, root.real, walk.base, true);
  if (entries !== undefined) await listFolder(walk, entries, root);
  // Shallow-first: each folder's subfolders join the queue behind the rest of their level.
  for (let i = 0; i < walk.queue.length; i++) {
    const place = walk.queue[i] as Place;
    if (walk.done) {
      cutAt(walk, place.rel);
      break;
    }
    const children = await enter(walk, place);
    if (children !== undefined) await listFolder(walk, children, place);
  }
  const stop = walk.stop ?? walk.deep;
  return stop === undefined ? { files: walk.files } : { files: walk.files, stop };
}
