import { originRank, type SkillMetadata, type ValidationTarget, validateFrontmatter } from "@skill/core";

/** How often each skill was used, across sessions: the harness keeps the counts. */
export interface SkillUsage {
  count(name: string): number;
}

/** Options of {@link catalogRank}. */
export interface CatalogRankOptions {
  /** Whose name rules decide which names are valid (default `spec`). */
  readonly target?: ValidationTarget;
  /** Use across sessions; a count that is not a finite number (or throws) counts as 0. */
  readonly usage?: SkillUsage;
}

/** Uses counted apart; more than this ties (the rank is a sum of places). */
const MOST_USES = 999_999;
/** One place per origin (0 is the project's; see `originRank`), above every count of uses. */
const ORIGIN_PLACE = MOST_USES + 1;
const VALID_PLACE = ORIGIN_PLACE * 100;

/**
 * The catalog's rank (for `formatCatalog`'s `rank`, pinned skills go before it): skills whose
 * name is valid for `target` (strict validation finds no `name-*` error) first, then by origin
 * (project, configured paths, user, system, remote, MCP), then by `usage`; equal ranks keep
 * the input order, which a registry gives by name. Who keeps a description, and who keeps a
 * place at all, when a catalog does not fit: names an agent would refuse go last.
 *
 * @example
 * formatCatalog(service.all(agent), { budget: 8000, rank: catalogRank({ target: "codex" }) });
 */
export function catalogRank(options: CatalogRankOptions = {}): (skill: SkillMetadata) => number {
  const target = options.target ?? "spec";
  const usage = options.usage;
  return (skill) => {
    // The name alone is judged: the other fields' checks cannot give a `name-*` finding.
    const invalid = validateFrontmatter({ name: skill.frontmatter.name }, skill.location, {
      strict: true,
      target,
    }).some((d) => d.severity === "error" && d.code.startsWith("name-"));
    const origin = Math.max(0, 99 - originRank(skill.origin));
    return (invalid ? 0 : VALID_PLACE) + origin * ORIGIN_PLACE + uses(usage, skill.name);
  };
}

function uses(usage: SkillUsage | undefined, name: string): number {
  if (!usage) return 0;
  let count: unknown;
  try {
    count = usage.count(name);
  } catch {
    return 0;
  }
  return typeof count === "number" && Number.isFinite(count) ? Math.min(MOST_USES, Math.max(0, count)) : 0;
}
