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
  try {
    const value = jsYaml.safeLoad(text);
    return { ok: true, value: value === undefined ? null : value };
  } catch (error) {
    const mark = (error as { mark?: { line?: number } }).mark;
    const reason = String((error as { reason?: string }).reason ?? (error as Error).message ?? error);
    return { ok: false, failure: mark?.line === undefined ? { reason } : { reason, line: mark.line + 1 } };
  }
}

const KEY_LINE = /^([A-Za-z_][\w.-]*)([ \t]*):[ \t]+(\S.*)$/;

/**
 * The repair other agents apply: a top-level plain scalar that holds `: ` (or ends in `:`),
 * `description: Use when: x`, is rewritten as a double-quoted string, its indented
 * continuation lines folded into it. Returns the repaired text and the keys touched.
 */
export function repairPlainScalars(text: string): { text: string; keys: string[] } | undefined {
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
    while (i + 1 < lines.length && /^[ \t]+\S/.test(lines[i + 1] as string)) {
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
