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
  /** One number when every run agreed, else `min–max`. */
  readonly found: string;
  readonly problem?: string;
  /** The loopback server's counts. */
  readonly more?: Readonly<Record<string, Summary>>;
}

export interface Group {
  readonly stats: readonly Stats[];
  /** What the children took themselves (times in ms, counts), over every measured run. */
  readonly samples?: Readonly<Record<string, readonly number[]>>;
  /** What the parent knows of the group: sizes, versions, settings. */
  readonly facts?: Readonly<Record<string, number | string>>;
  /** Why an approach (by id) or the whole group was not measured: not a failure, unlike `problem`. */
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
  readonly durationMs: number;
  /** By name: `load-XS`, `changes-L`, `startup`, `doctor`, `mcp`, `search`, `pulls`, `add`. */
  readonly groups: Readonly<Record<string, Group>>;
}
