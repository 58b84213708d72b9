import { realpathSync } from "node:fs";
import { dirname, parse } from "node:path";
import { isWithin } from "./paths.js";

/**
 * Where a scan may not go: a folder that is the filesystem root, or holds the home folder or
 * the folder a scan started from. A link there would make the scan read every skill of the
 * user's, or the machine's.
 */
export class AncestorCheck {
  readonly #home: string;
  /** The real path of the home folder, looked up at the first link that needs it. */
  #homeReal: string | undefined;

  constructor(home: string) {
    this.#home = home;
  }

  /**
   * Why the real folder `real` may not be scanned below `top` (a real path, called `topName` in
   * the reason), or `undefined` when it may: it is the filesystem root, holds the home folder,
   * or is or holds `top`.
   */
  climb(real: string, top: string | undefined, topName: string): string | undefined {
    if (parse(real).root === real) return "the filesystem root";
    this.#homeReal ??= realOrSelf(this.#home);
    if (real === this.#homeReal) return "the home folder";
    if (isWithin(this.#homeReal, real)) return "a folder holding the home folder";
    if (top !== undefined && isWithin(top, real))
      return real === top ? topName : `a folder holding ${topName}`;
    return undefined;
  }
}

/** The real path of the folder holding `path`, or that folder as given when it cannot be resolved. */
export function parentReal(path: string): string {
  return realOrSelf(dirname(path));
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
