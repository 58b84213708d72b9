import { SkillError } from "./errors.js";

const DELIMITER_ERROR = "Failed to parse frontmatter: Missing --- frontmatter delimiters";

/** Drops a UTF-8 BOM and reads CRLF and lone CR line endings as LF. */
export function normalizeText(text: string): string {
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const rest = start ? text.slice(start) : text;
  return rest.includes("\r") ? rest.replace(/\r\n?/g, "\n") : rest;
}

/** True when `text[from, to)` is `---` or `...` (the closing forms) followed only by blanks. */
function isDelimiterLine(text: string, from: number, to: number, allowDots: boolean): boolean {
  if (to - from < 3) return false;
  const head = text.slice(from, from + 3);
  if (head !== "---" && !(allowDots && head === "...")) return false;
  for (let i = from + 3; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09) return false;
  }
  return true;
}

/** Where the frontmatter is in normalized text; `undefined` when the delimiters are missing. */
export interface FrontmatterBounds {
  /** The frontmatter text, without the delimiter lines and without its final newline. */
  readonly frontmatter: string;
  /** Everything after the closing line's newline. */
  readonly body: string;
  /** 1-based line of the closing delimiter. */
  readonly closingLine: number;
}

export function locateFrontmatter(text: string): FrontmatterBounds | undefined {
  let end = text.indexOf("\n");
  if (end === -1) end = text.length;
  if (!isDelimiterLine(text, 0, end, false) || end === text.length) return undefined;
  const fmStart = end + 1;
  let line = 2;
  let from = fmStart;
  while (from <= text.length) {
    let to = text.indexOf("\n", from);
    if (to === -1) to = text.length;
    if (isDelimiterLine(text, from, to, true)) {
      return {
        frontmatter: from > fmStart ? text.slice(fmStart, from - 1) : "",
        body: to < text.length ? text.slice(to + 1) : "",
        closingLine: line,
      };
    }
    if (to === text.length) break;
    from = to + 1;
    line++;
  }
  return undefined;
}

export function missingDelimitersError(path?: string, text?: string): SkillError {
  let message = DELIMITER_ERROR;
  if (path !== undefined) message += ` in ${path}`;
  if (text !== undefined) {
    const first = text.slice(0, 120).split("\n", 1)[0] ?? "";
    message +=
      first.trim() === "---"
        ? " (the opening '---' line is never closed by a '---' line)"
        : ` (expected a first line '---', found ${JSON.stringify(first.length > 40 ? `${first.slice(0, 40)}…` : first)})`;
  }
  return new SkillError("PARSE_ERROR", message, path === undefined ? {} : { path });
}

/**
 * Splits a SKILL.md into its frontmatter and body.
 *
 * A UTF-8 BOM is dropped and CRLF / CR are read as LF. The first line must be `---`; the
 * frontmatter ends at the next line that is `---` or `...` (trailing blanks allowed). `body` is
 * everything after that line's newline, untrimmed.
 *
 * @throws SkillError `PARSE_ERROR` (`Failed to parse frontmatter: Missing --- frontmatter delimiters`)
 * @example
 * splitFrontmatter("---\nname: pdf\n---\n# PDF\n"); // { frontmatter: "name: pdf", body: "# PDF\n" }
 */
export function splitFrontmatter(text: string): { frontmatter: string; body: string } {
  const normalized = normalizeText(text);
  const bounds = locateFrontmatter(normalized);
  if (!bounds) throw missingDelimitersError(undefined, normalized);
  return { frontmatter: bounds.frontmatter, body: bounds.body };
}
