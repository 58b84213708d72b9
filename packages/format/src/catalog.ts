import { SkillError, type SkillMetadata } from "@skill/core";
import { skillBullet, skillElement } from "./elements.js";
import { escapeXml } from "./escape.js";
import { checkLocationStyle, formatLocation, type LocationStyle } from "./location.js";

/** The layout of a catalog: see {@link formatCatalog}. */
export type CatalogStyle = "xml" | "markdown" | "json";

/** Options of {@link formatCatalog}. */
export interface CatalogOptions {
  /** `xml` (default), `markdown` or `json`. */
  readonly style?: CatalogStyle;
  /** `path` (default): locations as given; `file-url`: absolute paths as `file://` URLs. */
  readonly locationStyle?: LocationStyle;
  /** Largest size of `text`, in the units of `measure` (default: UTF-16 code units, `text.length`). Default: no limit. */
  readonly budget?: number;
  /**
   * Who matters most under a budget: higher first (use counts, recency…). It decides which
   * skills keep their descriptions and, when not every name fits, which stay listed; equal
   * ranks go by input order. Default: input order. The output order is always the input order.
   */
  readonly rank?: (skill: SkillMetadata) => number;
  /** Size of a text in the budget's units, e.g. a tokenizer's count. Default: `text.length`. */
  readonly measure?: (text: string) => number;
  /** Keep skills with `modelInvocable: false` (`disable-model-invocation: true`). Default `false`: they are left out and reported in `hidden`. */
  readonly includeUserOnly?: boolean;
  /**
   * Names that keep their full description before any other skill keeps one (never
   * shortened), and stay listed before any other; in this order when not all fit. A name
   * that is not in the list (or is hidden) is ignored.
   */
  readonly pinned?: readonly string[];
  /** Write each skill's `<location>` (JSON: `location`). Default `true`; `false` for a harness that loads skills by name. */
  readonly location?: boolean;
  /**
   * The name of a tool that searches the skills (`skill_search`). Given, the catalog's last
   * line points the model at it whenever skills were left out or listed without their
   * description ({@link omittedNote}, {@link nameOnlyNote}). Default: no tool is named.
   */
  readonly searchHint?: string;
  /**
   * When not even every name fits: the share of the budget (0 to 1) that descriptions of the
   * highest-priority skills may take before names fill the rest. Pinned skills keep theirs
   * regardless. Default `0`: names only.
   */
  readonly descriptionShare?: number;
}

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

/** A shortened description keeps at least this many characters (`…` included); below that it is dropped. */
export const MIN_DESCRIPTION_LENGTH = 24;

const ELLIPSIS = "…";
const WHITESPACE = /\s/;

interface Entry {
  /** Position in the priority order: 0 matters most; pinned skills come first. */
  readonly priority: number;
  readonly name: string;
  /** The frontmatter name beside a key that is not it (`identity: "folder"`). */
  readonly displayName: string | undefined;
  readonly description: string;
  /** The description's code points, so a cut never splits a surrogate pair. */
  readonly chars: readonly string[];
  readonly location: string;
}

/**
 * Which skills a rendering lists: the `count` that matter most, the `described` that matter
 * most of them with descriptions, the first `full` of those (pinned skills) whole and the
 * others of at most `cap` characters.
 */
interface Plan {
  readonly count: number;
  readonly described: number;
  readonly full: number;
  readonly cap: number;
}

interface View {
  readonly name: string;
  readonly displayName: string | undefined;
  readonly description: string | undefined;
  readonly location: string | undefined;
}

const RENDER: Readonly<Record<CatalogStyle, (views: readonly View[], note: string | undefined) => string>> = {
  xml: (views, note) =>
    [
      "<available_skills>",
      ...views.map((v) => skillElement("  ", label(v), v.description, v.location)),
      ...(note === undefined ? [] : [`  ${escapeXml(note)}`]),
      "</available_skills>",
    ].join("\n"),
  markdown: (views, note) =>
    [
      "## Available Skills",
      ...views.map((v) => skillBullet(label(v), v.description)),
      ...(note === undefined ? [] : [note]),
    ].join("\n"),
  json: (views, note) => {
    const lines = views.map((v) => {
      const entry = {
        name: v.name,
        ...(v.displayName === undefined ? {} : { displayName: v.displayName }),
        ...(v.description === undefined ? {} : { description: v.description }),
        ...(v.location === undefined ? {} : { location: v.location }),
      };
      return `  ${JSON.stringify(entry)}`;
    });
    if (note !== undefined) lines.push(`  ${JSON.stringify(note)}`);
    return ["[", lines.join(",\n"), "]"].join("\n");
  },
};

/** How a skill is named to the model: its key, and the frontmatter name beside it when that differs, as Claude Code shows it. */
function label(view: View): string {
  return view.displayName === undefined ? view.name : `${view.name} (${view.displayName})`;
}

/**
 * The catalog's last line when skills were left out: it tells the model they exist and,
 * given the search tool's name, how to find them.
 */
export function omittedNote(count: number, searchHint?: string): string {
  const head = count === 1 ? "1 more skill is not listed here" : `${count} more skills are not listed here`;
  return searchHint === undefined
    ? `${head}; load one by name if the task needs it.`
    : `${head}; use ${searchHint} to find one.`;
}

/**
 * The catalog's last line when every skill is listed but some by name only, and a search
 * tool can tell what they do. `count` is the number listed without their description.
 */
export function nameOnlyNote(count: number, searchHint: string): string {
  const head =
    count === 1
      ? "1 skill is listed without its description"
      : `${count} skills are listed without their descriptions`;
  return `${head}; use ${searchHint} to find one.`;
}

/**
 * Shortens a description to at most `cap` characters, `…` included: the cut falls on the
 * last whitespace within the final third of the allowance (at most 30 characters back), or
 * mid-word when there is none (CJK text, long identifiers). The kept prefix never shrinks as
 * `cap` grows, which is what lets the budget search below be a binary search.
 */
function shorten(chars: readonly string[], cap: number): string {
  const hard = cap - 1;
  const lowest = hard - Math.min(30, Math.floor(cap / 3));
  let cut = hard;
  for (let i = hard; i >= lowest; i--) {
    if (WHITESPACE.test(chars[i] as string)) {
      cut = i;
      break;
    }
  }
  return chars.slice(0, cut).join("").trimEnd() + ELLIPSIS;
}

function descriptionFor(entry: Entry, plan: Plan): string | undefined {
  if (entry.priority >= plan.described) return undefined;
  return entry.priority < plan.full || entry.chars.length <= plan.cap
    ? entry.description
    : shorten(entry.chars, plan.cap);
}

/** {@link largest}, but trying `high` first: at `high` = all skills the note line disappears. */
function best(low: number, high: number, ok: (n: number) => boolean): number {
  return high > low && ok(high) ? high : largest(low, Math.max(low, high - 1), ok);
}

function largest(low: number, high: number, ok: (n: number) => boolean): number {
  // Invariant: ok(low) holds; find the largest n in [low, high] with ok(n).
  let lo = low;
  let hi = high;
  while (lo < hi) {
    const mid = lo + Math.ceil((hi - lo) / 2);
    if (ok(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function checkBudget(budget: number | undefined): number {
  if (budget === undefined) return Number.POSITIVE_INFINITY;
  if (typeof budget !== "number" || Number.isNaN(budget) || budget < 0) {
    throw new SkillError(
      "INVALID_FIELD",
      `Invalid catalog budget: expected a number of characters >= 0, found ${JSON.stringify(budget) ?? String(budget)}`,
      { field: "budget" },
    );
  }
  return Math.floor(budget);
}

function checkFunction<T>(value: T | undefined, field: string): T | undefined {
  if (value === undefined || typeof value === "function") return value;
  throw new SkillError(
    "INVALID_FIELD",
    `Invalid catalog ${field}: expected a function, found ${typeof value}`,
    {
      field,
    },
  );
}

/**
 * Input positions in priority order: pinned skills first, in the order pinned; then by rank,
 * highest first; equal ranks (and NaN, last) keep input order.
 */
function priorities(
  skills: readonly SkillMetadata[],
  rank: ((skill: SkillMetadata) => number) | undefined,
  pinned: ReadonlyMap<string, number>,
): number[] {
  const order = skills.map((_, i) => i);
  const pin = skills.map((s) => pinned.get(s.name) ?? Number.POSITIVE_INFINITY);
  const score = skills.map((s) => {
    if (rank === undefined) return 0;
    const r = rank(s);
    return typeof r === "number" && !Number.isNaN(r) ? r : Number.NEGATIVE_INFINITY;
  });
  order.sort((a, b) => {
    const pa = pin[a] as number;
    const pb = pin[b] as number;
    if (pa !== pb) return pa < pb ? -1 : 1;
    const sa = score[a] as number;
    const sb = score[b] as number;
    return sa === sb ? a - b : sa > sb ? -1 : 1;
  });
  const position = new Array<number>(skills.length);
  order.forEach((input, p) => {
    position[input] = p;
  });
  return position;
}

/** Pinned names to their place in the list; duplicates keep their first place. */
function checkPinned(pinned: unknown): Map<string, number> {
  const places = new Map<string, number>();
  if (pinned === undefined) return places;
  if (!Array.isArray(pinned) || !pinned.every((p) => typeof p === "string")) {
    throw new SkillError(
      "INVALID_FIELD",
      `Invalid catalog pinned: expected a list of skill names, found ${describe(pinned)}`,
      { field: "pinned" },
    );
  }
  for (const name of pinned as string[]) if (!places.has(name)) places.set(name, places.size);
  return places;
}

function checkSearchHint(hint: unknown): string | undefined {
  if (hint === undefined || (typeof hint === "string" && hint.trim() !== "")) return hint;
  throw new SkillError(
    "INVALID_FIELD",
    `Invalid catalog searchHint: expected the name of a search tool, found ${describe(hint)}`,
    { field: "searchHint" },
  );
}

function checkShare(share: unknown): number {
  if (share === undefined) return 0;
  if (typeof share === "number" && share >= 0 && share <= 1) return share;
  throw new SkillError(
    "INVALID_FIELD",
    `Invalid catalog descriptionShare: expected a number from 0 to 1, found ${describe(share)}`,
    { field: "descriptionShare" },
  );
}

function checkBoolean(value: unknown, field: string): boolean {
  if (value === undefined) return true;
  if (typeof value === "boolean") return value;
  throw new SkillError(
    "INVALID_FIELD",
    `Invalid catalog ${field}: expected true or false, found ${describe(value)}`,
    {
      field,
    },
  );
}

function describe(value: unknown): string {
  return typeof value === "function" ? "a function" : (JSON.stringify(value) ?? String(value));
}

function checkStyle(style: unknown): CatalogStyle {
  if (style === "xml" || style === "markdown" || style === "json") return style;
  throw new SkillError(
    "INVALID_FIELD",
    `Invalid catalog style: expected "xml", "markdown" or "json", found ${JSON.stringify(style)}`,
    { field: "style" },
  );
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
  const render = RENDER[checkStyle(options.style ?? "xml")];
  const locationStyle = checkLocationStyle(options.locationStyle ?? "path");
  const budget = checkBudget(options.budget);
  const rank = checkFunction(options.rank, "rank");
  const measureOption = checkFunction(options.measure, "measure");
  const pins = checkPinned(options.pinned);
  const withLocation = checkBoolean(options.location, "location");
  const hint = checkSearchHint(options.searchHint);
  const share = checkShare(options.descriptionShare);
  const measure = (text: string): number => {
    if (measureOption === undefined) return text.length;
    const size = measureOption(text);
    if (typeof size !== "number" || Number.isNaN(size)) {
      throw new SkillError(
        "INVALID_FIELD",
        `Invalid catalog measure: it returned ${String(size)}, not a number`,
        {
          field: "measure",
        },
      );
    }
    return size;
  };

  const listable = (s: SkillMetadata) =>
    s.description !== "" && (options.includeUserOnly === true || s.modelInvocable !== false);
  const visible = skills.filter(listable);
  const hidden = skills.filter((s) => !listable(s)).map((s) => s.name);
  const priority = priorities(visible, rank, pins);
  const entries: Entry[] = visible.map((s, i) => ({
    priority: priority[i] as number,
    name: s.name,
    displayName: typeof s.displayName === "string" && s.displayName !== s.name ? s.displayName : undefined,
    description: s.description,
    chars: Array.from(s.description),
    location: formatLocation(s.location, locationStyle),
  }));
  const n = entries.length;
  // Pinned skills hold the first priorities; a name pinned twice or absent holds none.
  const pinnedCount = visible.filter((v) => pins.has(v.name)).length;
  const nameOnly = (plan: Plan) => entries.filter((e) => isNameOnly(e, plan));
  const note = (plan: Plan): string | undefined => {
    if (plan.count < n) return omittedNote(n - plan.count, hint);
    if (hint === undefined) return undefined;
    const bare = nameOnly(plan).length;
    return bare > 0 ? nameOnlyNote(bare, hint) : undefined;
  };
  const text = (plan: Plan): string =>
    plan.count === 0
      ? ""
      : render(
          entries
            .filter((e) => e.priority < plan.count)
            .map((e) => ({
              name: e.name,
              displayName: e.displayName,
              description: descriptionFor(e, plan),
              location: withLocation ? e.location : undefined,
            })),
          note(plan),
        );
  const size = (plan: Plan): number => measure(text(plan));
  const fits = (plan: Plan): boolean => size(plan) <= budget;

  const longest = entries.reduce((max, e) => Math.max(max, e.chars.length), MIN_DESCRIPTION_LENGTH);
  const MIN = MIN_DESCRIPTION_LENGTH;
  let plan: Plan = { count: n, described: n, full: pinnedCount, cap: longest };
  if (!fits(plan)) {
    const capped = (d: number, full: number, cap = MIN): Plan => ({ count: n, described: d, full, cap });
    const allNames = fits({ count: n, described: 0, full: 0, cap: 0 });
    if (allNames && fits(capped(n, pinnedCount))) {
      const cap = largest(MIN, longest, (c) => fits(capped(n, pinnedCount, c)));
      plan = capped(n, pinnedCount, cap);
    } else if (allNames) {
      // Pinned descriptions whole (as many as fit, in pinned order), then the others by priority.
      const full = best(0, pinnedCount, (f) => fits(capped(f, f)));
      const described = best(full, n, (d) => fits(capped(d, full)));
      const cap = largest(MIN, longest, (c) => fits(capped(described, full, c)));
      plan = capped(described, full, cap);
    } else {
      // Descriptions first: pinned ones whenever they fit at all, the others within their share
      // of the budget; then as many names as fit after them.
      const own = (d: number, full: number, cap = MIN): Plan => ({ count: d, described: d, full, cap });
      const part = share * budget;
      const full = largest(0, pinnedCount, (f) => fits(own(f, f)));
      const described =
        size(own(full, full)) <= part ? largest(full, n, (d) => size(own(d, full)) <= part) : full;
      const cap =
        described > full ? largest(MIN, longest, (c) => size(own(described, full, c)) <= part) : MIN;
      const count = largest(described, n, (k) => fits({ count: k, described, full, cap }));
      plan = { count, described, full, cap };
    }
  }

  const listed = entries.filter((e) => e.priority < plan.count);
  return {
    text: text(plan),
    included: listed.map((e) => e.name),
    omitted: entries.filter((e) => e.priority >= plan.count).map((e) => e.name),
    truncated: listed
      .filter(
        (e) =>
          isNameOnly(e, plan) ||
          (e.priority < plan.described && e.priority >= plan.full && e.chars.length > plan.cap),
      )
      .map((e) => e.name),
    nameOnly: listed.filter((e) => isNameOnly(e, plan)).map((e) => e.name),
    hidden,
  };
}

/** Listed by name although it has a description to show. */
function isNameOnly(entry: Entry, plan: Plan): boolean {
  return entry.priority < plan.count && entry.priority >= plan.described && entry.description !== "";
}
