import type { Diagnostic, ValidationTarget } from "../spec/types.js";

/** Findings that stop a skill from loading: errors even in lenient mode. */
const BLOCKING = new Set([
  "name-missing",
  "name-not-string",
  "name-empty",
  "description-missing",
  "description-not-string",
  "description-empty",
]);

/**
 * How hard a finding lands: `finding` is a warning, or an error with `strict`; `error` is an
 * error in every mode (the target refuses the file); `warning` stays a warning.
 */
export type Level = "finding" | "error" | "warning";

/** One check of one frontmatter: how it is judged, and the findings so far. */
export interface FieldCheck {
  readonly out: Diagnostic[];
  readonly location: string;
  readonly target: ValidationTarget;
  readonly strict: boolean;
  /** ` in <location>`, the end of every message. */
  readonly where: string;
  /** The folder the SKILL.md sits in, which the name must match. */
  readonly folder: string;
}

/** Adds a finding, as an error or a warning by its level, `strict` and whether it blocks loading. */
export function addFinding(
  check: FieldCheck,
  code: string,
  field: string | undefined,
  message: string,
  level: Level = "finding",
): void {
  const severity =
    level === "error" || (level === "finding" && (check.strict || BLOCKING.has(code))) ? "error" : "warning";
  const d: { -readonly [K in keyof Diagnostic]: Diagnostic[K] } = {
    code,
    severity,
    message,
    path: check.location,
  };
  if (field !== undefined) d.field = field;
  check.out.push(d);
}

/** How a length finding reads: the unit measured, the rule it breaks, what follows the location. */
export interface LengthWords {
  /** Default `characters`. */
  readonly unit?: string;
  /** Default `the limit is`. */
  readonly rule?: string;
  /** After ` in <location>`, e.g. what an agent still does with the field. */
  readonly after?: string;
  readonly level?: Level;
}

/**
 * `<field>-too-long` when `length` is over `limit`:
 * "Field '<field>' is <length> <unit>, <rule> <limit> in <location><after>".
 */
export function checkLength(
  check: FieldCheck,
  field: string,
  length: number,
  limit: number,
  words: LengthWords = {},
): void {
  if (length <= limit) return;
  const { unit = "characters", rule = "the limit is", after = "", level = "finding" } = words;
  addFinding(
    check,
    `${field}-too-long`,
    field,
    `Field '${field}' is ${length} ${unit}, ${rule} ${limit}${check.where}${after}`,
    level,
  );
}
