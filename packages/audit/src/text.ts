/** Text of one file with its line starts, for turning offsets into 1-based lines. */
export class TextFile {
  readonly text: string;
  private readonly starts: number[];

  /** `text` has CRLF and lone CR already read as LF. */
  constructor(text: string) {
    this.text = text;
    const starts = [0];
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
    this.starts = starts;
  }

  get lineCount(): number {
    return this.starts.length;
  }

  /** 1-based line holding `offset`. */
  lineAt(offset: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.starts[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  /** Offset where 1-based `line` starts. */
  lineStart(line: number): number {
    return this.starts[line - 1] ?? this.text.length;
  }

  /** Text of 1-based `line`, without its newline. */
  line(line: number): string {
    const start = this.lineStart(line);
    const next = this.starts[line];
    return this.text.slice(start, next === undefined ? this.text.length : next - 1);
  }
}

/** CRLF and lone CR read as LF, as @skill/core reads SKILL.md. */
export function normalizeNewlines(text: string): string {
  return text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** A fenced code block of a markdown file: 1-based lines of its fences and its info string. */
export interface Fence {
  /** Line of the opening fence. */
  readonly open: number;
  /** Line of the closing fence, or the last line when the block is never closed. */
  readonly close: number;
  readonly info: string;
  /** False when no closing fence was found: the block runs to the end of the file. */
  readonly closed: boolean;
}

/** Fenced code blocks (CommonMark ``` and ~~~ fences) of markdown text, from line `first` on. */
export function fences(file: TextFile, first = 1): Fence[] {
  const found: Fence[] = [];
  let open: { line: number; marker: string; info: string } | undefined;
  for (let n = first; n <= file.lineCount; n++) {
    const match = FENCE.exec(file.line(n));
    if (!match) continue;
    const marker = match[1] ?? "";
    const rest = match[2] ?? "";
    if (open === undefined) {
      // A backtick fence's info string may not hold a backtick (that is inline code).
      if (marker[0] === "`" && rest.includes("`")) continue;
      open = { line: n, marker, info: rest.trim() };
    } else if (marker[0] === open.marker[0] && marker.length >= open.marker.length && rest.trim() === "") {
      found.push({ open: open.line, close: n, info: open.info, closed: true });
      open = undefined;
    }
  }
  if (open !== undefined)
    found.push({ open: open.line, close: file.lineCount, info: open.info, closed: false });
  return found;
}

/**
 * Per 1-based line (index 0 unused): true when the line is part of a closed fenced code
 * block. A fence never closed does not count: it would turn everything after it into "code".
 */
export function codeLines(file: TextFile, blocks: readonly Fence[]): boolean[] {
  const code = new Array<boolean>(file.lineCount + 1).fill(false);
  for (const b of blocks) if (b.closed) for (let n = b.open; n <= b.close; n++) code[n] = true;
  return code;
}

/** A quote for a message: one line, at most `max` characters, with an ellipsis when cut. */
export function excerpt(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const chars = [...flat];
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : flat;
}

/** The parts of a markdown file that are code, not prose. */
export interface CodeParts {
  /** Per 1-based line (index 0 unused): the whole line is code (a fenced block, the frontmatter). */
  readonly lines: readonly boolean[];
  /** Offsets `[start, end)` of the insides of inline code spans on the other lines, in order. */
  readonly spans: readonly (readonly [number, number])[];
}

const CODE_SPAN = /(`{1,3})([^`]*?)\1/g;

/** `lines` (code lines, as from {@link codeLines}) and the inline code spans of every other line. */
export function codeParts(file: TextFile, lines: readonly boolean[]): CodeParts {
  const spans: [number, number][] = [];
  for (let n = 1; n <= file.lineCount; n++) {
    if (lines[n]) continue;
    const text = file.line(n);
    if (!text.includes("`")) continue;
    const offset = file.lineStart(n);
    CODE_SPAN.lastIndex = 0;
    for (let m = CODE_SPAN.exec(text); m !== null; m = CODE_SPAN.exec(text)) {
      const start = offset + m.index + (m[1] ?? "").length;
      spans.push([start, start + (m[2] ?? "").length]);
    }
  }
  return { lines, spans };
}

/**
 * The piece of code holding offset `index`, as `[start, end)`: its line when the line is code,
 * else the code span around it; undefined when `index` is in prose. Without `parts` the
 * whole file is code, and the piece is the line.
 */
export function codeAt(
  file: TextFile,
  parts: CodeParts | undefined,
  index: number,
): [number, number] | undefined {
  const line = file.lineAt(index);
  if (parts === undefined || parts.lines[line]) {
    const start = file.lineStart(line);
    return [start, start + file.line(line).length];
  }
  let lo = 0;
  let hi = parts.spans.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const span = parts.spans[mid] as readonly [number, number];
    if (index < span[0]) hi = mid - 1;
    else if (index >= span[1]) lo = mid + 1;
    else return [span[0], span[1]];
  }
  return undefined;
}
