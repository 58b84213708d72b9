import { isUtf8 } from "node:buffer";
import { type Dirent, readdirSync, type Stats } from "node:fs";
import { sep } from "node:path";
import { compareCodeUnits } from "@skill/core";
import type { Listings, SkipReason } from "./scan-options.js";

/** A folder tree crawled without following symlinks: a root, or the target of a followed link. */
export interface Tree {
  /** The folder as reached; paths returned below it are built from it. */
  readonly path: string;
  /** Its real path. Trees never overlap: a folder inside an earlier tree is not entered again. */
  readonly real: string;
  /** `path` below the scan root, `/`-separated, for path globs (`""` for a root). */
  readonly rel: string;
  /** Folders between the scan root and `path` (0 for a root). */
  readonly depth: number;
  /** Index of the scan root it was reached from (folder caps count per root). */
  readonly root: number;
}

export interface Link {
  readonly path: string;
  readonly name: string;
  readonly rel: string;
  /** Real path of the folder holding the link (a loop points at it or above it). */
  readonly parentReal: string;
  /** Depth of the link itself below the scan root (its folder's depth + 1). */
  readonly depth: number;
  readonly root: number;
}

export function child(dir: string, name: string): string {
  return dir.endsWith(sep) ? dir + name : dir + sep + name;
}

export function byPath(a: { path: string }, b: { path: string }): number {
  return compareCodeUnits(a.path, b.path);
}

export function kindOf(entry: Dirent | Stats): string {
  if (entry.isFile()) return "a file";
  if (entry.isDirectory()) return "a folder";
  if (entry.isFIFO()) return "a FIFO";
  if (entry.isSocket()) return "a socket";
  if (entry.isCharacterDevice() || entry.isBlockDevice()) return "a device";
  return "not a regular file";
}

/** The names in `dir` that are not valid UTF-8, as `readdir` decodes them (with U+FFFD). */
export function undecodableNames(dir: string): Set<string> {
  const names = new Set<string>();
  try {
    for (const raw of readdirSync(dir, { encoding: "buffer" })) {
      if (!isUtf8(raw)) names.add(raw.toString("utf8"));
    }
  } catch {
    // The folder went away meanwhile: nothing to name.
  }
  return names;
}

export function ignoredReason(name: string): SkipReason {
  return name === "node_modules" ? "node-modules" : "ignored";
}

/** The part of `path` below `base` (which `path` is within). */
export function below(base: string, path: string): string {
  return path.slice(base.length + (base.endsWith(sep) ? 0 : 1));
}

export function toPosix(path: string): string {
  return sep === "/" ? path : path.split(sep).join("/");
}

/** `path` (in `tree`) below the scan root, `/`-separated: what path globs match. */
export function relOf(tree: Tree, path: string): string {
  const rest = toPosix(below(tree.path, path));
  return tree.rel === "" ? rest : `${tree.rel}/${rest}`;
}

/** The real path of `path` (in `tree`), from the tree's own real path: no system call. */
export function realOf(tree: Tree, path: string): string {
  return path === tree.path ? tree.real : child(tree.real, below(tree.path, path));
}

/** The entries of `dir`, from the shared listings when there are some. */
export function listFolder(dir: string, listings: Listings | undefined): Dirent[] {
  if (listings === undefined) return readdirSync(dir, { withFileTypes: true });
  let listed = listings.get(dir);
  if (listed === undefined) {
    try {
      listed = readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      listed = { error };
    }
    listings.set(dir, listed);
  }
  if (!Array.isArray(listed)) throw listed.error;
  return listed;
}
