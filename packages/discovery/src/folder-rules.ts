import { sep } from "node:path";
import { compileIgnore, type IgnoreTest } from "./ignore.js";
import { limitOf, type ScanOptions, type SkipReason } from "./scan-options.js";
import { below, ignoredReason, type Tree } from "./scan-tree.js";

/** Which folders a scan enters: by depth, a leading dot, and the `ignore` globs. */
export class FolderRules {
  readonly #ignored: IgnoreTest;
  readonly #maxDepth: number;
  readonly #skipDot: boolean;
  readonly #enterNodeModules: boolean;
  /** The `ignore` globs look at paths below the root, not only at names: `rel` is needed. */
  readonly usesPaths: boolean;

  constructor(options: ScanOptions) {
    this.#ignored = compileIgnore(options.ignore);
    this.#maxDepth = limitOf(options.maxDepth, "maxDepth");
    this.#skipDot = options.skipDotDirs ?? false;
    this.#enterNodeModules = options.enterNodeModules ?? false;
    this.usesPaths = this.#ignored.usesPaths;
  }

  /**
   * Why the folder `name`, `depth` folders below the scan root, is not entered (`rel`: its path
   * below the root, `""` when the globs do not look at paths); `undefined` when it is.
   */
  excluded(name: string, depth: number, rel: string): SkipReason | undefined {
    if (depth > this.#maxDepth) return "too-deep";
    if (this.#skipDot && name.charCodeAt(0) === 46) return "dot-folder";
    if (!this.#entersNodeModules(name) && this.#ignored(name, rel)) return ignoredReason(name);
    return undefined;
  }

  /** True when `tree` enters `real` (a folder at or below its root): no ignored folder between. */
  reaches(tree: Tree, real: string): boolean {
    if (real === tree.real) return true;
    let rel = tree.rel;
    for (const name of below(tree.real, real).split(sep)) {
      rel = rel === "" ? name : `${rel}/${name}`;
      if (!this.#entersNodeModules(name) && this.#ignored(name, rel)) return false;
      if (this.#skipDot && name.charCodeAt(0) === 46) return false;
    }
    return true;
  }

  /** True for a `node_modules` folder the scan enters although `ignore` names it. */
  #entersNodeModules(name: string): boolean {
    return this.#enterNodeModules && name === "node_modules";
  }
}
