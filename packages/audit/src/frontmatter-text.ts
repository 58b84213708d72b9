/** Deeper values are written as one JSON line: frontmatter that nests further is not a layout to mirror. */
const MAX_DEPTH = 8;
const PLAIN_KEY = /^[A-Za-z_][\w.-]*$/;
// What a plain YAML scalar may not start with, hold or be, to read back as the same string.
const UNSAFE_START = /^[\s\-?:,[\]{}#&*!|>'"%@`]/;
const UNSAFE_INSIDE = /: |\s#|\p{Cc}|:$|\s$/u;
const NOT_A_STRING = /^(?:true|false|yes|no|on|off|y|n|null|~)$|^[-+.]?\d/i;

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    return "null"; // a cycle of YAML aliases
  }
}

function scalar(value: unknown): string {
  if (typeof value === "string") {
    const plain = value !== "" && !UNSAFE_START.test(value) && !UNSAFE_INSIDE.test(value);
    return plain && !NOT_A_STRING.test(value) ? value : json(value);
  }
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value === null || value === undefined) return "null";
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "null" : json(value.toISOString());
  return json(value);
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function lines(key: string, value: unknown, indent: string, depth: number, out: string[]): void {
  const head = `${indent}${PLAIN_KEY.test(key) ? key : json(key)}:`;
  if (Array.isArray(value) && value.length > 0 && depth < MAX_DEPTH) {
    out.push(head);
    for (const item of value) {
      out.push(`${indent}  - ${Array.isArray(item) || isMapping(item) ? json(item) : scalar(item)}`);
    }
  } else if (isMapping(value) && Object.keys(value).length > 0 && depth < MAX_DEPTH) {
    out.push(head);
    for (const [k, v] of Object.entries(value)) lines(k, v, `${indent}  `, depth + 1, out);
  } else {
    out.push(`${head} ${Array.isArray(value) || isMapping(value) ? json(value) : scalar(value)}`);
  }
}

/**
 * A SKILL.md for a skill known only as parsed frontmatter and body (from a skill service):
 * each field on its own line in block style (lists as `- item` lines, mappings indented),
 * strings plain where YAML reads them back unchanged and JSON-quoted otherwise, then the
 * body as it is. For the usual layout (one line per scalar field) every line falls where it
 * is in the file; a value the file spreads over several lines (a folded description) takes
 * one here, and the lines after it move up.
 */
export function skillMdText(frontmatter: Readonly<Record<string, unknown>>, body: string): string {
  const out: string[] = ["---"];
  for (const [key, value] of Object.entries(frontmatter)) lines(key, value, "", 0, out);
  out.push("---");
  return `${out.join("\n")}\n${body}`;
}
