import type { SkillPair } from "../checksum.js";

/** What a discovery approach hands back; the child turns `pairs` into a checksum after timing. */
export interface LocalOutput {
  readonly found: number;
  /**
   * What was found, for the checksum; a function when reading the pairs is not part of the
   * approach's work (it is called after the clock stops).
   */
  readonly pairs?: readonly SkillPair[] | (() => readonly SkillPair[]);
  /** Files that were found but failed to load. */
  readonly failed?: number;
  /** A time the approach measured itself (e.g. a whole child process), reported instead of the child's clock. */
  readonly wallMs?: number;
  /** The CPU time of that same span, reported with `wallMs` (else the child's CPU time around `run`). */
  readonly cpuMs?: number;
}

/** What a download approach hands back. */
export interface RemoteOutput {
  /** Skills downloaded. */
  readonly found: number;
  /** Files written. */
  readonly files?: number;
  readonly fromCache?: boolean;
  readonly skipped?: number;
  /** A time the approach measured itself (a whole child process), reported instead of the child's clock. */
  readonly wallMs?: number;
}
