import type { CatalogResult } from "@skill/format";
import { type JsonSchema, SEARCH_INPUT, SKILL_INPUT } from "./schema.js";

/** The name of the tool that loads a skill. */
export const SKILL_TOOL = "skill";
/** The name of the tool that searches skills. */
export const SEARCH_TOOL = "skill_search";

/** A tool as a model provider receives it. */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the input. */
  readonly inputSchema: JsonSchema;
}

const SKILL_INTRO = [
  "Load a skill: instructions for one kind of task, with the files it bundles.",
  "When a task matches a skill's description, call this tool with that skill's name before you start, then follow the instructions it returns.",
  "To read a file a loaded skill lists, call it again with the same name and `file`.",
].join(" ");

const SEARCH_DESCRIPTION = [
  "Search the available skills by what they do, in a few words that name the kind of work, the file type or the tool",
  '(e.g. "fill in a PDF form", "slides", "kubernetes deploy"), not the whole request; when nothing fits, try other words.',
  `Returns the names and descriptions of the best matches, best first; load one with the ${SKILL_TOOL} tool.`,
].join(" ");

/**
 * What the `skill` tool says when its catalog lists no skill: that there are none, or, when a
 * budget too small for even one name left them all out, how many there are and how to find one.
 */
function emptyListing(omitted: number, searchOffered: boolean): string {
  if (omitted === 0) return "No skills are available right now.";
  const count = omitted === 1 ? "1 skill is" : `${omitted} skills are`;
  return searchOffered
    ? `${count} available but not listed here; use ${SEARCH_TOOL} to find one.`
    : `${count} available but not listed here; load one by its exact name if the task needs it.`;
}

/**
 * The tools to offer for a catalog: `skill`, its description holding the catalog, and
 * `skill_search` when `searchOffered`.
 */
export function toolDefinitions(catalog: CatalogResult, searchOffered: boolean): readonly ToolDefinition[] {
  const listing = catalog.text === "" ? emptyListing(catalog.omitted.length, searchOffered) : catalog.text;
  const skill: ToolDefinition = {
    name: SKILL_TOOL,
    description: `${SKILL_INTRO}\n\n${listing}`,
    inputSchema: SKILL_INPUT,
  };
  if (!searchOffered) return Object.freeze([skill]);
  return Object.freeze([
    skill,
    { name: SEARCH_TOOL, description: SEARCH_DESCRIPTION, inputSchema: SEARCH_INPUT },
  ]);
}
