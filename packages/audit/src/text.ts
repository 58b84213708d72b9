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
