// The one protocol between the parent and a child run: an approach returns a ChildOutput, the
// child prints it as one JSON line (a ChildResult) after its clock stops, with the checksum.
import { createHash } from "node:crypto";

export type SkillPair = { readonly name: string; readonly description: string };

export interface ChildOutput {
  /** Skills found, listed, installed or downloaded. */
  readonly found: number;
  /** A function when reading the pairs is not part of the work: it is called after the clock. */
  readonly pairs?: readonly SkillPair[] | (() => readonly SkillPair[]);
  readonly failed?: number;
  /** A time the approach measured itself, reported instead of the child's clock. */
  readonly wallMs?: number;
  /** A pull answered from its cache without reaching the server. */
  readonly fromCache?: boolean;
  readonly samples?: Readonly<Record<string, number | readonly number[]>>;
}

export interface ChildResult extends Omit<ChildOutput, "pairs" | "wallMs"> {
  /** Wall time of the work alone (module loading excluded). */
  readonly ms: number;
  /** `process.resourceUsage().maxRSS`, in KiB. */
  readonly maxRssKB: number;
  readonly checksum?: string | undefined;
}

/** SHA-256 over the sorted (name, trimmed description) pairs, in code-unit order: 16 hex digits. */
export function skillChecksum(pairs: Iterable<SkillPair>): string {
  const rows = Array.from(pairs, (p) => `${p.name}\u0000${p.description.trim()}\u0001`);
  return createHash("sha256").update(rows.sort().join("")).digest("hex").slice(0, 16);
}
