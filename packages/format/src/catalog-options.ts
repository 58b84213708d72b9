import { SkillError, type SkillMetadata } from "@skill/core";
import { checkLocationStyle, type LocationStyle } from "./location.js";

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

/** The options of a catalog, checked, with their defaults. */
export interface CatalogSettings {
  readonly style: CatalogStyle;
  readonly locationStyle: LocationStyle;
  /** `Infinity` without a budget. */
  readonly budget: number;
  readonly rank: ((skill: SkillMetadata) => number) | undefined;
  /** The size of a text: `measure`, checked, or `text.length`. */
  readonly measure: (text: string) => number;
  /** Pinned names to their place in the list. */
  readonly pins: ReadonlyMap<string, number>;
  readonly withLocation: boolean;
  readonly searchHint: string | undefined;
  readonly share: number;
}

/** Checks the options of {@link formatCatalog}: an `INVALID_FIELD` for the first that is wrong. */
export function catalogSettings(options: CatalogOptions): CatalogSettings {
  const style = checkStyle(options.style ?? "xml");
  const locationStyle = checkLocationStyle(options.locationStyle ?? "path");
  const budget = checkBudget(options.budget);
  const rank = checkFunction(options.rank, "rank");
  const measureOption = checkFunction(options.measure, "measure");
  const pins = checkPinned(options.pinned);
  const withLocation = checkBoolean(options.location, "location");
  const searchHint = checkSearchHint(options.searchHint);
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
  return { style, locationStyle, budget, rank, measure, pins, withLocation, searchHint, share };
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
