import { lstatSync, realpathSync, statSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { join, resolve, sep } from "node:path";
import { SKILL_FILE } from "../spec/constants.js";
import { describeKind, SkillError } from "../spec/errors.js";
import type { SkillFile } from "../spec/skill-source.js";
import {
  folderError,
  MAX_DEPTH,
  type SkillFilesBound,
  type SkillFilesOrder,
  walkFolder,
} from "./folder-walk.js";
import { isInside, resolveInside } from "./inside.js";
import type { RealPaths } from "./read-inside.js";

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

/**
 * Options of {@link listSkillFiles}: those of {@link skillFiles}, and the order of the list.
 */
export interface ListSkillFilesOptions extends SkillFilesOptions {
  /**
   * `"sorted"` (default): whole paths in code-unit order, as {@link skillFiles} lists them.
   * `"shallow-first"`: the files of the folder itself, then those one folder down, then two,
   * and so on, each level in code-unit order of the whole path. The walk goes level by level,
   * so whatever stops it (`limit`, `maxBytes`, a folder too deep or too many entries) leaves
   * out files only from the level where it stopped and below, never a shallower one: what an
   * audit wants, since padding a skill with a deep or wide tree cannot push its top-level
   * files out of the list.
   */
  readonly order?: SkillFilesOrder;
}

/** What {@link listSkillFiles} found, and whether it looked at everything. */
export interface SkillFileList {
  /** The files listed, in the order asked for: always a prefix of the whole list in that order. */
  readonly files: SkillFile[];
  /**
   * True when every entry of the folder (within `maxDepth`) was looked at. False when a bound
   * stopped the walk with entries not looked at (which may hold no file: a list that is full
   * exactly at `limit` before an empty folder reads as not complete).
   */
  readonly complete: boolean;
  /**
   * Set exactly when `complete` is false: the bound that ended the list — `limit`, `maxBytes`,
   * `depth` (a folder more than 16 levels below) or `entries` (more than 100,000 directory
   * entries looked at). Shallow-first, a folder too deep ends the list only after every
   * shallower file, so another bound met before the last level is the one named.
   */
  readonly bound?: SkillFilesBound;
  /**
   * Set exactly when `complete` is false: a `LIMIT_EXCEEDED` error for people that names the
   * bound and, as `path`, the absolute path where the walk stopped (the folder too deep, the
   * folder whose entries passed the bound, the first file or folder not looked at). The error
   * {@link skillFiles} throws for `depth` and `entries`.
   */
  readonly stopped?: SkillError;
}

/** Default `limit` of {@link skillFiles}: files listed. */
export const DEFAULT_SKILL_FILES_LIMIT = 512;
/** Default `maxBytes` of {@link skillFiles}: bytes listed (16 MiB). */
export const DEFAULT_SKILL_FILES_BYTES = 16 * 1024 * 1024;

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

function checkOrder(value: unknown): SkillFilesOrder {
  if (value === undefined || value === "sorted" || value === "shallow-first") return value ?? "sorted";
  throw new SkillError(
    "INVALID_FIELD",
    `Invalid order: expected "sorted" or "shallow-first", found ${typeof value === "string" ? JSON.stringify(value.slice(0, 40)) : describeKind(value)}`,
    { field: "order" },
  );
}

/**
 * The walk of {@link skillFiles}, in the order asked for, that keeps what it listed when a
 * bound stops it: the files, whether the walk looked at everything, and if not, which bound
 * ended it and where. Nothing is thrown for a bound, the hostile-tree ones included (a folder
 * more than 16 levels below `dir`, more than 100,000 entries): the list holds the files met
 * before, and `stopped` says what happened. `skillFiles` is this walk, sorted, throwing on
 * the hostile-tree bounds.
 *
 * What is listed, how links are judged and what is left out are exactly as in
 * {@link skillFiles}; `order: "shallow-first"` lists level by level, so a bound cuts the
 * deepest files first.
 *
 * @throws SkillError `NOT_FOUND` when `dir` does not exist, `READ_ERROR` when it is not a
 *   folder or cannot be read, `ABORTED` when `signal` aborts, `INVALID_FIELD` for a bad
 *   `limit`, `maxBytes`, `maxDepth` or `order`.
 *
 * @example
 * const { files, complete, bound, stopped } = await listSkillFiles(dir, { order: "shallow-first" });
 * if (!complete) report(`${bound}: ${stopped?.message}`); // "depth: Skill folder too deep: …"
 */
export async function listSkillFiles(
  dir: string,
  options: ListSkillFilesOptions = {},
): Promise<SkillFileList> {
  const limit = checkCount(options.limit, "limit", DEFAULT_SKILL_FILES_LIMIT);
  const maxBytes = checkCount(options.maxBytes, "maxBytes", DEFAULT_SKILL_FILES_BYTES);
  const maxDepth = checkCount(options.maxDepth, "maxDepth", Number.POSITIVE_INFINITY);
  const order = checkOrder(options.order);
  const base = resolve(dir);
  let realRoot: string;
  try {
    realRoot = await realpath(base);
  } catch (error) {
    throw folderError(base, error, false);
  }
  const { files, stop } = await walkFolder({
    base,
    realRoot,
    order,
    limit,
    maxBytes,
    hidden: options.hidden === true,
    nested: options.nested === true,
    links: options.links === true,
    maxDepth,
    signal: options.signal,
  });
  if (stop === undefined) return { files, complete: true };
  return { files, complete: false, bound: stop.bound, stopped: stop.error };
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
 * directory entries (skipped ones count) before the list is complete. To keep what was
 * listed before such a bound, and to list shallow files first, use {@link listSkillFiles}.
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
  const { files, bound, stopped } = await listSkillFiles(dir, { ...options, order: "sorted" });
  if (stopped !== undefined && (bound === "depth" || bound === "entries")) throw stopped;
  return files;
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
  return skillFileAt(dir, path) !== undefined;
}

/** The real paths of the folder and of the file when {@link isSkillFile} holds for `path`, else `undefined`. */
export function skillFileAt(dir: string, path: string): RealPaths | undefined {
  const base = resolve(dir);
  const full = resolveInside(base, path);
  const parts = full.slice(base.length + 1).split(sep);
  if (parts.length > MAX_DEPTH + 1) return undefined;
  if (parts.some((part) => part === ".git" || part.startsWith(".") || part === "node_modules"))
    return undefined;
  // One path's metadata, synchronously: a read judged this way costs no round trip through the
  // thread pool per folder on the way (see readInside).
  let realRoot: string;
  let real: string;
  try {
    realRoot = realpathSync.native(base);
    real = realpathSync.native(full);
    if (!statSync(real).isFile()) return undefined;
  } catch {
    return undefined;
  }
  if (!isInside(realRoot, real) || real === realRoot) return undefined;
  const realParts = real.slice(realRoot.length + 1).split(sep);
  if (realParts.includes(".git")) return undefined;
  const holdsSkill = (folder: string) =>
    !(lstatSync(join(folder, SKILL_FILE), { throwIfNoEntry: false })?.isDirectory() ?? true);
  // Without links on the way, the real folders are the lexical ones: each is looked at once.
  const ways = realRoot === base && real === full ? [parts] : [parts, realParts];
  for (const [w, segments] of ways.entries()) {
    const top = w === 0 ? base : realRoot;
    for (let i = 1; i < segments.length; i++) {
      try {
        if (holdsSkill(join(top, ...segments.slice(0, i)))) return undefined;
      } catch {}
    }
  }
  return { realRoot, real };
}
