import { isMapping, quote, SkillError } from "@skill/core";
import { FIELDS } from "./fields.js";

type Field = (typeof FIELDS)[number];

/** The weight of a match in each field when `boost` does not say. */
const DEFAULT_BOOST: Readonly<Record<Field, number>> = {
  name: 2,
  description: 1,
  keywords: 1,
  whenToUse: 0.5,
  summary: 0.3,
};

/** How an index ranks. Every option has a default; none changes what is indexed. */
export interface SkillIndexOptions {
  /**
   * Weight of a match in each field. `keywords` is the `metadata` keywords and tags, `whenToUse`
   * the `when_to_use` frontmatter field, `summary` the body's summary (`SkillMetadata.summary`).
   * Default `{ name: 2, description: 1, keywords: 1, whenToUse: 0.5, summary: 0.3 }`.
   */
  readonly boost?: {
    readonly name?: number;
    readonly description?: number;
    readonly keywords?: number;
    readonly whenToUse?: number;
    readonly summary?: number;
  };
  /**
   * Typo tolerance for query words of four letters or more: the edit distance allowed, as a
   * fraction of the word's length (0.2: one typo in a word of 4 to 7 letters). 0 turns it off.
   * Default 0.2.
   */
  readonly fuzzy?: number;
  /** Let a query word of four letters or more match longer words it begins (`kube` → kubernetes). Default `true`. */
  readonly prefix?: boolean;
}

/** {@link SkillIndexOptions} checked, with the defaults filled in. */
export interface Ranking {
  readonly boost: Readonly<Record<Field, number>>;
  readonly fuzzy: number;
  readonly prefix: boolean;
}

/**
 * The ranking `options` ask for.
 *
 * @throws SkillError `INVALID_FIELD` when an option is out of range
 */
export function rankingOf(options: SkillIndexOptions): Ranking {
  if (!isMapping(options)) {
    throw new SkillError("INVALID_FIELD", `Expected search options as an object, found ${quote(options)}`);
  }
  const boost = options.boost ?? {};
  if (!isMapping(boost)) {
    throw new SkillError(
      "INVALID_FIELD",
      `Expected 'boost' as an object of field weights, found ${quote(boost)}`,
      {
        field: "boost",
      },
    );
  }
  const weight = (field: Field): number => {
    const value = boost[field] ?? DEFAULT_BOOST[field];
    if (typeof value === "number" && Number.isFinite(value) && value >= 0) return value;
    throw new SkillError(
      "INVALID_FIELD",
      `Expected 'boost.${field}' to be a number of 0 or more, found ${quote(value)}`,
      { field: `boost.${field}` },
    );
  };
  const fuzzy = options.fuzzy ?? 0.2;
  if (typeof fuzzy !== "number" || !(fuzzy >= 0 && fuzzy < 1)) {
    throw new SkillError(
      "INVALID_FIELD",
      `Expected 'fuzzy' to be a number from 0 up to 1, found ${quote(fuzzy)}`,
      {
        field: "fuzzy",
      },
    );
  }
  const prefix = options.prefix ?? true;
  if (typeof prefix !== "boolean") {
    throw new SkillError("INVALID_FIELD", `Expected 'prefix' to be true or false, found ${quote(prefix)}`, {
      field: "prefix",
    });
  }
  return {
    boost: Object.fromEntries(FIELDS.map((field) => [field, weight(field)])) as Record<Field, number>,
    fuzzy,
    prefix,
  };
}
