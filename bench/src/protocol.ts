// The one protocol between the parent and a child run: an approach returns a ChildOutput, the
// child prints it as one JSON line (a ChildResult) after its clock stops.
import type { SkillPair } from "./checksum.js";

/** Timings and counts an approach took itself: a number, or a series of them. */
export type Samples = Readonly<Record<string, number | readonly number[]>>;

/** What an approach hands back to the child that timed it. */
export interface ChildOutput {
  /** Skills found, listed, installed or downloaded. */
  readonly found: number;
  /** What was found, for the checksum; a function when reading the pairs is not part of the work. */
  readonly pairs?: readonly SkillPair[] | (() => readonly SkillPair[]);
  /** Files that were found but failed to load. */
  readonly failed?: number;
  /** A time the approach measured itself (e.g. a whole process), reported instead of the child's clock. */
  readonly wallMs?: number;
  /** The CPU time of that same span (else the child's CPU time around the approach). */
  readonly cpuMs?: number;
  /** A pull answered from its cache without reaching the server. */
  readonly fromCache?: boolean;
  readonly samples?: Samples;
}

/** What one child run reports. */
export interface ChildResult extends Omit<ChildOutput, "pairs" | "wallMs"> {
  /** Wall time of the work, measured inside the child (module loading excluded). */
  readonly ms: number;
  /** The child's peak resident set size, from `process.resourceUsage().maxRSS`, in KiB. */
  readonly maxRssKB: number;
  /** {@link skillChecksum} of the pairs, computed after the clock stopped. */
  readonly checksum?: string;
}
