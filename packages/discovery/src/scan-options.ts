import type { Dirent } from "node:fs";
import { type Diagnostic, type Logger, SkillError, type SkippedPath } from "@skill/core";

/** Options of {@link scanSkillFiles}. */
export interface ScanOptions {
  /**
   * Folders not to enter, as picomatch globs: a name (`node_modules`), a name glob (`*.cache`),
   * or a path glob below the root (`docs/**`). Default `["node_modules", ".git"]`; a list given
   * here replaces the default. The root itself is always entered.
   */
  readonly ignore?: readonly string[];
  /**
   * Follow symlinked folders and symlinked `SKILL.md` files (default `true`). Each real file
   * is returned once; symlink loops end with a warning.
   */
  readonly followSymlinks?: boolean;
  /**
   * Folders below the root a `SKILL.md` may sit in (default unlimited): `<root>/<name>/SKILL.md`
   * is depth 1, `<root>/SKILL.md` depth 0. Deeper folders are not entered.
   */
  readonly maxDepth?: number;
  /**
   * Folders entered per root, the root included (default unlimited). Past it no other folder of
   * that root is entered (one `scan-truncated` warning); the folders already entered are still
   * read to the end.
   */
  readonly maxDirs?: number;
  /** Do not enter folders whose name starts with `.` (default `false`); the root is always entered. */
  readonly skipDotDirs?: boolean;
  /**
   * Return a `SKILL.md` that is itself a symlink (default `true`). `false` skips it quietly, as
   * Codex does; symlinked folders are still followed when `followSymlinks` is on.
   */
  readonly followSymlinkFiles?: boolean;
  /**
   * A folder holding a `SKILL.md` is one skill: the scan takes that file and does not enter the
   * folder's subfolders or links (reported `leaf`). Copilot CLI and pi do this; with a
   * `SKILL.md` directly in a root, the whole root is one skill. Default `false`.
   */
  readonly leafSkills?: boolean;
  /**
   * The file names that make a folder a skill, the first preferred where a folder holds several
   * (default `["SKILL.md"]`). Amp also reads a lower-case `skill.md`.
   */
  readonly fileNames?: readonly string[];
  /**
   * A `.md` file directly in the root (not in a folder of its own) is a skill too, as pi reads
   * its own roots: the file is the skill, its name falls back to the file's stem and it bundles
   * no files. Default `false`.
   */
  readonly flatFiles?: boolean;
  /**
   * Enter folders named `node_modules` even though `ignore` (by default) names them, as Codex,
   * Copilot CLI and opencode do. Default `false`.
   */
  readonly enterNodeModules?: boolean;
  /**
   * The shallowest folder a `SKILL.md` may sit in (default 0): `1` leaves out a `SKILL.md`
   * directly in a root (reported `too-shallow`), as Claude Code does.
   */
  readonly minDepth?: number;
  /**
   * The home folder (default `os.homedir()`). A symlinked folder whose real target is the home
   * folder or a folder above it is not followed (`link-to-ancestor`), whichever root the link
   * is in: such a link would make the scan read every skill of the user's, or the machine.
   */
  readonly home?: string;
  /** Receives a warning for every folder or file that could not be used. */
  readonly logger?: Logger;
  /**
   * Called for every folder or file the scan passed over on purpose, with the reason (see
   * {@link SkipReason}). A folder stands for everything below it, which was not looked at:
   * nothing extra is read to report it. Called in crawl order; sort if order matters.
   */
  readonly onSkip?: (skipped: SkippedPath) => void;
  /** Rejects the scan with `ABORTED`. */
  readonly signal?: AbortSignal;
}

/**
 * Why a scan passed a path over: `too-deep` (a folder below `maxDepth`), `dot-folder`
 * (`skipDotDirs`), `node-modules` and `ignored` (an `ignore` glob matched the folder; the first
 * when it is named `node_modules`), `max-dirs` (the folder budget was spent), `symlinked-file`
 * (a `SKILL.md` symlink not followed), `dangling-symlink` (a link to nothing) and `symlink-loop`
 * (a link back into a folder the link is in, below the root), `link-to-ancestor` (a link to the
 * filesystem root, the home folder or a folder above it, or the scan root or a folder above
 * it: see {@link ScanOptions.home}), `leaf` (a folder inside a skill folder, with `leafSkills`)
 * and `too-shallow` (a `SKILL.md` above `minDepth`).
 */
export type SkipReason =
  | "too-deep"
  | "dot-folder"
  | "node-modules"
  | "ignored"
  | "max-dirs"
  | "symlinked-file"
  | "dangling-symlink"
  | "symlink-loop"
  | "link-to-ancestor"
  | "leaf"
  | "too-shallow";

/** Internal: several roots in one pass (shared de-duplication) and a hook for missing roots. */
export interface RootsScanOptions extends ScanOptions {
  readonly onMissingRoot?: (root: string) => void;
  /**
   * The roots come from an agent's layout, not from the user: a root whose real path is the
   * filesystem root, the home folder or above it, or the folder the root sits in or above it (a
   * link climbing up, such as `.agents/skills -> ..`) is not scanned (`link-to-ancestor`).
   * Configured paths are scanned wherever they lead.
   */
  readonly layoutRoots?: boolean;
  /** `maxDirs` counts the folders of all roots together instead of each root's (default `false`). */
  readonly sharedBudget?: boolean;
  /** Receives each warning as a diagnostic instead of the logger (a source returns them). */
  readonly onWarning?: (diagnostic: Diagnostic) => void;
  /** Called for every folder entered: its path as reached and its real path (for watchers). */
  readonly onDir?: (path: string, real: string) => void;
  /**
   * Folder listings by path, filled and reused by every scan given the same map: for scans
   * run back to back over a tree that does not change meanwhile (`compareAgents`).
   */
  readonly listings?: Listings;
}

/** Folder listings by path, as `readdirSync(dir, { withFileTypes: true })` gave them (or failed). */
export type Listings = Map<string, Dirent[] | { readonly error: unknown }>;

/** A folder limit option: a whole number >= 0, or unlimited when absent. */
export function limitOf(value: number | undefined, name: string): number {
  if (value === undefined) return Number.POSITIVE_INFINITY;
  if (typeof value !== "number" || Number.isNaN(value) || value < 0) {
    throw new SkillError("INVALID_FIELD", `Invalid ${name}: expected a number >= 0, found ${String(value)}`, {
      field: name,
    });
  }
  return Math.floor(value);
}
