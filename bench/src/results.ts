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
  /** The loopback server's counts, over the runs. */
  readonly more?: Readonly<Record<string, Summary>>;
}

/** Approaches measured side by side, with the samples and facts the group's tables quote. */
export interface Group {
  readonly stats: readonly Stats[];
  /** What the children took themselves (times in ms, counts), over every measured run, by name. */
  readonly samples?: Readonly<Record<string, readonly number[]>>;
  /** What the parent knows of the group: sizes, versions, settings. */
  readonly facts?: Readonly<Record<string, number | string>>;
  /** Why an approach was not measured here (by its id), or the group (not a failure), or why it failed. */
  readonly missing?: Readonly<Record<string, string>>;
  readonly unavailable?: string;
  readonly problem?: string;
}

export interface BenchResults {
  readonly command: string;
  readonly machine: Readonly<Record<"cpu" | "node" | "platform" | "date", string>> &
    Readonly<Record<"cores" | "memGiB" | "loadStart" | "loadEnd", number>>;
  readonly runs: number;
  readonly warmup: number;
  readonly seed: number;
  readonly delayMs: number;
  readonly notes: readonly string[];
  readonly durationMs: number;
  /** By name: `load-XS`, `changes-L`, `startup`, `doctor`, `mcp`, `mcp-http`, `search`, `pulls`, `add`. */
  readonly groups: Readonly<Record<string, Group>>;
}
