import type { SkillErrorCode } from "./types.js";

/** Extra facts attached to a {@link SkillError}; every field is optional. */
export interface SkillErrorDetails {
  /** The underlying error (an `fs` error, a YAML error, a network error…). */
  readonly cause?: unknown;
  /** The file or directory concerned, absolute where known. */
  readonly path?: string;
  /** The frontmatter field or config key path concerned, e.g. `name` or `permission.skill.internal-*`. */
  readonly field?: string;
  /** The URL concerned (remote packs). */
  readonly url?: string;
  /** The HTTP status code that came back (with `HTTP_ERROR`). */
  readonly status?: number;
}

const MARKER = Symbol.for("skill.error");

/**
 * The one error type of @skill/*. Messages are written for people: what failed, what was
 * expected, a truncated quote of what was found, and the path.
 *
 * Use {@link SkillError.isInstance} rather than `instanceof`: two copies of `@skill/core`
 * in one install (normal with independently published packages) have two classes.
 */
export class SkillError extends Error {
  readonly code: SkillErrorCode;
  declare readonly path?: string;
  declare readonly field?: string;
  declare readonly url?: string;
  declare readonly status?: number;

  constructor(code: SkillErrorCode, message: string, details: SkillErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "SkillError";
    this.code = code;
    if (details.path !== undefined) this.path = details.path;
    if (details.field !== undefined) this.field = details.field;
    if (details.url !== undefined) this.url = details.url;
    if (details.status !== undefined) this.status = details.status;
    Object.defineProperty(this, MARKER, { value: true });
  }

  /** True for a SkillError from any copy of `@skill/core` (checks a `Symbol.for` marker). */
  static isInstance(value: unknown): value is SkillError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}

/**
 * Quotes a value for a message: JSON-style quotes, at most `max` characters, an ellipsis when
 * cut, and unprintable characters escaped (see {@link printable}).
 *
 * @example
 * quote("Use when: x"); // "\"Use when: x\""
 */
export function quote(value: unknown, max = 60): string {
  let text: string;
  if (typeof value === "string") text = value;
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      // Too deep to print (JSON nested a million levels deep): its kind says enough.
      text = Array.isArray(value) ? "[…]" : "{…}";
    }
  }
  const chars = [...text.slice(0, max * 2)];
  const shown = chars.length > max ? `${chars.slice(0, max).join("")}…` : chars.join("");
  return printable(typeof value === "string" ? JSON.stringify(shown) : shown);
}

// Control characters (C0, DEL, C1), lone surrogates, line/paragraph separators and bidi
// overrides: a hostile file must not smuggle terminal escapes or reordered text into output.
const UNPRINTABLE = /[\p{Cc}\p{Cs}\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/**
 * Makes text from a skill file, a manifest or a server safe to print: control characters,
 * lone surrogates and bidi overrides become `\uXXXX` escapes.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`);
}

/** Names a value's kind for messages: `a number`, `a list`, `a mapping`, `null`… */
export function describeKind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (value instanceof Date) return "a date";
  switch (typeof value) {
    case "string":
      return "a string";
    case "number":
      return "a number";
    case "boolean":
      return "a boolean";
    case "object":
      return "a mapping";
    default:
      return typeof value;
  }
}
