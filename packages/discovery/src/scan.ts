import { isUtf8 } from "node:buffer";
import { type Dirent, readdirSync, readlinkSync, realpathSync, type Stats, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, parse, resolve, sep } from "node:path";
import {
  abortError,
  compareCodeUnits,
  type Diagnostic,
  errnoOf,
  errorMessage,
  type Logger,
  noopLogger,
  printable,
  SKILL_FILE,
  SkillError,
  type SkippedPath,
} from "@skill/core";
import { compileIgnore, type IgnoreTest } from "./ignore.js";
import { isWithin } from "./paths.js";

export { SKILL_FILE };

/**
 * The crawl reads folders synchronously (about 1.7× faster than callback `readdir` here) and
 * yields to the event loop after this many milliseconds, so timers and I/O keep running.
 */
const SLICE_MS = 8;

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

/** A folder tree crawled without following symlinks: a root, or the target of a followed link. */
interface Tree {
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

interface Link {
  readonly path: string;
  readonly name: string;
  readonly rel: string;
  /** Real path of the folder holding the link (a loop points at it or above it). */
  readonly parentReal: string;
  /** Depth of the link itself below the scan root (its folder's depth + 1). */
  readonly depth: number;
  readonly root: number;
}

/**
 * Finds every `SKILL.md` (exact name) at any depth under `root` and returns the absolute
 * paths, sorted by code unit. Dot-folders are entered; `node_modules` and `.git` are not
 * (see {@link ScanOptions.ignore}). A missing root gives `[]`.
 *
 * Symlinks: a file reachable without passing through a symlink is returned at that path;
 * otherwise at the first path reached, links being followed in sorted order. Folders that
 * cannot be read, dangling links, loops, and a `SKILL.md` that is a folder or a FIFO are
 * logger warnings; the scan goes on.
 *
 * @throws SkillError `ABORTED` when `options.signal` aborts
 * @example
 * const files = await scanSkillFiles(`${os.homedir()}/.claude/skills`);
 */
export async function scanSkillFiles(root: string, options: ScanOptions = {}): Promise<string[]> {
  return scanRoots([resolve(root)], options);
}

/** Scans absolute `roots` together: a file reached from two roots is returned once. */
export async function scanRoots(roots: readonly string[], options: RootsScanOptions = {}): Promise<string[]> {
  const scan = new Scan(options);
  return scan.run(roots);
}

function child(dir: string, name: string): string {
  return dir.endsWith(sep) ? dir + name : dir + sep + name;
}

function byPath(a: { path: string }, b: { path: string }): number {
  return compareCodeUnits(a.path, b.path);
}

function kindOf(entry: Dirent | Stats): string {
  if (entry.isFile()) return "a file";
  if (entry.isDirectory()) return "a folder";
  if (entry.isFIFO()) return "a FIFO";
  if (entry.isSocket()) return "a socket";
  if (entry.isCharacterDevice() || entry.isBlockDevice()) return "a device";
  return "not a regular file";
}

/** A folder limit option: a whole number >= 0, or unlimited when absent. */
function limitOf(value: number | undefined, name: string): number {
  if (value === undefined) return Number.POSITIVE_INFINITY;
  if (typeof value !== "number" || Number.isNaN(value) || value < 0) {
    throw new SkillError("INVALID_FIELD", `Invalid ${name}: expected a number >= 0, found ${String(value)}`, {
      field: name,
    });
  }
  return Math.floor(value);
}

/** The names in `dir` that are not valid UTF-8, as `readdir` decodes them (with U+FFFD). */
function undecodableNames(dir: string): Set<string> {
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

function ignoredReason(name: string): SkipReason {
  return name === "node_modules" ? "node-modules" : "ignored";
}

/** The part of `path` below `base` (which `path` is within). */
function below(base: string, path: string): string {
  return path.slice(base.length + (base.endsWith(sep) ? 0 : 1));
}

function toPosix(path: string): string {
  return sep === "/" ? path : path.split(sep).join("/");
}

class Scan {
  readonly #ignored: IgnoreTest;
  readonly #follow: boolean;
  readonly #logger: Logger;
  readonly #signal: AbortSignal | undefined;
  readonly #onMissingRoot: ((root: string) => void) | undefined;
  readonly #onWarning: ((diagnostic: Diagnostic) => void) | undefined;
  readonly #onDir: ((path: string, real: string) => void) | undefined;
  readonly #maxDepth: number;
  readonly #maxDirs: number;
  readonly #skipDot: boolean;
  readonly #followFiles: boolean;
  readonly #leaf: boolean;
  readonly #enterNodeModules: boolean;
  readonly #minDepth: number;
  readonly #onSkip: ((skipped: SkippedPath) => void) | undefined;
  readonly #listings: Listings | undefined;
  readonly #home: string;
  readonly #layoutRoots: boolean;
  readonly #sharedBudget: boolean;
  /** The real path of the home folder, looked up at the first link that needs it. */
  #homeReal: string | undefined;
  readonly #files: string[] = [];
  /** Real paths of SKILL.md files returned through a link because no tree holds them. */
  readonly #linkedFiles = new Set<string>();
  /** Every tree by its real path: a lookup per ancestor instead of a pass over all trees. */
  readonly #trees = new Map<string, Tree>();
  /** Folders entered per scan root, and whether that root's cap was hit. */
  #dirCounts: number[] = [];
  /** The real path of each scan root (a link may not lead to it or above it). */
  #rootReals: (string | undefined)[] = [];
  #truncated: boolean[] = [];
  #links: Link[] = [];
  #sliceStart = 0;
  #root = "";
  #roots: readonly string[] = [];

  constructor(options: RootsScanOptions) {
    this.#ignored = compileIgnore(options.ignore);
    this.#follow = options.followSymlinks ?? true;
    this.#logger = options.logger ?? noopLogger;
    this.#signal = options.signal;
    this.#onMissingRoot = options.onMissingRoot;
    this.#onWarning = options.onWarning;
    this.#onDir = options.onDir;
    this.#maxDepth = limitOf(options.maxDepth, "maxDepth");
    this.#maxDirs = limitOf(options.maxDirs, "maxDirs");
    this.#skipDot = options.skipDotDirs ?? false;
    this.#followFiles = options.followSymlinkFiles ?? true;
    this.#leaf = options.leafSkills ?? false;
    this.#enterNodeModules = options.enterNodeModules ?? false;
    this.#minDepth = limitOf(options.minDepth ?? 0, "minDepth");
    this.#onSkip = options.onSkip;
    this.#listings = options.listings;
    this.#home = resolve(options.home ?? homedir());
    this.#layoutRoots = options.layoutRoots ?? false;
    this.#sharedBudget = options.sharedBudget ?? false;
  }

  async run(roots: readonly string[]): Promise<string[]> {
    this.#sliceStart = performance.now();
    this.#checkAbort();
    // Every root before any link, and roots that are no symlink first, so a file is returned
    // at a path free of symlinks whenever it has one.
    this.#roots = roots;
    this.#dirCounts = roots.map(() => 0);
    this.#truncated = roots.map(() => false);
    this.#rootReals = roots.map(() => undefined);
    const trees = roots.map((root, i) => this.#rootTree(root, i)).filter((tree) => tree !== undefined);
    const direct = trees.filter((tree) => tree.path === tree.real);
    for (const tree of [...direct, ...trees.filter((tree) => tree.path !== tree.real)]) {
      this.#root = tree.path;
      this.#checkAbort();
      if (!this.#covered(tree.real)) await this.#crawl(tree);
    }
    while (this.#links.length > 0) {
      const batch = this.#links.sort(byPath);
      this.#links = [];
      for (const link of batch) {
        this.#checkAbort();
        if (this.#due()) await this.#yield();
        const tree = this.#followLink(link);
        if (tree) await this.#crawl(tree);
      }
    }
    return this.#files.sort();
  }

  #rootTree(root: string, index: number): Tree | undefined {
    let stats: Stats;
    let real: string;
    try {
      stats = statSync(root);
      real = realpathSync(root);
    } catch (error) {
      const code = errnoOf(error);
      if (code === "ENOENT" || code === "ENOTDIR") {
        if (this.#onMissingRoot) this.#onMissingRoot(root);
        else this.#logger.debug?.(`Skill folder does not exist: ${root}`, { path: root });
      } else {
        this.#warn(
          "root-unreadable",
          `Cannot scan skill folder ${root} (${errorMessage(error)})`,
          root,
          code,
        );
      }
      return undefined;
    }
    if (stats.isFile() && basename(root) === SKILL_FILE) {
      this.#addLinkedFile(root, real);
      return undefined;
    }
    if (!stats.isDirectory()) {
      this.#warn("root-not-a-folder", `Cannot scan ${root}: expected a folder, found ${kindOf(stats)}`, root);
      return undefined;
    }
    const climb = this.#layoutRoots
      ? this.#climb(real, this.#parentReal(root), "the folder it is in")
      : undefined;
    if (climb !== undefined) {
      this.#skip(root, "link-to-ancestor");
      this.#warn(
        "link-to-ancestor",
        `Not scanning skill folder ${root}: it leads to ${real}, ${climb}; name it in the configured paths to scan it`,
        root,
      );
      return undefined;
    }
    this.#rootReals[index] = real;
    this.#onDir?.(root, real);
    return { path: root, real, rel: "", depth: 0, root: index };
  }

  /** Walks one tree without following links (they are queued); never enters earlier trees. */
  async #crawl(tree: Tree): Promise<void> {
    if (!this.#enter(tree.root)) {
      this.#skip(tree.path, "max-dirs");
      return;
    }
    this.#trees.set(tree.real, tree);
    const stack: { dir: string; depth: number }[] = [{ dir: tree.path, depth: tree.depth }];
    for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
      const { dir, depth } = item;
      if (this.#due()) await this.#yield();
      let entries: Dirent[];
      try {
        entries = this.#list(dir);
      } catch (error) {
        this.#unreadable(dir, error);
        continue;
      }
      let undecodable: Set<string> | undefined;
      // A skill folder is a leaf: its SKILL.md (file or link) is all the scan takes from it.
      const leaf = this.#leaf && entries.some((e) => e.name === SKILL_FILE && !e.isDirectory());
      for (const entry of entries) {
        const name = entry.name;
        if (leaf && name !== SKILL_FILE) {
          if (entry.isDirectory() || entry.isSymbolicLink()) this.#skip(child(dir, name), "leaf");
          continue;
        }
        // A name that is not valid UTF-8 reads back with U+FFFD and names no reachable path.
        if (name.includes("\uFFFD")) {
          undecodable ??= undecodableNames(dir);
          if (undecodable.has(name)) {
            this.#warn(
              "folder-name-not-utf8",
              `Skipping ${child(dir, printable(name))}: its name is not valid UTF-8, so its skills cannot be named by path; rename it`,
              child(dir, name),
            );
            continue;
          }
        }
        if (entry.isDirectory()) {
          const path = child(dir, name);
          if (name === SKILL_FILE) this.#notAFile(path, "a folder");
          if (depth + 1 > this.#maxDepth) {
            this.#skip(path, "too-deep");
            continue;
          }
          if (this.#skipDot && name.charCodeAt(0) === 46) {
            this.#skip(path, "dot-folder");
            continue;
          }
          if (
            !this.#entersNodeModules(name) &&
            this.#ignored(name, this.#ignored.usesPaths ? this.#relOf(tree, path) : "")
          ) {
            this.#skip(path, ignoredReason(name));
            continue;
          }
          // An earlier tree may hold this folder (its real path is that tree's root).
          const real = this.#trees.size > 1 || this.#onDir ? this.#realOf(tree, path) : "";
          if (this.#trees.size > 1) {
            const other = this.#trees.get(real);
            if (other !== undefined && other !== tree) continue;
          }
          // Past the budget the rest of this folder is still read: its SKILL.md counts, its
          // folders are passed over (and named).
          if (!this.#enter(tree.root)) {
            this.#skip(path, "max-dirs");
            continue;
          }
          this.#onDir?.(path, real);
          stack.push({ dir: path, depth: depth + 1 });
        } else if (entry.isSymbolicLink()) {
          const path = child(dir, name);
          if (!this.#follow) {
            if (name === SKILL_FILE) this.#skip(path, "symlinked-file");
            this.#logger.debug?.(`Not following symlink ${path} (followSymlinks is false)`, { path });
            continue;
          }
          this.#links.push({
            path,
            name,
            rel: this.#relOf(tree, path),
            parentReal: this.#realOf(tree, dir),
            depth: depth + 1,
            root: tree.root,
          });
        } else if (name === SKILL_FILE) {
          const path = child(dir, name);
          if (depth < this.#minDepth) this.#skip(path, "too-shallow");
          else if (!entry.isFile()) this.#notAFile(path, kindOf(entry));
          else if (this.#linkedFiles.size === 0 || !this.#linkedFiles.has(this.#realOf(tree, path))) {
            this.#files.push(path);
          }
        }
      }
    }
  }

  /** True for a `node_modules` folder the scan enters although `ignore` names it. */
  #entersNodeModules(name: string): boolean {
    return this.#enterNodeModules && name === "node_modules";
  }

  /** The entries of `dir`, from the shared listings when there are some. */
  #list(dir: string): Dirent[] {
    const listings = this.#listings;
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

  /** Counts one folder entered under scan root `index`; false (with one warning) past `maxDirs`. */
  #enter(index: number): boolean {
    const root = this.#sharedBudget ? 0 : index;
    const count = this.#dirCounts[root] ?? 0;
    if (count >= this.#maxDirs) {
      if (!this.#truncated[root]) {
        this.#truncated[root] = true;
        const path = this.#roots[root] ?? "";
        const what = this.#sharedBudget && this.#roots.length > 1 ? `${path} and the other folders` : path;
        this.#warn(
          "scan-truncated",
          `Stopped scanning ${what} after ${this.#maxDirs} folders (maxDirs); skills in the rest are not found`,
          path,
        );
      }
      return false;
    }
    this.#dirCounts[root] = count + 1;
    return true;
  }

  #relOf(tree: Tree, path: string): string {
    const rest = toPosix(below(tree.path, path));
    return tree.rel === "" ? rest : `${tree.rel}/${rest}`;
  }

  #realOf(tree: Tree, path: string): string {
    return path === tree.path ? tree.real : child(tree.real, below(tree.path, path));
  }

  /**
   * True when a tree already entered the real folder `real`: a lookup for each of its
   * ancestors, so thousands of linked trees cost no more than one.
   */
  #covered(real: string): boolean {
    if (this.#trees.size === 0) return false;
    for (let dir = real; ; ) {
      const tree = this.#trees.get(dir);
      if (tree !== undefined && this.#reaches(tree, real)) return true;
      const parent = dirname(dir);
      if (parent === dir) return false;
      dir = parent;
    }
  }

  /** True when `tree` enters `real` (a folder at or below its root): no ignored folder between. */
  #reaches(tree: Tree, real: string): boolean {
    if (real === tree.real) return true;
    let rel = tree.rel;
    for (const name of below(tree.real, real).split(sep)) {
      rel = rel === "" ? name : `${rel}/${name}`;
      if (!this.#entersNodeModules(name) && this.#ignored(name, rel)) return false;
      if (this.#skipDot && name.charCodeAt(0) === 46) return false;
    }
    return true;
  }

  #followLink(link: Link): Tree | undefined {
    let stats: Stats;
    try {
      stats = statSync(link.path);
    } catch (error) {
      this.#brokenLink(link.path, error);
      return undefined;
    }
    if (stats.isDirectory()) {
      if (link.name === SKILL_FILE) this.#notAFile(link.path, "a folder");
      if (link.depth > this.#maxDepth) {
        this.#skip(link.path, "too-deep");
        return undefined;
      }
      if (this.#skipDot && link.name.charCodeAt(0) === 46) {
        this.#skip(link.path, "dot-folder");
        return undefined;
      }
      if (!this.#entersNodeModules(link.name) && this.#ignored(link.name, link.rel)) {
        this.#skip(link.path, ignoredReason(link.name));
        return undefined;
      }
      const real = this.#realpath(link.path);
      if (real === undefined) return undefined;
      const climb = this.#climb(real, this.#rootReals[link.root], "the skill folder it is in");
      if (climb !== undefined) {
        this.#skip(link.path, "link-to-ancestor");
        this.#warn(
          "link-to-ancestor",
          `Not following symlink ${link.path}: it points to ${real}, ${climb}; skills there are not looked for`,
          link.path,
        );
        return undefined;
      }
      if (!this.#covered(real)) {
        this.#onDir?.(link.path, real);
        return { path: link.path, real, rel: link.rel, depth: link.depth, root: link.root };
      }
      if (isWithin(link.parentReal, real)) {
        this.#skip(link.path, "symlink-loop");
        this.#warn(
          "symlink-loop",
          `Skipping symlink loop ${link.path}: it points to ${real}, which holds the link itself`,
          link.path,
          "ELOOP",
        );
      } else {
        this.#logger.debug?.(`Already scanned ${real}, reached again through ${link.path}`, {
          path: link.path,
        });
      }
      return undefined;
    }
    if (link.name !== SKILL_FILE) return undefined;
    if (link.depth - 1 < this.#minDepth) {
      this.#skip(link.path, "too-shallow");
      return undefined;
    }
    if (!this.#followFiles) {
      this.#skip(link.path, "symlinked-file");
      this.#logger.debug?.(`Not following symlinked file ${link.path} (followSymlinkFiles is false)`, {
        path: link.path,
      });
      return undefined;
    }
    if (!stats.isFile()) {
      this.#notAFile(link.path, `a symlink to ${kindOf(stats)}`);
      return undefined;
    }
    const real = this.#realpath(link.path);
    if (real !== undefined) this.#addLinkedFile(link.path, real);
    return undefined;
  }

  /**
   * Why the real folder `real` may not be scanned below `top` (a real path, called `topName` in
   * the reason), or `undefined` when it may: it is the filesystem root, holds the home folder,
   * or is or holds `top`.
   */
  #climb(real: string, top: string | undefined, topName: string): string | undefined {
    if (parse(real).root === real) return "the filesystem root";
    this.#homeReal ??= this.#realOrSelf(this.#home);
    if (real === this.#homeReal) return "the home folder";
    if (isWithin(this.#homeReal, real)) return "a folder holding the home folder";
    if (top !== undefined && isWithin(top, real))
      return real === top ? topName : `a folder holding ${topName}`;
    return undefined;
  }

  /** The real path of the folder holding `path`, or that folder as given when it cannot be resolved. */
  #parentReal(path: string): string {
    return this.#realOrSelf(dirname(path));
  }

  #realOrSelf(path: string): string {
    try {
      return realpathSync(path);
    } catch {
      return path;
    }
  }

  /** Adds a SKILL.md reached through a link unless a tree holds it or another link gave it. */
  #addLinkedFile(path: string, real: string): void {
    if (basename(real) === SKILL_FILE && this.#covered(dirname(real))) return;
    if (this.#linkedFiles.has(real)) return;
    this.#linkedFiles.add(real);
    this.#files.push(path);
  }

  #realpath(path: string): string | undefined {
    try {
      return realpathSync(path);
    } catch (error) {
      this.#brokenLink(path, error);
      return undefined;
    }
  }

  #notAFile(path: string, found: string): void {
    this.#warn("skill-file-not-a-file", `Skipping ${path}: expected a SKILL.md file, found ${found}`, path);
  }

  #unreadable(path: string, error: unknown): void {
    const code = errnoOf(error);
    if (code === "ENOENT" || code === "ENOTDIR") {
      this.#warn("folder-vanished", `Folder ${path} vanished during the skill scan`, path, code);
    } else if (code === "EACCES" || code === "EPERM") {
      this.#warn(
        "folder-unreadable",
        `Cannot read folder ${path} (permission denied); skills inside it are skipped`,
        path,
        code,
      );
    } else {
      this.#warn(
        "folder-unreadable",
        `Cannot read folder ${path} (${errorMessage(error)}); skills inside it are skipped`,
        path,
        code,
      );
    }
  }

  #brokenLink(path: string, error: unknown): void {
    const code = errnoOf(error);
    if (code === "ELOOP") {
      this.#skip(path, "symlink-loop");
      this.#warn("symlink-loop", `Skipping symlink loop ${path}: it resolves back to itself`, path, code);
    } else if (code === "ENOENT" || code === "ENOTDIR") {
      this.#skip(path, "dangling-symlink");
      let target = "";
      try {
        target = ` -> ${readlinkSync(path)}`;
      } catch {
        // The link itself vanished: the message still names it.
      }
      this.#warn(
        "symlink-dangling",
        `Skipping dangling symlink ${path}${target}: its target does not exist`,
        path,
        code,
      );
    } else {
      this.#warn("symlink-unreadable", `Cannot follow symlink ${path} (${errorMessage(error)})`, path, code);
    }
  }

  #skip(path: string, reason: SkipReason): void {
    if (this.#onSkip) this.#onSkip({ path, reason });
  }

  #warn(rule: string, message: string, path: string, errno?: string): void {
    if (this.#onWarning) this.#onWarning({ code: rule, severity: "warning", message, path });
    else this.#logger.warn(message, errno === undefined ? { code: rule, path } : { code: rule, errno, path });
  }

  #due(): boolean {
    return performance.now() - this.#sliceStart >= SLICE_MS;
  }

  async #yield(): Promise<void> {
    await new Promise<void>((resolveTick) => setImmediate(resolveTick));
    this.#checkAbort();
    this.#sliceStart = performance.now();
  }

  #checkAbort(): void {
    if (this.#signal?.aborted) {
      throw abortError(
        this.#signal,
        `Skill scan was aborted${this.#root ? ` in ${this.#root}` : ""}`,
        this.#root ? { path: this.#root } : {},
      );
    }
  }
}
