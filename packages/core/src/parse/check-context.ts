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
