import type { ScanReport } from "./scan-report.js";

/** The folders a scan may still enter, per root (or shared by all): `maxDirs`. */
export class FolderBudget {
  readonly #roots: readonly string[];
  readonly #maxDirs: number;
  readonly #shared: boolean;
  readonly #report: ScanReport;
  /** Folders entered per scan root. */
  readonly #counts: number[];
  /** Whether that root's cap was hit (and said so). */
  readonly #truncated: boolean[];

  constructor(roots: readonly string[], maxDirs: number, shared: boolean, report: ScanReport) {
    this.#roots = roots;
    this.#maxDirs = maxDirs;
    this.#shared = shared;
    this.#report = report;
    this.#counts = roots.map(() => 0);
    this.#truncated = roots.map(() => false);
  }

  /** Counts one folder entered under scan root `index`; false (with one warning) past `maxDirs`. */
  enter(index: number): boolean {
    const root = this.#shared ? 0 : index;
    const count = this.#counts[root] ?? 0;
    if (count >= this.#maxDirs) {
      if (!this.#truncated[root]) {
        this.#truncated[root] = true;
        const path = this.#roots[root] ?? "";
        const what = this.#shared && this.#roots.length > 1 ? `${path} and the other folders` : path;
        this.#report.warn(
          "scan-truncated",
          `Stopped scanning ${what} after ${this.#maxDirs} folders (maxDirs); skills in the rest are not found`,
          path,
        );
      }
      return false;
    }
    this.#counts[root] = count + 1;
    return true;
  }
}
