import type { SkillMetadata } from "@skill/core";
import {
  type Entry,
  isNameOnly,
  isShortened,
  type Layout,
  planWithin,
  priorities,
  textOf,
} from "./catalog-budget.js";
import { type CatalogOptions, catalogSettings } from "./catalog-options.js";
import { RENDER } from "./catalog-render.js";
import { formatLocation } from "./location.js";

/** What {@link formatCatalog} wrote, and what it had to leave out to stay within the budget. */
export interface CatalogResult {
  /** The catalog; `""` when there is nothing to list. */
  readonly text: string;
  /** Names of the skills listed, in order. */
  readonly included: string[];
  /** Names of the skills left out entirely to stay within the budget (the lowest ranked), in input order. */
  readonly omitted: string[];
  /** Names of listed skills whose description was shortened or left out, in order. */
  readonly truncated: string[];
  /** Names of listed skills shown without their description (a subset of `truncated`), in order. */
  readonly nameOnly: string[];
  /**
   * Names of the skills left out, in input order: those the model may not invoke
   * (`modelInvocable: false`) and those loaded without a description (a load rule such as
   * `requireDescription: false` lets them in; an agent lists them nowhere).
   */
  readonly hidden: string[];
}

/**
 * The skill catalog for a system prompt or a skill tool description, in the order given.
 * An empty list (or a budget too small for even one name) gives `text: ""`: leave the block out.
 * Skills the model may not invoke (`modelInvocable: false`) are left out and named in `hidden`,
 * unless `includeUserOnly`; so are skills without a description, always. A skill whose key is
 * not its frontmatter name (`identity: "folder"`) is named `key (displayName)`.
 *
 * Styles, per the Agent Skills integration guide and opencode:
 * - `xml`: `<available_skills>`, a two-space-indented `<skill>` per skill with four-space
 *   `<name>`, `<description>`, `<location>`; text escaped by {@link escapeXml}.
 * - `markdown`: `## Available Skills`, then `- **name**: description` per skill, each on one line.
 * - `json`: an array with one `{"name","description","location"}` object per line.
 *
 * Budget rule (deterministic; `budget` counts `measure(text)`, by default UTF-16 code units).
 * "Priority" is `pinned` (in that order), then `rank` (highest first, ties by input order), or
 * input order without `rank`. Pinned skills keep their whole description whenever they keep one.
 * 1. Everything fits: done.
 * 2. Else shorten the longest descriptions first: find the largest cap `c >= 24` such that
 *    every description longer than `c` characters, cut to `c` with a trailing `…` (on a word
 *    boundary where there is one near), fits. Shorter descriptions stay whole.
 * 3. Else drop descriptions by priority: keep them (capped as in 2, cap at least 24) on as many
 *    of the highest-priority skills as fit, and list the others by name (and location) only.
 * 4. Else, when not even every name fits, drop whole skills, lowest priority first, and end
 *    the catalog with a line saying how many were left out ({@link omittedNote}): the last line
 *    inside `<available_skills>`, the last markdown line, or the last (string) element of the
 *    JSON array. Pinned skills keep their descriptions, and the highest-priority others keep
 *    theirs within `descriptionShare` of the budget (default none). The line counts against the
 *    budget; shortened descriptions alone add none, and descriptions left out add one
 *    ({@link nameOnlyNote}) only with a `searchHint`.
 * Nothing is ever cut inside an element or a bullet.
 *
 * @example
 * const { text, omitted } = formatCatalog(service.all(agent), { budget: 8000, rank: (s) => uses[s.name] ?? 0 });
 * if (omitted.length > 0) logger.warn(`Not listed for the agent: ${omitted.join(", ")}`);
 *
 * @throws SkillError `INVALID_FIELD` for an unknown `style` or `locationStyle`, a negative or NaN
 * `budget`, a `rank` or `measure` that is not a function, a `measure` that returns no number,
 * a `pinned` that is not a list of names, an empty `searchHint`, a `location` that is not a
 * boolean, or a `descriptionShare` outside 0 to 1
 */
export function formatCatalog(skills: readonly SkillMetadata[], options: CatalogOptions = {}): CatalogResult {
  const settings = catalogSettings(options);
  const listable = (s: SkillMetadata) =>
    s.description !== "" && (options.includeUserOnly === true || s.modelInvocable !== false);
  const visible = skills.filter(listable);
  const hidden = skills.filter((s) => !listable(s)).map((s) => s.name);
  const priority = priorities(visible, settings.rank, settings.pins);
  const entries: Entry[] = visible.map((s, i) => ({
    priority: priority[i] as number,
    name: s.name,
    displayName: typeof s.displayName === "string" && s.displayName !== s.name ? s.displayName : undefined,
    description: s.description,
    chars: Array.from(s.description),
    location: formatLocation(s.location, settings.locationStyle),
  }));
  const layout: Layout = {
    entries,
    render: RENDER[settings.style],
    withLocation: settings.withLocation,
    searchHint: settings.searchHint,
    measure: settings.measure,
    budget: settings.budget,
  };
  // Pinned skills hold the first priorities; a name pinned twice or absent holds none.
  const pinnedCount = visible.filter((v) => settings.pins.has(v.name)).length;
  const plan = planWithin(layout, pinnedCount, settings.share);

  const listed = entries.filter((e) => e.priority < plan.count);
  return {
    text: textOf(layout, plan),
    included: listed.map((e) => e.name),
    omitted: entries.filter((e) => e.priority >= plan.count).map((e) => e.name),
    truncated: listed.filter((e) => isNameOnly(e, plan) || isShortened(e, plan)).map((e) => e.name),
    nameOnly: listed.filter((e) => isNameOnly(e, plan)).map((e) => e.name),
    hidden,
  };
}
