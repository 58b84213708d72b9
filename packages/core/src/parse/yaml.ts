// A static import: a runtime require would be invisible to bundlers (the CLI is bundled), so
// an application bundling @skill/core would fail on the first frontmatter the simple reader declines.
import jsYaml from "js-yaml";

/** A YAML error with the 1-based line inside the frontmatter text, where js-yaml gave one. */
export interface YamlFailure {
  readonly reason: string;
  readonly line?: number;
}

export type YamlResult = { ok: true; value: unknown } | { ok: false; failure: YamlFailure };

/**
 * Parses frontmatter text with js-yaml 3's `safeLoad` (no custom tags, no code), the parser
 * the front-matter package wraps. We call it directly because the wrapper is a trap on
 * hostile input: it trims the YAML with `/^\s+|\s+$/g`, quadratic in a run of blanks (an
 * 80 KB run took seconds, a 1 MiB file minutes), and its delimiter regex ends the
 * frontmatter at U+2028, U+2029 or `---\u00a0`. Delimiters are found by `frontmatter.ts`;
 * js-yaml itself scans in linear time.
 */
export function parseYaml(text: string): YamlResult {
  const simple = parseSimpleMapping(text);
  if (simple !== undefined) return { ok: true, value: simple };
  try {
    const value = jsYaml.safeLoad(text);
    return { ok: true, value: value === undefined ? null : value };
  } catch (error) {
    const mark = (error as { mark?: { line?: number } }).mark;
    const reason = String((error as { reason?: string }).reason ?? (error as Error).message ?? error);
    return { ok: false, failure: mark?.line === undefined ? { reason } : { reason, line: mark.line + 1 } };
  }
}

/**
 * Characters js-yaml refuses anywhere in a stream (its `PATTERN_NON_PRINTABLE`), tabs, CR and
 * other line breaks, and lone surrogates (with `u`, a surrogate range matches only those).
 */
const UNSAFE_TEXT =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters the simple reader leaves to js-yaml
  /[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u2028\u2029\uFEFF\uFFFE\uFFFF]|[\uD800-\uDFFF]/u;
/** A top-level key of the simple form: `name:` followed by a space and a value, or by a block scalar header. */
const SIMPLE_KEY = /^([A-Za-z_][A-Za-z0-9_-]*):(?: (.*))?$/;
/** Plain scalars that YAML would not read as a string (null, bool, numbers, dates, merge) start so. */
const NOT_A_PLAIN_STRING = /^(?:[-?:,[\]{}#&*!|>'"%@`~+.<0-9]|(?:null|true|false)$)/i;

/** A flow-sequence item that is certainly a plain string. */
const FLOW_WORD = /^[A-Za-z_][A-Za-z0-9_./-]*$/;
/** A dotted version (`2.4.7`): starts with a digit, yet neither a number nor a date in YAML. */
const DOTTED_VERSION = /^\d+(?:\.\d+){2,}$/;

type Simple = string | readonly string[] | { readonly [key: string]: string };

/**
 * The frontmatter most skills have, read without js-yaml: top-level `key: value` lines whose
 * values are one-line plain strings, one-line quoted strings (escapes only `\\"` and `\\\\`), flow lists of
 * plain words (`[a, b]`), `|`/`>` block scalars (clip or strip) whose lines share one
 * indentation, or one level of `key: value` lines under a `key:` (such as `metadata`). Anything
 * else — deeper nesting, block lists, comments, anchors, tags, escapes, numbers, booleans,
 * nulls, dates, multi-line plain scalars, duplicate keys, tabs, characters YAML refuses —
 * returns `undefined`, and js-yaml reads it. For what it accepts the result is what js-yaml's
 * `safeLoad` returns (checked against it in the tests): a cold js-yaml costs more per SKILL.md
 * than reading the file does.
 */
export function parseSimpleMapping(text: string): Record<string, Simple> | undefined {
  if (UNSAFE_TEXT.test(text)) return undefined;
  const lines = text.split("\n");
  const result: Record<string, Simple> = {};
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.trim() === "") continue;
    const match = SIMPLE_KEY.exec(line);
    if (!match) return undefined;
    const key = match[1] as string;
    if (key === "__proto__" || Object.hasOwn(result, key)) return undefined;
    const raw = (match[2] ?? "").trim();
    const indented = i + 1 < lines.length && (lines[i + 1] as string).startsWith(" ");
    let value: Simple | undefined;
    if (raw === "|" || raw === "|-" || raw === ">" || raw === ">-") {
      const block: string[] = [];
      let indent = -1;
      while (i + 1 < lines.length && (lines[i + 1] as string).startsWith(" ")) {
        const next = lines[++i] as string;
        const width = next.length - next.trimStart().length;
        if (indent === -1) indent = width;
        // One indentation, no trailing blanks: folding and chomping stay trivial.
        if (width !== indent || next.trim() === "" || next.endsWith(" ")) return undefined;
        block.push(next.slice(indent));
      }
      if (block.length === 0) return undefined;
      const lineBreak = raw.endsWith("-") ? "" : "\n";
      value = block.join(raw.startsWith(">") ? " " : "\n") + lineBreak;
    } else if (raw === "" && indented) {
      const nested: Record<string, string> = {};
      let indent = -1;
      while (i + 1 < lines.length && (lines[i + 1] as string).startsWith(" ")) {
        const next = lines[++i] as string;
        const width = next.length - next.trimStart().length;
        if (indent === -1) indent = width;
        if (width !== indent) return undefined;
        const inner = SIMPLE_KEY.exec(next.slice(indent));
        const innerKey = inner?.[1];
        if (!inner || innerKey === undefined || innerKey === "__proto__" || Object.hasOwn(nested, innerKey)) {
          return undefined;
        }
        const innerValue = oneLineScalar((inner[2] ?? "").trim());
        if (innerValue === undefined) return undefined;
        nested[innerKey] = innerValue;
      }
      value = nested;
    } else if (raw.startsWith("[") && raw.endsWith("]") && !indented) {
      const inside = raw.slice(1, -1).trim();
      const items = inside === "" ? [] : inside.split(",").map((item) => item.trim());
      if (!items.every((item) => FLOW_WORD.test(item) && !/^(?:null|true|false)$/i.test(item)))
        return undefined;
      value = items;
    } else {
      // A more-indented line after a one-line scalar continues it: js-yaml folds those.
      value = indented ? undefined : oneLineScalar(raw);
    }
    if (value === undefined) return undefined;
    result[key] = value;
  }
  return Object.keys(result).length > 0 ? result : undefined;
}

/** A one-line scalar that is certainly a string, or `undefined`. */
function oneLineScalar(raw: string): string | undefined {
  if (raw === "") return undefined;
  const first = raw[0];
  if (first === "'") {
    if (raw.length < 2 || !raw.endsWith("'")) return undefined;
    const inner = raw.slice(1, -1);
    if (inner.replaceAll("''", "").includes("'")) return undefined;
    return inner.replaceAll("''", "'");
  }
  if (first === '"') {
    // Only the escapes \" and \\; any other backslash, or a quote that ends the string early, is declined.
    const inner = raw.slice(1, -1);
    if (raw.length < 2 || !raw.endsWith('"') || raw.endsWith('\\"')) return undefined;
    if (!/^(?:[^"\\]|\\["\\])*$/.test(inner)) return undefined;
    return inner.replace(/\\(["\\])/g, "$1");
  }
  if (DOTTED_VERSION.test(raw)) return raw;
  if (NOT_A_PLAIN_STRING.test(raw) || raw.includes(": ") || raw.includes(" #") || raw.endsWith(":")) {
    return undefined;
  }
  return raw;
}

const KEY_LINE = /^([A-Za-z_][\w.-]*)([ \t]*):[ \t]+(\S.*)$/;

/**
 * The repair other agents apply: a top-level plain scalar that holds `: ` (or ends in `:`),
 * `description: Use when: x`, is rewritten as a double-quoted string, its indented
 * continuation lines folded into it unless `fold` is `false` (Codex 0.171 quotes the line
 * alone, so what follows it must still parse). Returns the repaired text and the keys touched.
 */
export function repairPlainScalars(text: string, fold = true): { text: string; keys: string[] } | undefined {
  const lines = text.split("\n");
  const keys: string[] = [];
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const match = KEY_LINE.exec(line);
    const value = match?.[3];
    if (!match || value === undefined || !needsQuoting(value)) {
      out.push(line);
      continue;
    }
    const parts = [stripComment(value)];
    while (fold && i + 1 < lines.length && /^[ \t]+\S/.test(lines[i + 1] as string)) {
      i++;
      parts.push((lines[i] as string).trim());
    }
    out.push(`${match[1]}${match[2]}: ${JSON.stringify(parts.join(" "))}`);
    keys.push(match[1] as string);
  }
  return keys.length > 0 ? { text: out.join("\n"), keys } : undefined;
}

function needsQuoting(value: string): boolean {
  const first = value[0];
  if (first === '"' || first === "'" || first === "[" || first === "{" || first === "|" || first === ">") {
    return false;
  }
  if (first === "&" || first === "*" || first === "!" || first === "#") return false;
  const plain = stripComment(value);
  return plain.includes(": ") || plain.endsWith(":");
}

function stripComment(value: string): string {
  const at = value.search(/[ \t]#/);
  return (at === -1 ? value : value.slice(0, at)).trimEnd();
}

/**
 * Counts the values of a parsed document, following aliases (js-yaml shares aliased nodes,
 * so a "billion laughs" document is small in memory but explodes in anything that walks it).
 * Stops as soon as `limit` is passed.
 */
export function exceedsNodeLimit(value: unknown, limit: number): boolean {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (++count > limit) return true;
    if (typeof node !== "object" || node === null) continue;
    if (Array.isArray(node)) {
      for (const item of node) stack.push(item);
    } else if (!(node instanceof Date)) {
      for (const key in node) stack.push((node as Record<string, unknown>)[key]);
    }
  }
  return false;
}

/**
 * `name:` and `description:` read line by line, as Gemini CLI 0.61 reads frontmatter its YAML
 * parser refuses: the rest of each line trimmed (quotes and all), and the description's
 * following indented lines joined to it with spaces. `undefined` unless both are there.
 */
export function fieldsByLines(text: string): { name: string; description: string } | undefined {
  const lines = text.split(/\r?\n/);
  let name: string | undefined;
  let description: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const nameMatch = /^\s*name:\s*(.*)$/.exec(line);
    if (nameMatch) {
      name = (nameMatch[1] ?? "").trim();
      continue;
    }
    const descriptionMatch = /^\s*description:\s*(.*)$/.exec(line);
    if (!descriptionMatch) continue;
    const parts = [(descriptionMatch[1] ?? "").trim()];
    while (i + 1 < lines.length && /^[ \t]+\S/.test(lines[i + 1] ?? ""))
      parts.push((lines[++i] ?? "").trim());
    description = parts.filter(Boolean).join(" ");
  }
  return name === undefined || description === undefined ? undefined : { name, description };
}
