import { homedir } from "node:os";
import { isAbsolute, relative, sep } from "node:path";
import { printable } from "@skill/core";
import pc from "picocolors";

type Colors = ReturnType<typeof pc.createColors>;

/** The terminal: the only place in @skill/* that prints. */
export interface Output {
  readonly json: boolean;
  readonly verbose: boolean;
  readonly color: Colors;
  /** stdout is a terminal, or SKILL_FORCE_TTY says to write as if it were. */
  readonly isTTY: boolean;
  /** Columns of the terminal; SKILL_FORCE_TTY's number, else $COLUMNS, else unlimited when stdout is not a terminal. */
  readonly width: number;
  line(text?: string): void;
  error(text: string): void;
  /** Writes one JSON document to stdout. */
  data(value: unknown): void;
  /** Writes one compact JSON line to stdout (streams such as `watch`). */
  jsonLine(value: unknown): void;
}

export function createOutput(options: { json?: boolean; color?: boolean; verbose?: boolean }): Output {
  exitQuietlyOnClosedPipe();
  const terminal = process.stdout.isTTY === true;
  // SKILL_FORCE_TTY (as gh's GH_FORCE_TTY): output laid out for a terminal in a pipe, its value
  // the width when it is a number.
  const forced = process.env.SKILL_FORCE_TTY ?? "";
  const isTTY = terminal || forced !== "";
  const colorOn =
    options.color !== false && !options.json && !process.env.NO_COLOR && pc.isColorSupported && terminal;
  return {
    json: options.json === true,
    verbose: options.verbose === true,
    color: pc.createColors(colorOn),
    isTTY,
    width: terminal
      ? process.stdout.columns || 100 // 0 from a terminal that does not say
      : Number(forced) || Number(process.env.COLUMNS) || (isTTY ? 80 : Number.POSITIVE_INFINITY),
    line: (text = "") => process.stdout.write(`${text}\n`),
    error: (text) => process.stderr.write(`${text}\n`),
    data: (value) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
    jsonLine: (value) => process.stdout.write(`${JSON.stringify(value)}\n`),
  };
}

/**
 * A path for people: relative to cwd when inside it, `~/…` when inside home. Control
 * characters in folder names are escaped: a path is printed, never interpreted.
 */
export function displayPath(path: string, cwd: string, home = homedir()): string {
  if (!isAbsolute(path)) return printable(path); // a URI (skill://…) from a non-file source
  const fromCwd = below(cwd, path);
  if (fromCwd) return printable(fromCwd);
  const fromHome = below(home, path);
  if (fromHome) return printable(`~${sep}${fromHome}`);
  return printable(path);
}

/** An absolute POSIX path with no empty, `.` or `..` segment and no trailing slash. */
const PLAIN_PATH = /^(?:\/(?!\.\.?(?:\/|$))[^/]+)+$/;

/**
 * `to` relative to `from` when it lies below it, else "". For plain POSIX paths (what discovery
 * reports) a prefix test gives what `path.relative` does, without its two `resolve` calls: a
 * list of a hundred skills called it two hundred times.
 */
function below(from: string, to: string): string {
  const rel =
    sep === "/" && PLAIN_PATH.test(from) && PLAIN_PATH.test(to)
      ? to.startsWith(`${from}/`)
        ? to.slice(from.length + 1)
        : ""
      : relative(from, to);
  return rel && !rel.startsWith("..") && !rel.startsWith(sep) ? rel : "";
}

/**
 * Text in which every UTF-16 unit is one grapheme one column wide: printable ASCII, Latin-1
 * (without the soft hyphen), Latin Extended-A/B, IPA and spacing modifiers, Greek and Cyrillic
 * (without its combining marks), the common punctuation of U+2010–U+2027 and U+2030–U+205E
 * (dashes, quotes, `…`, `‰`), arrows, mathematical operators and box drawing. output.test.ts
 * checks each against string-width. Real descriptions are almost all this: string-width (its
 * module alone costs tens of milliseconds) is left for the rest.
 */
const NARROW =
  /^[\u0020-\u007e\u00a0-\u00ac\u00ae-\u02ff\u0370-\u0482\u048a-\u04ff\u2010-\u2027\u2030-\u205e\u2190-\u22ff\u2500-\u257f]*$/;
/** {@link NARROW} text that may also hold C0 controls and DEL, which take no column; not ESC (ANSI codes). */
const NARROW_OR_CONTROL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: controls take no column, as in string-width
  /^[\u0000-\u001a\u001c-\u007e\u00a0-\u00ac\u00ae-\u02ff\u0370-\u0482\u048a-\u04ff\u2010-\u2027\u2030-\u205e\u2190-\u22ff\u2500-\u257f]*$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: see NARROW_OR_CONTROL
const CONTROLS = /[\u0000-\u001f\u007f]/g;

let fullWidth: ((text: string) => number) | undefined;
let graphemes: Intl.Segmenter | undefined;

/**
 * string-width, loaded on first use: building its `Intl.Segmenter` and Unicode property
 * regexes (ICU data, the RGI emoji set) costs tens of milliseconds, which a command whose
 * text is all {@link NARROW} never pays. `require` keeps the load synchronous; the bundle
 * (tsup) includes the module and evaluates it only when this runs.
 */
function loadFullWidth(): (text: string) => number {
  fullWidth ??= (require("string-width") as typeof import("string-width")).default;
  return fullWidth;
}

function segments(text: string): string[] {
  if (NARROW.test(text)) return [...text];
  return Array.from(graphemesOf(text), (s) => s.segment);
}

/** The graphemes of `text`, found as they are read: a loop that stops early pays for what it read. */
function graphemesOf(text: string): Intl.Segments {
  graphemes ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  return graphemes.segment(text);
}

/** Columns `text` takes on a terminal: CJK and emoji count two, combining marks none. */
export function width(text: string): number {
  if (NARROW.test(text)) return text.length;
  if (NARROW_OR_CONTROL.test(text)) return text.replace(CONTROLS, "").length;
  return loadFullWidth()(text);
}

/**
 * `min(width(text), limit)`, measuring no more of `text` than it takes: a description of
 * thousands of characters in a table column of forty costs what its first forty do.
 */
export function widthUpTo(text: string, limit: number): number {
  if (NARROW.test(text)) return Math.min(text.length, limit);
  // Colour codes span graphemes: string-width strips them from the whole text.
  if (limit === Number.POSITIVE_INFINITY || text.includes("\u001b")) return Math.min(width(text), limit);
  let used = 0;
  for (const { segment } of graphemesOf(text)) {
    used += width(segment);
    if (used >= limit) return limit;
  }
  return used;
}

/**
 * Cuts text to `columns` terminal columns, with an ellipsis; collapses whitespace first and
 * escapes control characters. Cuts between graphemes, so an emoji or an accent stays whole.
 */
export function cut(text: string, columns: number): string {
  return fitWidth(printable(text.replace(/\s+/g, " ").trim()), columns);
}

/** Cuts already printable text to `columns` terminal columns, with an ellipsis; spacing is kept. */
export function fitWidth(flat: string, columns: number): string {
  if (columns === Number.POSITIVE_INFINITY || widthUpTo(flat, columns + 1) <= columns) return flat;
  if (columns < 1) return "";
  if (NARROW.test(flat)) return `${flat.slice(0, columns - 1)}…`;
  let out = "";
  let used = 0;
  for (const { segment } of graphemesOf(flat)) {
    const w = width(segment);
    if (used + w > columns - 1) break;
    out += segment;
    used += w;
  }
  return `${out}…`;
}

/** Like {@link cut}, but keeps the end: `…/skills/pdf/SKILL.md`. For paths. */
export function cutStart(text: string, columns: number): string {
  const flat = printable(text);
  if (columns === Number.POSITIVE_INFINITY || width(flat) <= columns) return flat;
  if (columns < 1) return "";
  const parts = segments(flat);
  let out = "";
  let used = 0;
  for (let i = parts.length - 1; i >= 0; i--) {
    const w = width(parts[i] as string);
    if (used + w > columns - 1) break;
    out = (parts[i] as string) + out;
    used += w;
  }
  return `…${out}`;
}

function visibleLength(text: string): number {
  return width(text); // string-width ignores ANSI colour codes
}

/**
 * Multi-line text from a file (a skill body) made safe for a terminal: every control
 * character but line breaks and tabs is escaped, as {@link printable} does for one line.
 */
export function printableText(text: string): string {
  return text
    .split("\n")
    .map((line) => line.split("\t").map(printable).join("\t"))
    .join("\n");
}

/**
 * A long list for people: the first `max` items, then `and N more (--verbose lists all)`.
 * Items are escaped: they often come from skill files.
 */
export function capList(items: readonly string[], verbose: boolean, max = 20): string {
  if (items.length === 0) return "none";
  const shown = verbose ? items : items.slice(0, max);
  const rest = items.length - shown.length;
  const text = shown.map(printable).join(", ");
  return rest > 0 ? `${text} and ${rest} more (--verbose lists all)` : text;
}

let guarded = false;

/**
 * A closed pipe (`skill list | head -1`) is a normal way to stop reading: stop quietly with
 * exit 0 instead of printing `Error: write EPIPE` and a stack.
 */
export function exitQuietlyOnClosedPipe(): void {
  if (guarded) return;
  guarded = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EPIPE") process.exit(0);
      throw error;
    });
  }
}

/** Left-aligned columns separated by two spaces; the last column is not padded. */
export function table(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, visibleLength(cell));
    });
  }
  return rows.map((row) =>
    row
      .map((cell, i) =>
        i === row.length - 1 ? cell : cell + " ".repeat((widths[i] ?? 0) - visibleLength(cell)),
      )
      .join("  ")
      .trimEnd(),
  );
}

export { formatBytes } from "@skill/core";

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
