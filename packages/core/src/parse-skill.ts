import { isUtf8 } from "node:buffer";
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { open } from "node:fs/promises";
import { describeKind, quote, SkillError } from "./errors.js";
import { locateFrontmatter, missingDelimitersError, normalizeText } from "./frontmatter.js";
import type { Diagnostic, ParsedSkill, ParseOptions, SkillInfo, ValidateOptions } from "./types.js";
import { validateFrontmatter } from "./validate.js";
import { exceedsNodeLimit, parseYaml, repairPlainScalars } from "./yaml.js";

/** Default largest SKILL.md, in bytes. */
export const DEFAULT_MAX_BYTES = 1024 * 1024;
/** Values a frontmatter may expand to (aliases followed) before it is refused. */
const MAX_FRONTMATTER_NODES = 10_000;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Everything learned about one SKILL.md text; `error` set when it cannot become a skill. */
export interface Analysis {
  readonly skill?: SkillInfo;
  readonly frontmatter?: Readonly<Record<string, unknown>>;
  readonly diagnostics: Diagnostic[];
  readonly error?: SkillError;
}

interface AnalyzeOptions {
  readonly lenient: boolean;
  readonly invalidUtf8?: boolean;
}

function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} bytes`;
}

export function tooLargeError(location: string, size: number, maxBytes: number): SkillError {
  return new SkillError(
    "LIMIT_EXCEEDED",
    `Skill file too large: ${location} is ${formatBytes(size)}, the limit is ${formatBytes(maxBytes)} (maxBytes)`,
    { path: location },
  );
}

/** Top-level keys of frontmatter text → 1-based line in the file (the opening `---` is line 1). */
function keyLines(frontmatter: string): Map<string, number> {
  const lines = new Map<string, number>();
  const rows = frontmatter.split("\n");
  for (let i = 0; i < rows.length; i++) {
    const match = /^(?:"([^"]+)"|'([^']+)'|([^\s#:"'][^:]*?))[ \t]*:(?:[ \t]|$)/.exec(rows[i] as string);
    const key = match?.[1] ?? match?.[2] ?? match?.[3];
    if (key !== undefined && !lines.has(key)) lines.set(key, i + 2);
  }
  return lines;
}

function diagnostic(
  code: string,
  severity: Diagnostic["severity"],
  message: string,
  path: string,
  extra: { field?: string; line?: number } = {},
): Diagnostic {
  const d: Mutable<Diagnostic> = { code, severity, message, path };
  if (extra.field !== undefined) d.field = extra.field;
  if (extra.line !== undefined) d.line = extra.line;
  return d;
}

function fail(diagnostics: Diagnostic[], error: SkillError, code: string, line?: number): Analysis {
  diagnostics.push(
    diagnostic(code, "error", error.message, error.path ?? "", {
      ...(error.field === undefined ? {} : { field: error.field }),
      ...(line === undefined ? {} : { line }),
    }),
  );
  return { diagnostics, error };
}

/** Parses SKILL.md text without throwing: the shared core of parseSkill and validateSkillFile. */
export function analyzeSkill(text: string, location: string, options: AnalyzeOptions): Analysis {
  const severity = options.lenient ? "warning" : "error";
  const diagnostics: Diagnostic[] = [];
  if (options.invalidUtf8) {
    diagnostics.push(
      diagnostic(
        "invalid-utf8",
        severity,
        `${location} is not valid UTF-8; the invalid bytes were read as U+FFFD`,
        location,
      ),
    );
  }
  const normalized = normalizeText(text);
  const bounds = locateFrontmatter(normalized);
  if (!bounds)
    return fail(diagnostics, missingDelimitersError(location, normalized), "frontmatter-missing", 1);

  let parsed = parseYaml(bounds.frontmatter);
  let fmText = bounds.frontmatter;
  if (!parsed.ok) {
    const failure = parsed.failure;
    const repair = repairPlainScalars(bounds.frontmatter);
    const retried = repair ? parseYaml(repair.text) : undefined;
    const fileLine = failure.line === undefined ? undefined : failure.line + 1;
    if (repair && retried?.ok && options.lenient) {
      parsed = retried;
      fmText = repair.text;
      const lines = keyLines(repair.text);
      for (const key of repair.keys) {
        diagnostics.push(
          diagnostic(
            "yaml-repaired",
            "warning",
            `Field '${key}' holds ': ' in an unquoted value; it was read as a quoted string in ${location} (quote it to silence this warning)`,
            location,
            { field: key, ...optionalLine(lines.get(key)) },
          ),
        );
      }
    } else {
      const found = fileLine === undefined ? "" : normalized.split("\n", fileLine)[fileLine - 1];
      let message = `Failed to parse frontmatter: ${failure.reason}`;
      if (fileLine !== undefined) message += ` at line ${fileLine}`;
      message += ` in ${location}`;
      if (found) message += ` (found ${quote(found.trim())})`;
      if (repair && retried?.ok) message += `; put the value of '${repair.keys[0]}' in quotes`;
      const error = new SkillError("PARSE_ERROR", message, { path: location });
      return fail(diagnostics, error, "yaml-invalid", fileLine);
    }
  }

  const value = parsed.value ?? {};
  if (exceedsNodeLimit(value, MAX_FRONTMATTER_NODES)) {
    const error = new SkillError(
      "LIMIT_EXCEEDED",
      `Failed to parse frontmatter: it expands to more than ${MAX_FRONTMATTER_NODES} values (YAML aliases) in ${location}`,
      { path: location },
    );
    return fail(diagnostics, error, "frontmatter-too-large", 1);
  }
  if (typeof value !== "object" || Array.isArray(value) || value instanceof Date) {
    const error = new SkillError(
      "PARSE_ERROR",
      `Failed to parse frontmatter: expected a mapping of fields (name: …, description: …), found ${describeKind(value)} ${quote(value)} in ${location}`,
      { path: location },
    );
    return fail(diagnostics, error, "frontmatter-not-mapping", 2);
  }
  const frontmatter = value as Record<string, unknown>;

  let lines: Map<string, number> | undefined;
  const lineOf = (field: string | undefined) => {
    if (field === undefined) return undefined;
    lines ??= keyLines(fmText);
    return lines.get(field);
  };
  for (const d of validateFrontmatter(frontmatter, location, { strict: !options.lenient })) {
    const line = lineOf(d.field) ?? (d.field === "name" || d.field === "description" ? 1 : undefined);
    diagnostics.push(line === undefined ? d : { ...d, line });
  }

  const keys = Object.keys(frontmatter);
  const found = keys.length > 0 ? `found fields: ${keys.join(", ")}` : "no fields found";
  for (const field of ["name", "description"] as const) {
    const raw = frontmatter[field];
    if (raw === undefined || raw === null || (typeof raw === "string" && raw.trim() === "")) {
      const why = raw === undefined || raw === null ? found : `the value is empty; ${found}`;
      const error = new SkillError(
        "MISSING_FIELD",
        `Missing frontmatter field '${field}' in ${location} (${why})`,
        {
          path: location,
          field,
        },
      );
      return { diagnostics, frontmatter, error };
    }
    if (typeof raw !== "string") {
      const error = new SkillError(
        "INVALID_FIELD",
        `Invalid frontmatter field '${field}' in ${location}: expected a string, found ${describeKind(raw)} ${quote(raw)}`,
        { path: location, field },
      );
      return { diagnostics, frontmatter, error };
    }
  }

  const skill: SkillInfo = Object.freeze({
    name: (frontmatter.name as string).trim(),
    description: (frontmatter.description as string).trim(),
    location,
    content: bounds.body,
    frontmatter,
  });
  return { skill, frontmatter, diagnostics };
}

function optionalLine(line: number | undefined): { line?: number } {
  return line === undefined ? {} : { line };
}

function checkTextSize(text: string, location: string, maxBytes: number): void {
  if (text.length * 3 <= maxBytes) return;
  const size = Buffer.byteLength(text, "utf8");
  if (size > maxBytes) throw tooLargeError(location, size, maxBytes);
}

/**
 * Parses the text of a SKILL.md. `location` is the absolute path of the file; it becomes
 * `SkillInfo.location` and names the file in every message.
 *
 * @throws SkillError `PARSE_ERROR` (no delimiters, invalid YAML, not a mapping), `MISSING_FIELD`,
 * `INVALID_FIELD`, `LIMIT_EXCEEDED`
 * @example
 * const { skill, diagnostics } = parseSkill("---\nname: pdf\ndescription: Read PDFs\n---\n# PDF\n", "/s/pdf/SKILL.md");
 * skill.name; // "pdf"
 */
export function parseSkill(text: string, location: string, options: ParseOptions = {}): ParsedSkill {
  checkTextSize(text, location, options.maxBytes ?? DEFAULT_MAX_BYTES);
  return toParsed(analyzeSkill(text, location, { lenient: options.lenient ?? true }));
}

function toParsed(analysis: Analysis): ParsedSkill {
  if (analysis.error || !analysis.skill) throw analysis.error;
  return { skill: analysis.skill, diagnostics: analysis.diagnostics };
}

/** A SKILL.md read from disk: its text, whether it was valid UTF-8, and its file identity. */
export interface SkillFileText {
  readonly text: string;
  readonly invalidUtf8: boolean;
  /** `dev:ino` of the file: the same file reached through two paths has the same id. */
  readonly id: string;
}

function readError(path: string, error: unknown): SkillError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT" || code === "ENOTDIR") {
    return new SkillError("NOT_FOUND", `Skill file not found: ${path}`, { path, cause: error });
  }
  const reason = code === "EISDIR" ? "it is a directory" : ((error as Error).message ?? String(error));
  return new SkillError("READ_ERROR", `Failed to read skill file: ${path} (${reason})`, {
    path,
    cause: error,
  });
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  return "not a regular file";
}

function checkStats(path: string, stats: Stats, maxBytes: number): void {
  if (!stats.isFile()) {
    throw new SkillError(
      "READ_ERROR",
      `Failed to read skill file: ${path} (expected a file, found ${kindOf(stats)})`,
      {
        path,
      },
    );
  }
  if (stats.size > maxBytes) throw tooLargeError(path, stats.size, maxBytes);
}

function decode(buffer: Buffer, filled: number, stats: Stats): SkillFileText {
  const bytes = filled === buffer.length ? buffer : buffer.subarray(0, filled);
  return { text: bytes.toString("utf8"), invalidUtf8: !isUtf8(bytes), id: `${stats.dev}:${stats.ino}` };
}

const LF = 0x0a;
const CR = 0x0d;

/** True when bytes [from, to) are `---` or `...` then only blanks. */
function isDelimiterBytes(bytes: Buffer, from: number, to: number, allowDots: boolean): boolean {
  if (to - from < 3) return false;
  const c = bytes[from];
  if (!(c === 0x2d || (allowDots && c === 0x2e)) || bytes[from + 1] !== c || bytes[from + 2] !== c)
    return false;
  for (let i = from + 3; i < to; i++) if (bytes[i] !== 0x20 && bytes[i] !== 0x09) return false;
  return true;
}

/**
 * Byte offset just past the line that closes the frontmatter in `bytes[0, length)`, or 0 when
 * it is not there (then the caller reads the whole file). Mirrors locateFrontmatter on bytes,
 * so only the frontmatter is decoded. A UTF-8 BOM, LF, CRLF and CR are handled.
 */
function frontmatterEnd(bytes: Buffer, length: number): number {
  let start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  let first = true;
  while (start < length) {
    let end = start;
    while (end < length && bytes[end] !== LF && bytes[end] !== CR) end++;
    if (end === length) return 0; // the line may continue past the head
    if (first) {
      if (!isDelimiterBytes(bytes, start, end, false)) return 0;
      first = false;
    } else if (isDelimiterBytes(bytes, start, end, true)) {
      return end;
    }
    start = bytes[end] === CR && bytes[end + 1] === LF ? end + 2 : end + 1;
  }
  return 0;
}

// Synchronous reads decode into a string straight away, so one scratch buffer serves them
// all: thousands of fresh buffers would each count as external memory and provoke full GCs.
let scratch = Buffer.allocUnsafeSlow(64 * 1024);
function scratchBuffer(size: number): Buffer {
  if (scratch.length < size) scratch = Buffer.allocUnsafeSlow(Math.max(size, scratch.length * 2));
  return scratch;
}

// Non-blocking open: a FIFO named SKILL.md must not hang the reader waiting for a writer.
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/**
 * Reads a SKILL.md, refusing it before reading when it is larger than `maxBytes`, and never
 * blocking on a FIFO.
 */
export async function readSkillFile(path: string, maxBytes = DEFAULT_MAX_BYTES): Promise<SkillFileText> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, OPEN_FLAGS);
  } catch (error) {
    throw readError(path, error);
  }
  try {
    const stats = await handle.stat();
    checkStats(path, stats, maxBytes);
    const buffer = Buffer.allocUnsafe(stats.size);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return decode(buffer, filled, stats);
  } catch (error) {
    throw SkillError.isInstance(error) ? error : readError(path, error);
  } finally {
    await handle.close().catch(() => {});
  }
}

/**
 * The synchronous twin of {@link readSkillFile}, for bulk loads: on local disks a sync read
 * of a small file costs a fraction of the promise round trips (the service yields to the
 * event loop between batches).
 *
 * With `headBytes`, reads only that much when it already holds the whole frontmatter (the
 * text is then cut after its last complete line and `complete` is false): listing skills
 * needs the frontmatter, not the body.
 */
export function readSkillFileSync(
  path: string,
  maxBytes = DEFAULT_MAX_BYTES,
  headBytes = Number.POSITIVE_INFINITY,
): SkillFileText & { readonly complete: boolean } {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    throw readError(path, error);
  }
  try {
    const stats = fstatSync(fd);
    checkStats(path, stats, maxBytes);
    if (stats.size > headBytes) {
      const head = scratchBuffer(headBytes);
      const got = readSync(fd, head, 0, headBytes, 0);
      const end = frontmatterEnd(head, got);
      if (end > 0) return { ...decode(head, end, stats), complete: false };
    }
    const buffer = scratchBuffer(stats.size);
    let filled = 0;
    while (filled < stats.size) {
      const bytesRead = readSync(fd, buffer, filled, stats.size - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return { ...decode(buffer.subarray(0, stats.size), filled, stats), complete: true };
  } catch (error) {
    throw SkillError.isInstance(error) ? error : readError(path, error);
  } finally {
    try {
      closeSync(fd);
    } catch {
      // Closing a read-only descriptor cannot lose data.
    }
  }
}

/**
 * Reads the body of a SKILL.md now: what a registry's lazily loaded `content` returns.
 *
 * @throws SkillError when the file can no longer be read or has lost its frontmatter
 */
export function readSkillBody(path: string, maxBytes = DEFAULT_MAX_BYTES): string {
  const file = readSkillFileSync(path, maxBytes);
  const normalized = normalizeText(file.text);
  const bounds = locateFrontmatter(normalized);
  if (!bounds) throw missingDelimitersError(path, normalized);
  return bounds.body;
}

/**
 * Reads and parses one SKILL.md.
 *
 * @throws SkillError `NOT_FOUND` (no such file), `READ_ERROR` (a directory, unreadable),
 * `LIMIT_EXCEEDED` (over `maxBytes`, refused before reading), and every error of {@link parseSkill}
 * @example
 * const { skill } = await loadSkillFile("/home/me/.agents/skills/pdf/SKILL.md");
 */
export async function loadSkillFile(path: string, options: ParseOptions = {}): Promise<ParsedSkill> {
  const file = await readSkillFile(path, options.maxBytes ?? DEFAULT_MAX_BYTES);
  return toParsed(
    analyzeSkill(file.text, path, { lenient: options.lenient ?? true, invalidUtf8: file.invalidUtf8 }),
  );
}

const READ_CODES: Readonly<Record<string, string>> = {
  NOT_FOUND: "file-not-found",
  READ_ERROR: "file-unreadable",
  LIMIT_EXCEEDED: "file-too-large",
};

/**
 * Validates a SKILL.md file against the Agent Skills rules. Never throws for a bad file: a
 * missing, unreadable or unparseable file is itself an `error` diagnostic (`file-not-found`,
 * `file-unreadable`, `file-too-large`, `frontmatter-missing`, `yaml-invalid`,
 * `frontmatter-not-mapping`). Spec findings are warnings, or errors with `strict`.
 *
 * @example
 * const findings = await validateSkillFile("skills/pdf/SKILL.md", { strict: true });
 * const ok = findings.every((d) => d.severity !== "error");
 */
export async function validateSkillFile(path: string, options: ValidateOptions = {}): Promise<Diagnostic[]> {
  let file: SkillFileText;
  try {
    file = await readSkillFile(path);
  } catch (error) {
    const e = SkillError.isInstance(error) ? error : readError(path, error);
    return [diagnostic(READ_CODES[e.code] ?? "file-unreadable", "error", e.message, path)];
  }
  const analysis = analyzeSkill(file.text, path, { lenient: !options.strict, invalidUtf8: file.invalidUtf8 });
  return analysis.diagnostics;
}
