import { isMapping, type SkillMetadata } from "@skill/core";
import type { Doc } from "./fields.js";

/** Longest text indexed from one field of one skill. */
const MAX_FIELD_LENGTH = 10_000;

/**
 * What MiniSearch indexes of `skill`: its name, description, `metadata` keywords and tags,
 * `when_to_use`, and the body's summary when the load took one (nothing is read for it).
 */
export function docOf(skill: SkillMetadata): Doc {
  const frontmatter = isMapping(skill.frontmatter) ? skill.frontmatter : undefined;
  const metadata = isMapping(frontmatter?.metadata) ? frontmatter.metadata : undefined;
  const keywords = joinTexts(joinTexts(undefined, metadata?.keywords), metadata?.tags);
  const whenToUse = joinTexts(undefined, frontmatter?.when_to_use);
  return {
    id: skill.name,
    name: cut(skill.name),
    description: cut(typeof skill.description === "string" ? skill.description : ""),
    keywords: keywords === undefined ? "" : cut(keywords),
    whenToUse: whenToUse === undefined ? "" : cut(whenToUse),
    summary: typeof skill.summary === "string" ? cut(skill.summary) : "",
  };
}

/** `joined` (if any) and then `value` (a string, or the strings of a list), a line each. */
function joinTexts(joined: string | undefined, value: unknown): string | undefined {
  if (typeof value === "string") return joined === undefined ? value : `${joined}\n${value}`;
  if (Array.isArray(value)) {
    for (const text of value) {
      if (typeof text === "string") joined = joined === undefined ? text : `${joined}\n${text}`;
    }
  }
  return joined;
}

function cut(text: string): string {
  return text.length > MAX_FIELD_LENGTH ? text.slice(0, MAX_FIELD_LENGTH) : text;
}

/** Whether two documents are indexed alike. */
export function sameText(a: Doc, b: Doc): boolean {
  return (
    a.name === b.name &&
    a.description === b.description &&
    a.keywords === b.keywords &&
    a.whenToUse === b.whenToUse &&
    a.summary === b.summary
  );
}

/** Whether two skills are the same for the index: location, description, summary and frontmatter. */
export function sameSkill(a: SkillMetadata, b: SkillMetadata): boolean {
  return (
    a.location === b.location &&
    a.description === b.description &&
    a.summary === b.summary &&
    sameValue(a.frontmatter, b.frontmatter, 0)
  );
}

function sameValue(a: unknown, b: unknown, depth: number): boolean {
  if (Object.is(a, b)) return true;
  if (depth > 32 || typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  const recordB = b as Record<string, unknown>;
  for (const key of keysA) {
    if (!Object.hasOwn(recordB, key)) return false;
    if (!sameValue((a as Record<string, unknown>)[key], recordB[key], depth + 1)) return false;
  }
  return true;
}
