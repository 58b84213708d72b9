import { type Dirent, realpathSync, type Stats, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, resolve } from "node:path";
import { errnoOf, errorMessage, noopLogger, printable, SKILL_FILE } from "@skill/core";
import { AncestorCheck, parentReal } from "./ancestor-check.js";
import { FolderBudget } from "./folder-budget.js";
import { FolderRules } from "./folder-rules.js";
import { isWithin } from "./paths.js";
import { ScanClock } from "./scan-clock.js";
import { type Listings, limitOf, type RootsScanOptions, type ScanOptions } from "./scan-options.js";
import { ScanReport } from "./scan-report.js";
import {
  byPath,
  child,
  kindOf,
  type Link,
  listFolder,
  realOf,
  relOf,
  type Tree,
  undecodableNames,
} from "./scan-tree.js";

export { SKILL_FILE };

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

class Scan {
  readonly #rules: FolderRules;
  readonly #follow: boolean;
  readonly #report: ScanReport;
  readonly #clock: ScanClock;
  readonly #onMissingRoot: ((root: string) => void) | undefined;
  readonly #onDir: ((path: string, real: string) => void) | undefined;
  readonly #maxDirs: number;
  readonly #followFiles: boolean;
  readonly #leaf: boolean;
  /** `fileNames`, in order of preference. */
  readonly #names: readonly string[];
  readonly #flat: boolean;
  readonly #minDepth: number;
  readonly #listings: Listings | undefined;
  readonly #ancestors: AncestorCheck;
  readonly #layoutRoots: boolean;
  readonly #sharedBudget: boolean;
  readonly #files: string[] = [];
  /** Real paths of SKILL.md files returned through a link because no tree holds them. */
  readonly #linkedFiles = new Set<string>();
  /** Every tree by its real path: a lookup per ancestor instead of a pass over all trees. */
  readonly #trees = new Map<string, Tree>();
  /** Folders entered per scan root: `maxDirs`. */
  #budget: FolderBudget;
  /** The real path of each scan root (a link may not lead to it or above it). */
  #rootReals: (string | undefined)[] = [];
  #links: Link[] = [];

  constructor(options: RootsScanOptions) {
    this.#rules = new FolderRules(options);
    this.#follow = options.followSymlinks ?? true;
    this.#report = new ScanReport(options.logger ?? noopLogger, options.onWarning, options.onSkip);
    this.#clock = new ScanClock(options.signal);
    this.#onMissingRoot = options.onMissingRoot;
    this.#onDir = options.onDir;
    this.#maxDirs = limitOf(options.maxDirs, "maxDirs");
    this.#followFiles = options.followSymlinkFiles ?? true;
    this.#leaf = options.leafSkills ?? false;
    this.#names = options.fileNames?.length ? options.fileNames : [SKILL_FILE];
    this.#flat = options.flatFiles ?? false;
    this.#minDepth = limitOf(options.minDepth ?? 0, "minDepth");
    this.#listings = options.listings;
    this.#ancestors = new AncestorCheck(resolve(options.home ?? homedir()));
    this.#layoutRoots = options.layoutRoots ?? false;
    this.#sharedBudget = options.sharedBudget ?? false;
    this.#budget = new FolderBudget([], this.#maxDirs, this.#sharedBudget, this.#report);
  }

  async run(roots: readonly string[]): Promise<string[]> {
    this.#clock.check();
    // Every root before any link, and roots that are no symlink first, so a file is returned
    // at a path free of symlinks whenever it has one.
    this.#budget = new FolderBudget(roots, this.#maxDirs, this.#sharedBudget, this.#report);
    this.#rootReals = roots.map(() => undefined);
    const trees = roots.map((root, i) => this.#rootTree(root, i)).filter((tree) => tree !== undefined);
    const direct = trees.filter((tree) => tree.path === tree.real);
    for (const tree of [...direct, ...trees.filter((tree) => tree.path !== tree.real)]) {
      this.#clock.root = tree.path;
      this.#clock.check();
      if (!this.#covered(tree.real)) await this.#crawl(tree);
    }
    while (this.#links.length > 0) {
      const batch = this.#links.sort(byPath);
      this.#links = [];
      for (const link of batch) {
        this.#clock.check();
        if (this.#clock.due()) await this.#clock.pause();
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
        else this.#report.logger.debug?.(`Skill folder does not exist: ${root}`, { path: root });
      } else {
        this.#report.warn(
          "root-unreadable",
          `Cannot scan skill folder ${root} (${errorMessage(error)})`,
          root,
          code,
        );
      }
      return undefined;
    }
    if (stats.isFile() && this.#names.includes(basename(root))) {
      this.#addLinkedFile(root, real);
      return undefined;
    }
    if (!stats.isDirectory()) {
      this.#report.warn(
        "root-not-a-folder",
        `Cannot scan ${root}: expected a folder, found ${kindOf(stats)}`,
        root,
      );
      return undefined;
    }
    const climb = this.#layoutRoots
      ? this.#ancestors.climb(real, parentReal(root), "the folder it is in")
      : undefined;
    if (climb !== undefined) {
      this.#report.skip(root, "link-to-ancestor");
      this.#report.warn(
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
    if (!this.#budget.enter(tree.root)) {
      this.#report.skip(tree.path, "max-dirs");
      return;
    }
    this.#trees.set(tree.real, tree);
    const stack: { dir: string; depth: number }[] = [{ dir: tree.path, depth: tree.depth }];
    for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
      if (this.#clock.due()) await this.#clock.pause();
      this.#readFolder(tree, item.dir, item.depth, stack);
    }
  }

  /** Takes what one folder of `tree` holds: its SKILL.md, its folders onto `stack`, its links queued. */
  #readFolder(tree: Tree, dir: string, depth: number, stack: { dir: string; depth: number }[]): void {
    let entries: Dirent[];
    try {
      entries = listFolder(dir, this.#listings);
    } catch (error) {
      this.#report.unreadable(dir, error);
      return;
    }
    let undecodable: Set<string> | undefined;
    // A skill folder is a leaf: its SKILL.md (file or link) is all the scan takes from it.
    const skillFile = this.#skillFileIn(entries);
    const leaf = this.#leaf && entries.some((e) => e.name === skillFile && !e.isDirectory());
    for (const entry of entries) {
      const name = entry.name;
      if (leaf && name !== skillFile) {
        if (entry.isDirectory() || entry.isSymbolicLink()) this.#report.skip(child(dir, name), "leaf");
        continue;
      }
      // A name that is not valid UTF-8 reads back with U+FFFD and names no reachable path.
      if (name.includes("\uFFFD")) {
        undecodable ??= undecodableNames(dir);
        if (undecodable.has(name)) {
          this.#report.warn(
            "folder-name-not-utf8",
            `Skipping ${child(dir, printable(name))}: its name is not valid UTF-8, so its skills cannot be named by path; rename it`,
            child(dir, name),
          );
          continue;
        }
      }
      if (entry.isDirectory()) {
        const path = child(dir, name);
        if (name === skillFile) this.#report.notAFile(path, "a folder");
        const excluded = this.#rules.excluded(
          name,
          depth + 1,
          this.#rules.usesPaths ? relOf(tree, path) : "",
        );
        if (excluded !== undefined) {
          this.#report.skip(path, excluded);
          continue;
        }
        // An earlier tree may hold this folder (its real path is that tree's root).
        const real = this.#trees.size > 1 || this.#onDir ? realOf(tree, path) : "";
        if (this.#trees.size > 1) {
          const other = this.#trees.get(real);
          if (other !== undefined && other !== tree) continue;
        }
        // Past the budget the rest of this folder is still read: its SKILL.md counts, its
        // folders are passed over (and named).
        if (!this.#budget.enter(tree.root)) {
          this.#report.skip(path, "max-dirs");
          continue;
        }
        this.#onDir?.(path, real);
        stack.push({ dir: path, depth: depth + 1 });
      } else if (entry.isSymbolicLink()) {
        const path = child(dir, name);
        if (!this.#follow) {
          if (name === skillFile) this.#report.skip(path, "symlinked-file");
          this.#report.logger.debug?.(`Not following symlink ${path} (followSymlinks is false)`, { path });
          continue;
        }
        this.#links.push({
          path,
          name,
          rel: relOf(tree, path),
          parentReal: realOf(tree, dir),
          depth: depth + 1,
          root: tree.root,
        });
      } else if (name === skillFile || (depth === 0 && this.#isFlat(name))) {
        const path = child(dir, name);
        if (depth < this.#minDepth) this.#report.skip(path, "too-shallow");
        else if (!entry.isFile()) this.#report.notAFile(path, kindOf(entry));
        else if (this.#linkedFiles.size === 0 || !this.#linkedFiles.has(realOf(tree, path))) {
          this.#files.push(path);
        }
      }
    }
  }

  /**
   * True when a tree already entered the real folder `real`: a lookup for each of its
   * ancestors, so thousands of linked trees cost no more than one.
   */
  #covered(real: string): boolean {
    if (this.#trees.size === 0) return false;
    for (let dir = real; ; ) {
      const tree = this.#trees.get(dir);
      if (tree !== undefined && this.#rules.reaches(tree, real)) return true;
      const parent = dirname(dir);
      if (parent === dir) return false;
      dir = parent;
    }
  }

  #followLink(link: Link): Tree | undefined {
    let stats: Stats;
    try {
      stats = statSync(link.path);
    } catch (error) {
      this.#report.brokenLink(link.path, error);
      return undefined;
    }
    if (stats.isDirectory()) {
      if (this.#names.includes(link.name)) this.#report.notAFile(link.path, "a folder");
      const excluded = this.#rules.excluded(link.name, link.depth, link.rel);
      if (excluded !== undefined) {
        this.#report.skip(link.path, excluded);
        return undefined;
      }
      const real = this.#realpath(link.path);
      if (real === undefined) return undefined;
      const climb = this.#ancestors.climb(real, this.#rootReals[link.root], "the skill folder it is in");
      if (climb !== undefined) {
        this.#report.skip(link.path, "link-to-ancestor");
        this.#report.warn(
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
        this.#report.skip(link.path, "symlink-loop");
        this.#report.warn(
          "symlink-loop",
          `Skipping symlink loop ${link.path}: it points to ${real}, which holds the link itself`,
          link.path,
          "ELOOP",
        );
      } else {
        this.#report.logger.debug?.(`Already scanned ${real}, reached again through ${link.path}`, {
          path: link.path,
        });
      }
      return undefined;
    }
    if (!this.#names.includes(link.name) && !(link.depth === 1 && this.#isFlat(link.name))) return undefined;
    if (link.depth - 1 < this.#minDepth) {
      this.#report.skip(link.path, "too-shallow");
      return undefined;
    }
    if (!this.#followFiles) {
      this.#report.skip(link.path, "symlinked-file");
      this.#report.logger.debug?.(`Not following symlinked file ${link.path} (followSymlinkFiles is false)`, {
        path: link.path,
      });
      return undefined;
    }
    if (!stats.isFile()) {
      this.#report.notAFile(link.path, `a symlink to ${kindOf(stats)}`);
      return undefined;
    }
    const real = this.#realpath(link.path);
    if (real !== undefined) this.#addLinkedFile(link.path, real);
    return undefined;
  }

  /** Adds a SKILL.md reached through a link unless a tree holds it or another link gave it. */
  #addLinkedFile(path: string, real: string): void {
    if (this.#names.includes(basename(real)) && this.#covered(dirname(real))) return;
    if (this.#linkedFiles.has(real)) return;
    this.#linkedFiles.add(real);
    this.#files.push(path);
  }

  /** A `.md` file other than a skill file, taken directly in a root under `flatFiles`. */
  #isFlat(name: string): boolean {
    return this.#flat && name.endsWith(".md") && !this.#names.includes(name);
  }

  /** The name of the skill file among a folder's `entries`: the first of `fileNames` there. */
  #skillFileIn(entries: readonly Dirent[]): string {
    if (this.#names.length === 1) return this.#names[0] as string;
    return this.#names.find((n) => entries.some((e) => e.name === n)) ?? (this.#names[0] as string);
  }

  #realpath(path: string): string | undefined {
    try {
      return realpathSync(path);
    } catch (error) {
      this.#report.brokenLink(path, error);
      return undefined;
    }
  }
}
