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
  readonly isTTY: boolean;
  /** Columns of the terminal; $COLUMNS or unlimited when stdout is not a terminal. */
  readonly width: number;
  line(text?: string): void;
  error(text: string): void;
  /** Writes one JSON document to stdout. */
  data(value: unknown): void;
  /** Writes one compact JSON line to stdout (streams such as `watch`). */
  jsonLine(value: unknown): void;
}

export function createOutput(options: { json?: boolean; color?: boolean; verbose?: boolean }): Output {
  const isTTY = process.stdout.isTTY === true;
  const colorOn =
    options.color !== false && !options.json && !process.env.NO_COLOR && pc.isColorSupported && isTTY;
  return {
    json: options.json === true,
    verbose: options.verbose === true,
    color: pc.createColors(colorOn),
    isTTY,
    width: isTTY ? (process.stdout.columns ?? 100) : Number(process.env.COLUMNS) || Number.POSITIVE_INFINITY,
    line: (text = "") => process.stdout.write(`${text}\n`),
    error: (text) => process.stderr.write(`${text}\n`),
    data: (value) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
    jsonLine: (value) => process.stdout.write(`${JSON.stringify(value)}\n`),
  };
}

/** A path for people: relative to cwd when inside it, `~/…` when inside home. */
export function displayPath(path: string, cwd: string, home = homedir()): string {
  if (!isAbsolute(path)) return path; // a URI (skill://…) from a non-file source
  const fromCwd = relative(cwd, path);
  if (fromCwd && !fromCwd.startsWith("..") && !fromCwd.startsWith(sep)) return fromCwd;
  const fromHome = relative(home, path);
  if (fromHome && !fromHome.startsWith("..") && !fromHome.startsWith(sep)) return `~${sep}${fromHome}`;
  return path;
}

/** Cuts text to `width` code points, with an ellipsis; collapses whitespace first. */
export function cut(text: string, width: number): string {
  const flat = printable(text.replace(/\s+/g, " ").trim());
  const chars = [...flat];
  if (chars.length <= width) return flat;
  return width <= 1 ? "…".slice(0, width) : `${chars.slice(0, width - 1).join("")}…`;
}

function visibleLength(text: string): number {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: strips ANSI colour codes
  return [...text.replace(/\u001b\[[0-9;]*m/g, "")].length;
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
