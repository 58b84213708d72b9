import type { Options } from "minisearch";
import { fieldTerms } from "./analyze.js";

/** The fields of a skill that are indexed, in field-id order. */
export const FIELDS = ["name", "description", "keywords", "whenToUse", "summary"] as const;

/** What MiniSearch indexes of one skill. */
export interface Doc {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  /** The `metadata` keywords and tags, a line each. */
  readonly keywords: string;
  /** The `when_to_use` frontmatter field. */
  readonly whenToUse: string;
  /** The body's summary, when the load read it (`SkillMetadata.summary`). */
  readonly summary: string;
}

// Documents are removed, never discarded, so there is nothing to vacuum (MiniSearch's own
// vacuuming runs on timers); its logger would print to the console.
export const miniSearchOptions: Options<Doc> = {
  idField: "id",
  fields: [...FIELDS],
  storeFields: [],
  tokenize: (text: string, field?: string) => fieldTerms(text, field),
  processTerm: (t: string) => t,
  autoVacuum: false,
  logger: () => {},
};
