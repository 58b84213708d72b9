import { isMapping } from "@skill/core";

/** A JSON Schema, as the tools declare their input. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** Most results `skill_search` returns in one call. */
export const MAX_SEARCH_LIMIT = 20;
/** Results `skill_search` returns when the model gives no `limit`. */
export const DEFAULT_SEARCH_LIMIT = 8;

export const SKILL_INPUT: JsonSchema = Object.freeze({
  type: "object",
  properties: {
    name: { type: "string", minLength: 1, description: "The skill's name, exactly as listed." },
    file: {
      type: "string",
      minLength: 1,
      description:
        "Optional: a file the skill bundles, relative to its folder as the loaded skill lists it (e.g. scripts/fill.py). Leave it out to load the skill itself.",
    },
  },
  required: ["name"],
  additionalProperties: false,
});

export const SEARCH_INPUT: JsonSchema = Object.freeze({
  type: "object",
  properties: {
    query: {
      type: "string",
      minLength: 1,
      description: 'What the task needs, in a few words (e.g. "fill in a PDF form").',
    },
    limit: {
      type: "integer",
      minimum: 1,
      maximum: MAX_SEARCH_LIMIT,
      default: DEFAULT_SEARCH_LIMIT,
      description: `Most skills to return (1 to ${MAX_SEARCH_LIMIT}, default ${DEFAULT_SEARCH_LIMIT}).`,
    },
  },
  required: ["query"],
  additionalProperties: false,
});

interface Property {
  readonly type: "string" | "integer";
  readonly minLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
}

function found(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/**
 * Checks a tool input against one of the schemas above (the subset of JSON Schema they use:
 * an object of string and integer properties, `required`, `minLength`, `minimum`, `maximum`,
 * no extra properties). Returns the input, or a sentence saying what is wrong.
 */
export function checkInput(
  tool: string,
  schema: JsonSchema,
  input: unknown,
):
  | { readonly ok: true; readonly value: Readonly<Record<string, unknown>> }
  | { readonly ok: false; readonly error: string } {
  const properties = schema.properties as Readonly<Record<string, Property>>;
  const required = schema.required as readonly string[];
  const shape = Object.entries(properties)
    .map(
      ([key, p]) =>
        `"${key}"${required.includes(key) ? "" : "?"}: ${p.type === "integer" ? "number" : p.type}`,
    )
    .join(", ");
  const fail = (what: string) => ({
    ok: false as const,
    error: `Invalid input for ${tool}: ${what}. Expected {${shape}}.`,
  });
  if (!isMapping(input)) return fail(`expected an object, found ${found(input)}`);
  for (const key of Object.keys(input)) {
    if (!(key in properties)) return fail(`unknown field "${key}"`);
  }
  for (const key of required) {
    if (input[key] === undefined) return fail(`"${key}" is missing`);
  }
  for (const [key, p] of Object.entries(properties)) {
    const value = input[key];
    if (value === undefined) continue;
    if (p.type === "string") {
      if (typeof value !== "string") return fail(`"${key}" must be a string, found ${found(value)}`);
      if (p.minLength !== undefined && value.length < p.minLength) return fail(`"${key}" is empty`);
    } else {
      if (typeof value !== "number" || !Number.isInteger(value)) {
        return fail(`"${key}" must be a whole number, found ${found(value)}`);
      }
      if ((p.minimum !== undefined && value < p.minimum) || (p.maximum !== undefined && value > p.maximum)) {
        return fail(`"${key}" must be from ${p.minimum} to ${p.maximum}, found ${value}`);
      }
    }
  }
  return { ok: true, value: input };
}
