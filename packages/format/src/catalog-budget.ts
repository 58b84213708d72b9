import type { SkillMetadata } from "@skill/core";
import { nameOnlyNote, omittedNote, type View } from "./catalog-render.js";

/** A shortened description keeps at least this many characters (`…` included); below that it is dropped. */
export const MIN_DESCRIPTION_LENGTH = 24;

const ELLIPSIS = "…";
const WHITESPACE = /\s/;

export interface Entry {
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
export interface Plan {
  readonly count: number;
  readonly described: number;
  readonly full: number;
  readonly cap: number;
}

/** What a catalog is written from: its entries, and how they are shown and measured. */
export interface Layout {
  readonly entries: readonly Entry[];
  readonly render: (views: readonly View[], note: string | undefined) => string;
  readonly withLocation: boolean;
  readonly searchHint: string | undefined;
  readonly measure: (text: string) => number;
  readonly budget: number;
}

/** The catalog's text under a plan. */
export function textOf(layout: Layout, plan: Plan): string {
  if (plan.count === 0) return "";
  return layout.render(
    layout.entries
      .filter((e) => e.priority < plan.count)
      .map((e) => ({
        name: e.name,
        displayName: e.displayName,
        description: descriptionFor(e, plan),
        location: layout.withLocation ? e.location : undefined,
      })),
    noteOf(layout, plan),
  );
}

/** The last line under a plan: skills left out, or (with a search tool) listed by name only. */
function noteOf(layout: Layout, plan: Plan): string | undefined {
  const n = layout.entries.length;
  if (plan.count < n) return omittedNote(n - plan.count, layout.searchHint);
  if (layout.searchHint === undefined) return undefined;
  const bare = layout.entries.filter((e) => isNameOnly(e, plan)).length;
  return bare > 0 ? nameOnlyNote(bare, layout.searchHint) : undefined;
}

function sizeOf(layout: Layout, plan: Plan): number {
  return layout.measure(textOf(layout, plan));
}

function fits(layout: Layout, plan: Plan): boolean {
  return sizeOf(layout, plan) <= layout.budget;
}

/**
 * The plan the budget allows (see the budget rule of {@link formatCatalog}): everything, else
 * descriptions capped, else dropped by priority, else skills dropped. The first `pinnedCount`
 * priorities are the pinned skills; `share` is `descriptionShare`.
 */
export function planWithin(layout: Layout, pinnedCount: number, share: number): Plan {
  const n = layout.entries.length;
  const longest = layout.entries.reduce((max, e) => Math.max(max, e.chars.length), MIN_DESCRIPTION_LENGTH);
  const MIN = MIN_DESCRIPTION_LENGTH;
  const plan: Plan = { count: n, described: n, full: pinnedCount, cap: longest };
  if (fits(layout, plan)) return plan;
  const capped = (d: number, full: number, cap = MIN): Plan => ({ count: n, described: d, full, cap });
  const allNames = fits(layout, { count: n, described: 0, full: 0, cap: 0 });
  if (allNames && fits(layout, capped(n, pinnedCount))) {
    const cap = largest(MIN, longest, (c) => fits(layout, capped(n, pinnedCount, c)));
    return capped(n, pinnedCount, cap);
  }
  if (allNames) {
    // Pinned descriptions whole (as many as fit, in pinned order), then the others by priority.
    const full = best(0, pinnedCount, (f) => fits(layout, capped(f, f)));
    const described = best(full, n, (d) => fits(layout, capped(d, full)));
    const cap = largest(MIN, longest, (c) => fits(layout, capped(described, full, c)));
    return capped(described, full, cap);
  }
  // Descriptions first: pinned ones whenever they fit at all, the others within their share
  // of the budget; then as many names as fit after them.
  const own = (d: number, full: number, cap = MIN): Plan => ({ count: d, described: d, full, cap });
  const part = share * layout.budget;
  const full = largest(0, pinnedCount, (f) => fits(layout, own(f, f)));
  const described =
    sizeOf(layout, own(full, full)) <= part
      ? largest(full, n, (d) => sizeOf(layout, own(d, full)) <= part)
      : full;
  const cap =
    described > full ? largest(MIN, longest, (c) => sizeOf(layout, own(described, full, c)) <= part) : MIN;
  const count = largest(described, n, (k) => fits(layout, { count: k, described, full, cap }));
  return { count, described, full, cap };
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

/** Listed by name although it has a description to show. */
export function isNameOnly(entry: Entry, plan: Plan): boolean {
  return entry.priority < plan.count && entry.priority >= plan.described && entry.description !== "";
}

/** Listed with a description shorter than its own. */
export function isShortened(entry: Entry, plan: Plan): boolean {
  return entry.priority < plan.described && entry.priority >= plan.full && entry.chars.length > plan.cap;
}

/**
 * Input positions in priority order: pinned skills first, in the order pinned; then by rank,
 * highest first; equal ranks (and NaN, last) keep input order.
 */
export function priorities(
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
