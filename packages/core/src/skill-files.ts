import type { Dir, Dirent, Stats } from "node:fs";
import { lstat, opendir, realpath, stat } from "node:fs/promises";
import { join, resolve, sep } from "node:path";
import { SKILL_FILE } from "./constants.js";
import { describeKind, SkillError } from "./errors.js";
import { isInside, resolveInside } from "./inside.js";
import { compareCodeUnits } from "./text.js";
import type { SkillFile } from "./types.js";

/** Options of {@link skillFiles}. */
export interface SkillFilesOptions {
  /** Most files listed (default 512); the sorted list is cut there. `Infinity`: no cut. */
  readonly limit?: number;
  /**
   * Most bytes listed, summing `size` (default 16 MiB): the sorted list is cut before the
   * first file that would pass it. `Infinity`: no cut.
   */
  readonly maxBytes?: number;
  /** Aborts the walk with `ABORTED`. */
  readonly signal?: AbortSignal;
  /** Also list dot-files, dot-folders and `node_modules` (default false). `.git` never is. */
  readonly hidden?: boolean;
  /** Also enter subfolders that hold their own SKILL.md (default false: they are other skills). */
  readonly nested?: boolean;
  /**
   * Also list the links that are never followed, as `{ size: 0, executable: false }` with
   * `link: "outside"` or `"dangling"` (default false), so that they can be reported.
   */
  readonly links?: boolean;
  /**
   * Levels of subfolders entered (default: all, up to the 16 of the hostile-tree rule); a
   * folder deeper than this is left out without an error. `0` lists the files of `dir` alone.
   */
  readonly maxDepth?: number;
}

/** Default `limit` of {@link skillFiles}: files listed. */
export const DEFAULT_SKILL_FILES_LIMIT = 512;
/** Default `maxBytes` of {@link skillFiles}: bytes listed (16 MiB). */
export const DEFAULT_SKILL_FILES_BYTES = 16 * 1024 * 1024;
/** Folders below the skill folder the walk may enter, whatever the options. */
const MAX_DEPTH = 16;
/** Directory entries the walk may look at, whatever the options. */
const MAX_ENTRIES = 100_000;
/** Entries read from the system per call: small folders cost one read, huge ones stop early. */
const DIR_BUFFER = 128;

/** What one directory entry turned out to be. */
type Found =
  | { readonly kind: "file"; readonly name: string; readonly stats: Stats; readonly link: boolean }
  | { readonly kind: "folder"; readonly name: string; readonly real: string; readonly link: boolean }
  | { readonly kind: "outside" | "dangling"; readonly name: string };

interface Walk {
  readonly base: string;
  readonly realRoot: string;
  readonly limit: number;
  readonly maxBytes: number;
  readonly hidden: boolean;
  readonly nested: boolean;
  readonly links: boolean;
  readonly maxDepth: number;
  readonly signal: AbortSignal | undefined;
  readonly files: SkillFile[];
  /** Real folder → holds a SKILL.md (so is a skill of its own). */
  readonly skillFolders: Map<string, Promise<boolean>>;
  bytes: number;
  entries: number;
  done: boolean;
}

function checkCount(value: unknown, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || Number.isNaN(value) || value < 0) {
    throw new SkillError(
      "INVALID_FIELD",
      `Invalid ${field}: expected a number >= 0 (or Infinity), found ${typeof value === "number" ? String(value) : describeKind(value)}`,
      { field },
    );
  }
  return value;
}

function errno(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message ?? String(error);
}

function throwIfAborted(walk: Walk): void {
  if (walk.signal?.aborted) {
    throw new SkillError("ABORTED", `Listing the files of ${walk.base} was aborted`, {
      path: walk.base,
      cause: walk.signal.reason,
    });
  }
}

function skipped(walk: Walk, name: string): boolean {
  if (name === ".git") return true;
  return !walk.hidden && (name.startsWith(".") || name === "node_modules");
}

/** The error for the skill folder itself; `opened`: the error came from opening it as a folder. */
function folderError(path: string, error: unknown, opened: boolean): SkillError {
  const code = (error as NodeJS.ErrnoException).code;
  // ENOTDIR before the open: a file on the way (`notes.txt/pdf`), so no such folder.
  if (code === "ENOENT" || (code === "ENOTDIR" && !opened)) {
    return new SkillError("NOT_FOUND", `Skill folder not found: ${path}`, { path, cause: error });
  }
  const why = code === "ENOTDIR" ? "expected a folder, found a file" : errno(error);
  return new SkillError("READ_ERROR", `Failed to read skill folder: ${path} (${why})`, {
    path,
    cause: error,
  });
}

/**
 * A folder's entries, counting every entry seen. A subfolder that is unreadable or gone
 * gives undefined; for the skill folder itself (`root`) that is an error.
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
        throw new SkillError(
          "LIMIT_EXCEEDED",
          `Skill folder too large: ${walk.base} has more than ${MAX_ENTRIES} entries to look at (stopped in ${shown})`,
          { path: shown },
        );
      }
      entries.push(entry);
    }
  } catch (error) {
    if (SkillError.isInstance(error)) throw error;
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
// code-unit order of their whole paths, so the walk can stop as soon as the list is full.
function sortKey(found: Found): string {
  return found.kind === "folder" ? `${found.name}/` : found.name;
}

function add(walk: Walk, file: SkillFile): void {
  if (walk.files.length >= walk.limit || walk.bytes + file.size > walk.maxBytes) {
    walk.done = true;
    return;
  }
  walk.files.push(file);
  walk.bytes += file.size;
  if (walk.files.length >= walk.limit) walk.done = true;
}

/**
 * Lists one folder, depth first. `chain` holds the real paths of the folders on the way
 * here, this one included: a link back to any of them is a loop and is not entered.
 */
async function walkFolder(
  walk: Walk,
  entries: readonly Dirent[],
  real: string,
  rel: string,
  depth: number,
  chain: readonly string[],
  viaLink: boolean,
): Promise<void> {
  throwIfAborted(walk);
  const found = await Promise.all(
    entries.filter((entry) => !skipped(walk, entry.name)).map((entry) => classify(walk, real, entry)),
  );
  const kept = found.filter((f): f is Found => f !== undefined);
  kept.sort((a, b) => compareCodeUnits(sortKey(a), sortKey(b)));
  for (const item of kept) {
    if (walk.done) return;
    const path = rel === "" ? item.name : `${rel}/${item.name}`;
    if (item.kind === "file") {
      const { size, mode } = item.stats;
      const file: SkillFile = { path, size, executable: (mode & 0o111) !== 0 };
      add(walk, viaLink || item.link ? { ...file, link: "inside" } : file);
    } else if (item.kind === "folder") {
      if (chain.includes(item.real) || depth + 1 > walk.maxDepth) continue;
      const shown = join(walk.base, path);
      if (depth + 1 > MAX_DEPTH) {
        throw new SkillError(
          "LIMIT_EXCEEDED",
          `Skill folder too deep: ${shown} is ${depth + 1} folders below ${walk.base}, the limit is ${MAX_DEPTH}`,
          { path: shown },
        );
      }
      const children = await readFolder(walk, item.real, shown);
      if (children === undefined) continue; // unreadable or gone: nothing to list
      const isSkill = holdsSkill(children);
      if (!walk.skillFolders.has(item.real)) walk.skillFolders.set(item.real, Promise.resolve(isSkill));
      if (isSkill && !walk.nested) continue;
      await walkFolder(
        walk,
        children,
        item.real,
        path,
        depth + 1,
        [...chain, item.real],
        viaLink || item.link,
      );
    } else if (walk.links) {
      add(walk, { path, size: 0, executable: false, link: item.kind });
    }
  }
}

/**
 * The one walker of a skill folder: the regular files of `dir`, relative, `/`-separated,
 * sorted by code unit ({@link compareCodeUnits}), each with its size and whether it has an
 * execute bit. The root `SKILL.md` is listed (drop it where only bundled files are wanted).
 * File contents are never read.
 *
 * Left out:
 * - dot-files, dot-folders and `node_modules`, unless `hidden: true`; `.git` always;
 * - a subfolder (any depth) holding its own `SKILL.md`, and everything in it: it is a nested
 *   skill (a `SKILL.md` that is a link counts too), unless `nested: true`;
 * - FIFOs, sockets and devices.
 *
 * Symbolic links are judged by their real path. A link whose target (a file, or a folder,
 * which is then entered) stays inside the real path of `dir`, outside any nested skill
 * folder and outside `.git`, is listed like the target, with `link: "inside"`; so is every
 * file found below a folder reached through such a link. A link back to a folder on its own
 * way (`loop -> ..`) is not entered. Any other link is never followed: with `links: true` it
 * is listed as `{ size: 0, executable: false, link: "outside" }` (it leaves the folder, or
 * leads into a nested skill or `.git`) or `link: "dangling"` (no target, or a loop of links).
 *
 * The list is the sorted prefix that fits both `limit` (default 512 files) and `maxBytes`
 * (default 16 MiB, summing `size`): it ends before the first file that would pass either,
 * and the walk stops there. `{ limit: Infinity, maxBytes: Infinity }` lists everything.
 * Whatever the options, a walk refuses a hostile tree with `LIMIT_EXCEEDED` naming the folder:
 * entering a folder more than 16 levels below `dir`, or looking at more than 100,000
 * directory entries (skipped ones count) before the list is complete.
 *
 * A subfolder that cannot be read (permissions) or that vanishes during the walk, and a file
 * that vanishes, are left out without an error.
 *
 * @throws SkillError `NOT_FOUND` when `dir` does not exist, `READ_ERROR` when it is not a
 *   folder or cannot be read, `LIMIT_EXCEEDED` (above), `ABORTED` when `signal` aborts,
 *   `INVALID_FIELD` for a `limit`, `maxBytes` or `maxDepth` that is not a number >= 0.
 *
 * @example
 * await skillFiles("/skills/pdf");
 * // [{ path: "SKILL.md", size: 1042, executable: false },
 * //  { path: "scripts/fill.py", size: 3120, executable: true }]
 */
export async function skillFiles(dir: string, options: SkillFilesOptions = {}): Promise<SkillFile[]> {
  const limit = checkCount(options.limit, "limit", DEFAULT_SKILL_FILES_LIMIT);
  const maxBytes = checkCount(options.maxBytes, "maxBytes", DEFAULT_SKILL_FILES_BYTES);
  const maxDepth = checkCount(options.maxDepth, "maxDepth", Number.POSITIVE_INFINITY);
  const base = resolve(dir);
  let realRoot: string;
  try {
    realRoot = await realpath(base);
  } catch (error) {
    throw folderError(base, error, false);
  }
  const walk: Walk = {
    base,
    realRoot,
    limit,
    maxBytes,
    hidden: options.hidden === true,
    nested: options.nested === true,
    links: options.links === true,
    maxDepth,
    signal: options.signal,
    files: [],
    skillFolders: new Map(),
    bytes: 0,
    entries: 0,
    done: limit === 0,
  };
  const entries = (await readFolder(walk, realRoot, base, true)) as Dirent[];
  if (!walk.done) await walkFolder(walk, entries, realRoot, "", 0, [realRoot], false);
  return walk.files;
}

/**
 * Whether {@link skillFiles} of `dir` (default options) lists `path`, judged for that one path
 * without listing the folder: `path` passes the lexical path rule (`UNSAFE_PATH` otherwise),
 * no segment is a dot-entry or `node_modules`, no folder on the way (lexically, or where a
 * link really leads) holds a nested skill's SKILL.md, its real path stays inside the folder
 * and out of `.git`, and it is a regular file at most 16 folders deep. The count and size
 * cuts of a listing are not applied. What `SkillService.readFile` checks a path with.
 */
export async function isSkillFile(dir: string, path: string): Promise<boolean> {
  const base = resolve(dir);
  const full = resolveInside(base, path);
  const parts = full.slice(base.length + 1).split(sep);
  if (parts.length > MAX_DEPTH + 1) return false;
  if (parts.some((part) => part === ".git" || part.startsWith(".") || part === "node_modules")) return false;
  let realRoot: string;
  let real: string;
  try {
    realRoot = await realpath(base);
    real = await realpath(full);
    if (!(await stat(real)).isFile()) return false;
  } catch {
    return false;
  }
  if (!isInside(realRoot, real) || real === realRoot) return false;
  const realParts = real.slice(realRoot.length + 1).split(sep);
  if (realParts.includes(".git")) return false;
  const holdsSkill = (folder: string) =>
    lstat(join(folder, SKILL_FILE)).then(
      (stats) => !stats.isDirectory(),
      () => false,
    );
  for (const [top, segments] of [
    [base, parts],
    [realRoot, realParts],
  ] as const) {
    for (let i = 1; i < segments.length; i++) {
      if (await holdsSkill(join(top, ...segments.slice(0, i)))) return false;
    }
  }
  return true;
}
