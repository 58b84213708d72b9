import { readFileSync } from "node:fs";
import type { SkillMetadata } from "@skill/core";

/** A skill as SkillService hands it over; only the fields search reads matter. */
export function skill(
  name: string,
  description = `About ${name}`,
  extra: Readonly<Record<string, unknown>> = {},
  location = `/skills/${name}/SKILL.md`,
): SkillMetadata {
  return {
    name,
    description,
    location,
    frontmatter: { name, description, ...extra },
    origin: "manual",
    modelInvocable: true,
    userInvocable: true,
  };
}

interface CatalogEntry {
  readonly name: string;
  readonly description: string;
  readonly when_to_use?: string;
  readonly metadata?: Readonly<Record<string, unknown>>;
  readonly source: string;
  readonly path: string;
  readonly summary?: string;
}

/** The real-skill catalog of `test/__fixtures__/catalog.json`, as skills, with the body summaries it holds. */
export function catalogSkills(): SkillMetadata[] {
  const file = new URL("../../test/__fixtures__/catalog.json", import.meta.url);
  const { skills } = JSON.parse(readFileSync(file, "utf8")) as { skills: CatalogEntry[] };
  return skills.map((entry) => {
    const extra: Record<string, unknown> = {};
    if (entry.when_to_use !== undefined) extra.when_to_use = entry.when_to_use;
    if (entry.metadata !== undefined) extra.metadata = entry.metadata;
    const made = skill(entry.name, entry.description, extra, `/${entry.source}/${entry.path}`);
    return entry.summary === undefined ? made : { ...made, summary: entry.summary };
  });
}

export interface Request {
  readonly query: string;
  readonly expected: readonly string[];
}

/** The hand-written requests of `test/__fixtures__/requests.json`, or of another set there. */
export function requests(
  set: "requests.json" | "requests-users.json" | "requests-heldout.json" = "requests.json",
): Request[] {
  const file = new URL(`../../test/__fixtures__/${set}`, import.meta.url);
  return (JSON.parse(readFileSync(file, "utf8")) as { requests: Request[] }).requests;
}
