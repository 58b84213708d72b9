import { createHash } from "node:crypto";
import { isMapping, type SkillMetadata } from "@skill/core";
import { ANALYZER } from "./analyze.js";
import type { Snapshot } from "./snapshot.js";

/** Names a saved index; its version moves whenever the saved form changes, and another is not read. */
export const FORMAT = "@skill/search index";
export const FORMAT_VERSION = 3;

/** What `SkillIndex#toJSON` gives and `loadSkillIndex` reads. */
export interface Persisted {
  readonly format: typeof FORMAT;
  readonly version: typeof FORMAT_VERSION;
  readonly analyzer: string;
  /** Per document of `index`, in order: the fingerprint of the skill it was made from. */
  readonly fingerprints: readonly string[];
  readonly index: Snapshot;
}

/** What a persisted document was made from: location, description, frontmatter and summary. */
export function fingerprint(skill: SkillMetadata): string {
  let text: string;
  try {
    text = JSON.stringify([skill.location, skill.description, skill.frontmatter, skill.summary ?? null]);
  } catch {
    return ""; // matches no persisted fingerprint, so the skill is indexed afresh
  }
  return createHash("sha256").update(text).digest("base64url");
}

/** `json` as a saved index of this version, or `undefined` for anything else. */
export function readPersisted(json: unknown): Persisted | undefined {
  if (!isMapping(json)) return undefined;
  if (json.format !== FORMAT || json.version !== FORMAT_VERSION || json.analyzer !== ANALYZER)
    return undefined;
  const { index, fingerprints } = json;
  if (!isMapping(index) || !Array.isArray(index.docs) || !Array.isArray(index.terms)) return undefined;
  if (!Array.isArray(fingerprints) || fingerprints.length !== index.docs.length) return undefined;
  if (!index.docs.every(Array.isArray) || !index.terms.every(Array.isArray)) return undefined;
  return fingerprints.every((f) => typeof f === "string") ? (json as unknown as Persisted) : undefined;
}
