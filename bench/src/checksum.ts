import { createHash } from "node:crypto";

/** What every approach must find for each skill. */
export interface SkillPair {
  readonly name: string;
  readonly description: string;
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The checksum every approach computes the same way: SHA-256 over the (name, trimmed
 * description) pairs sorted by name, then description, in code-unit order. 16 hex digits.
 */
export function skillChecksum(pairs: Iterable<SkillPair>): string {
  const rows = Array.from(pairs, (p) => [p.name, p.description.trim()] as const);
  rows.sort((a, b) => byCodeUnit(a[0], b[0]) || byCodeUnit(a[1], b[1]));
  const hash = createHash("sha256");
  for (const [name, description] of rows) hash.update(`${name}\u0000${description}\u0001`);
  return hash.digest("hex").slice(0, 16);
}
