// What one run measured: the shape of bench/.trees/results.json, which `--render` reads again.

export type Summary = Readonly<Record<"median" | "min" | "max", number>>;
/** How a run was made: its warm-up and measured rounds, the trees' seed, the loopback delay. */
export type Rounds = Readonly<Record<"warmup" | "runs" | "seed" | "delayMs", number>>;

/** One approach's measured runs in a group: one row of a table. */
export interface Stats extends Readonly<Record<"time" | "rssMB", Summary>> {
  readonly id: string;
  /** One number when every run agreed, else `min–max`. */
  readonly found: string;
  readonly problem?: string | undefined;
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
  readonly problem?: string | undefined;
}

export interface BenchResults extends Rounds {
  readonly command: string;
  readonly machine: Readonly<Record<"cpu" | "node" | "platform" | "date", string>> &
    Readonly<Record<"cores" | "memGiB" | "loadStart" | "loadEnd", number>>;
  readonly durationMs: number;
  /** By name: `load-XS`, `changes-L`, `startup`, `doctor`, `mcp`, `search`, `pulls`, `add`. */
  readonly groups: Readonly<Record<string, Group>>;
}
