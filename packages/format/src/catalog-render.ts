import type { CatalogStyle } from "./catalog-options.js";
import { skillBullet, skillElement } from "./elements.js";
import { escapeXml } from "./escape.js";

/** One skill as a catalog shows it. */
export interface View {
  readonly name: string;
  readonly displayName: string | undefined;
  readonly description: string | undefined;
  readonly location: string | undefined;
}

export const RENDER: Readonly<
  Record<CatalogStyle, (views: readonly View[], note: string | undefined) => string>
> = {
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
