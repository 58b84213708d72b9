// The search fixtures as the recall scripts read them: packages/search/test/__fixtures__
// (catalog.json and the request sets), and the catalog as skills a load would give.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const fixtures = fileURLToPath(new URL("../packages/search/test/__fixtures__/", import.meta.url));

/** A fixture file, parsed. */
export function readFixture(file) {
  return JSON.parse(readFileSync(`${fixtures}${file}`, "utf8"));
}

/** The catalog's skills as `SkillMetadata`; with `summaries: false`, without the body summaries it holds. */
export function catalogSkills({ summaries = true } = {}) {
  return readFixture("catalog.json").skills.map((e) => {
    const frontmatter = { name: e.name, description: e.description };
    if (e.when_to_use !== undefined) frontmatter.when_to_use = e.when_to_use;
    if (e.metadata !== undefined) frontmatter.metadata = e.metadata;
    const summary = summaries ? e.summary : undefined;
    return {
      name: e.name,
      description: e.description,
      location: `/${e.source}/${e.path}`,
      frontmatter,
      origin: "manual",
      modelInvocable: true,
      userInvocable: true,
      ...(summary === undefined ? {} : { summary }),
    };
  });
}
