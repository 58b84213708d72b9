// What one run measured: the shape of bench/.trees/results.json, which `--render` reads again.

export interface Summary {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/** One approach's measured runs in a group: one row of a table. */
export interface Stats {
  readonly id: string;
  readonly time: Summary;
  readonly rssMB: Summary;
  /** Skills found: one number when every run agreed, else `min–max`. */
  readonly found: string;
  /** Why a run did not find what it should have; absent when all did. */
  readonly problem?: string;
  /** What the loopback server counted per run (remote approaches), by counter. */
  readonly server?: Readonly<Record<string, Summary>>;
}

/** Approaches measured side by side, with the samples and facts the group's tables quote. */
export interface Group {
  readonly stats: readonly Stats[];
  /** What the children took themselves (times in ms, counts), over every measured run, by name. */
  readonly samples?: Readonly<Record<string, readonly number[]>>;
  /** What the parent knows of the group: sizes, versions, settings. */
  readonly facts?: Readonly<Record<string, number | string>>;
  /** Why an approach of the group was not measured here, by its id. */
  readonly missing?: Readonly<Record<string, string>>;
  /** Why the group was not measured on this machine (e.g. the CLI is not built): not a failure. */
  readonly unavailable?: string;
  /** Why the group failed: the run exits 1. */
  readonly problem?: string;
}

export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memGiB: number;
  readonly node: string;
  readonly platform: string;
  readonly date: string;
  readonly loadStart: number;
  readonly loadEnd: number;
}

export interface BenchResults {
  readonly command: string;
  readonly machine: Machine;
  readonly runs: number;
  readonly warmup: number;
  readonly seed: number;
  readonly delayMs: number;
  readonly notes: readonly string[];
  readonly durationMs: number;
  /** By name: `load-XS`, `changes-L`, `startup`, `doctor`, `mcp`, `search`, `pulls`, `add`, `remote`. */
  readonly groups: Readonly<Record<string, Group>>;
}
