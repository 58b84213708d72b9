/** The kinds of origin, in the order a catalog ranks them (project first). */
export const ORIGIN_KINDS = ["project", "config", "global", "system", "remote", "mcp", "builtin"] as const;

/** A known origin kind. */
export type OriginKind = (typeof ORIGIN_KINDS)[number];

/**
 * The kind of an origin (`project:/repo/.agents` → `project`, `mcp:github` → `mcp`,
 * `builtin` → `builtin`); `undefined` for an id of no known kind.
 *
 * @example
 * originKind(skill.origin) === "mcp"; // arrived over MCP
 */
export function originKind(origin: string | undefined): OriginKind | undefined {
  if (origin === undefined) return undefined;
  const colon = origin.indexOf(":");
  const kind = colon === -1 ? origin : origin.slice(0, colon);
  return (ORIGIN_KINDS as readonly string[]).includes(kind) ? (kind as OriginKind) : undefined;
}

/** The label of an origin: what follows `<kind>:` (the whole id when it has no known kind). */
export function originLabel(origin: string): string {
  const kind = originKind(origin);
  return kind === undefined || origin === kind ? origin : origin.slice(kind.length + 1);
}

/**
 * Where an origin ranks in a catalog: 0 for `project`, then `config`, `global`, `system`,
 * `remote`, and `mcp`/`builtin` last; an unknown kind ranks with `config` (paths a harness
 * passed itself).
 */
export function originRank(origin: string | undefined): number {
  const kind = originKind(origin);
  if (kind === undefined) return 1;
  return kind === "builtin" ? ORIGIN_KINDS.indexOf("mcp") : ORIGIN_KINDS.indexOf(kind);
}

/** Whether a skill of this origin came from elsewhere (a remote pack, an MCP server). */
export function isNonLocal(origin: string | undefined): boolean {
  const kind = originKind(origin);
  return kind === "remote" || kind === "mcp";
}
