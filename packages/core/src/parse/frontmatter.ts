import { SkillError } from "../spec/errors.js";

const DELIMITER_ERROR = "Failed to parse frontmatter: Missing --- frontmatter delimiters";

const LF = 0x0a;
const CR = 0x0d;
const DASH = 0x2d;
const DOT = 0x2e;
const SPACE = 0x20;
const TAB = 0x09;

/** Random access to code units (a string) or bytes (a buffer): the scanner reads only ASCII. */
type CodeAt = (index: number) => number | undefined;

/** Where the delimiter lines are, as offsets into the scanned text or bytes. */
export interface DelimiterOffsets {
  /** Start of the first frontmatter line (just past the opening line's line ending). */
  readonly start: number;
  /** Start of the closing line: the frontmatter is `[start, close)`, its last line ending included. */
  readonly close: number;
  /** End of the closing line, before its line ending. */
  readonly closeEnd: number;
  /** Start of the body: past the closing line's line ending (or the end). */
  readonly body: number;
  /** 1-based line of the closing delimiter. */
  readonly closingLine: number;
}

/** True when `[from, to)` is `---` (or, closing, `...`) followed only by spaces and tabs. */
function isDelimiter(at: CodeAt, from: number, to: number, allowDots: boolean): boolean {
  if (to - from < 3) return false;
  const c = at(from);
  if (!(c === DASH || (allowDots && c === DOT)) || at(from + 1) !== c || at(from + 2) !== c) return false;
  for (let i = from + 3; i < to; i++) {
    const b = at(i);
    if (b !== SPACE && b !== TAB) return false;
  }
  return true;
}

/**
 * The one place the frontmatter delimiters are found, for text and for bytes alike. Only
 * `\n`, `\r\n` and `\r` end a line (never U+2028, U+2029, a form feed or NEL); the opening line
 * is exactly `---`, the closing line `---` or `...`, each with trailing spaces or tabs only.
 *
 * `complete: false` means `[from, length)` is only the head of a longer file: a line that
 * reaches the end may continue, so it neither opens nor closes anything.
 */
export function findDelimiters(
  at: CodeAt,
  from: number,
  length: number,
  complete = true,
): DelimiterOffsets | undefined {
  let lineStart = from;
  let line = 1;
  let start = -1;
  while (lineStart <= length) {
    let end = lineStart;
    while (end < length) {
      const c = at(end);
      if (c === LF || c === CR) break;
      end++;
    }
    if (end === length && !complete) return undefined;
    const next = end === length ? length : at(end) === CR && at(end + 1) === LF ? end + 2 : end + 1;
    if (start === -1) {
      if (!isDelimiter(at, lineStart, end, false) || end === length) return undefined;
      start = next;
    } else if (isDelimiter(at, lineStart, end, true)) {
      return { start, close: lineStart, closeEnd: end, body: next, closingLine: line };
    }
    if (end === length) return undefined;
    lineStart = next;
    line++;
  }
  return undefined;
}

/**
 * Byte offset just past the closing delimiter line (before its line ending) in the head
 * `bytes[0, length)` of a file, or 0 when the head does not hold the whole frontmatter.
 * Listing a skill decodes only that much.
 */
export function frontmatterEndInBytes(bytes: Uint8Array, length: number): number {
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const head = bytes.subarray(0, length);
  if (head.indexOf(CR) === -1) return closeEndInBytes(head, bom);
  const found = findDelimiters((i) => bytes[i], bom, length, false);
  return found ? found.closeEnd : 0;
}

/** True when `bytes[from, to)` is `---` (or, closing, `...`) followed only by spaces and tabs. */
function isDelimiterBytes(bytes: Uint8Array, from: number, to: number, allowDots: boolean): boolean {
  if (to - from < 3) return false;
  const c = bytes[from];
  if (!(c === DASH || (allowDots && c === DOT)) || bytes[from + 1] !== c || bytes[from + 2] !== c)
    return false;
  for (let i = from + 3; i < to; i++) {
    const b = bytes[i];
    if (b !== SPACE && b !== TAB) return false;
  }
  return true;
}

/**
 * `findDelimiters(…, complete: false)` of a head without `\r`, line by line with `indexOf`:
 * the closing line's end, or 0 (a line that reaches the end may continue).
 */
function closeEndInBytes(head: Uint8Array, from: number): number {
  const first = head.indexOf(LF, from);
  if (first === -1 || !isDelimiterBytes(head, from, first, false)) return 0;
  for (let lineStart = first + 1; ; ) {
    const end = head.indexOf(LF, lineStart);
    if (end === -1) return 0;
    if (isDelimiterBytes(head, lineStart, end, true)) return end;
    lineStart = end + 1;
  }
}

/** Drops a UTF-8 BOM and reads CRLF and lone CR line endings as LF. */
export function normalizeText(text: string): string {
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const rest = start ? text.slice(start) : text;
  return rest.includes("\r") ? rest.replace(/\r\n?/g, "\n") : rest;
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

/** True when `text[from, to)` is `---` (or, closing, `...`) followed only by spaces and tabs. */
function isDelimiterLine(text: string, from: number, to: number, allowDots: boolean): boolean {
  if (to - from < 3) return false;
  const c = text.charCodeAt(from);
  if (!(c === DASH || (allowDots && c === DOT))) return false;
  if (text.charCodeAt(from + 1) !== c || text.charCodeAt(from + 2) !== c) return false;
  for (let i = from + 3; i < to; i++) {
    const b = text.charCodeAt(i);
    if (b !== SPACE && b !== TAB) return false;
  }
  return true;
}

/**
 * {@link findDelimiters} of a whole text without `\r`, line by line with `indexOf`: what
 * every listed SKILL.md goes through, so it must not cost a call per character.
 */
function delimitersInText(text: string): DelimiterOffsets | undefined {
  const length = text.length;
  const first = text.indexOf("\n");
  if (first === -1 || !isDelimiterLine(text, 0, first, false)) return undefined;
  const start = first + 1;
  let line = 2;
  for (let lineStart = start; ; line++) {
    const found = text.indexOf("\n", lineStart);
    const end = found === -1 ? length : found;
    if (isDelimiterLine(text, lineStart, end, true)) {
      return {
        start,
        close: lineStart,
        closeEnd: end,
        body: found === -1 ? length : end + 1,
        closingLine: line,
      };
    }
    if (found === -1) return undefined;
    lineStart = end + 1;
  }
}

/** Finds the frontmatter in text already passed through {@link normalizeText}. */
export function locateFrontmatter(text: string): FrontmatterBounds | undefined {
  const found = text.includes("\r")
    ? findDelimiters((i) => (i < text.length ? text.charCodeAt(i) : undefined), 0, text.length)
    : delimitersInText(text);
  if (!found) return undefined;
  return {
    frontmatter: found.close > found.start ? text.slice(found.start, found.close - 1) : "",
    body: text.slice(found.body),
    closingLine: found.closingLine,
  };
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
 * frontmatter ends at the next line that is `---` or `...` (trailing spaces or tabs allowed).
 * `body` is everything after that line's newline, untrimmed.
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
