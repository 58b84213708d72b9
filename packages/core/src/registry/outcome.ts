import { READ_CODES } from "../files/read-file.js";
import { printable, SkillError } from "../spec/errors.js";
import type { SourceEntry } from "../spec/skill-source.js";
import type { Diagnostic, SkillMetadata } from "../spec/types.js";
import { errorMessage } from "../util/error-text.js";
import type { Outcome } from "./precedence.js";

export function toSkillError(error: unknown, path: string): SkillError {
  if (SkillError.isInstance(error)) return error;
  return new SkillError("READ_ERROR", `Failed to read skill file: ${path} (${errorMessage(error)})`, {
    path,
    cause: error,
  });
}

/** The rule id of a failure: the ids `validateSkillFile` uses for the same failure. */
function failureCode(error: SkillError): string {
  if (error.code === "MISSING_FIELD" && error.field !== undefined) return `${error.field}-missing`;
  return READ_CODES[error.code] ?? error.code.toLowerCase().replace(/_/g, "-");
}

export function failureDiagnostic(error: SkillError, path: string): Diagnostic {
  return {
    code: failureCode(error),
    severity: "error",
    message: error.message,
    path,
  };
}

export function failed(error: SkillError, location: string): Outcome {
  return { ok: false, error, diagnostics: [failureDiagnostic(error, location)] };
}

/**
 * The skill without the fields its entry says not to take (`ignoreFields`), and a warning for
 * each one it held. The same object when there is nothing to leave out.
 */
export function withoutIgnored<T extends SkillMetadata>(
  skill: T,
  entry: SourceEntry,
): { skill: T; diagnostics: Diagnostic[] } {
  const fields = (entry.ignoreFields ?? []).filter((f) => Object.hasOwn(skill.frontmatter, f));
  if (fields.length === 0) return { skill, diagnostics: [] };
  const frontmatter = Object.freeze(
    Object.fromEntries(Object.entries(skill.frontmatter).filter(([key]) => !fields.includes(key))),
  );
  const diagnostics = fields.map(
    (field): Diagnostic => ({
      code: "field-ignored",
      severity: "warning",
      message: `Field '${printable(field)}' of ${skill.location} is ignored: its source (${skill.origin}) is not trusted with it`,
      path: skill.location,
      field,
    }),
  );
  return { skill: Object.freeze({ ...skill, frontmatter }), diagnostics };
}

/** The outcome with the fields its entry says not to take left out (see {@link withoutIgnored}). */
export function ignoring(outcome: Outcome, entry: SourceEntry): Outcome {
  if (!outcome.ok || !entry.ignoreFields) return outcome;
  const { skill, diagnostics } = withoutIgnored(outcome.skill, entry);
  return diagnostics.length === 0
    ? outcome
    : { ok: true, skill, diagnostics: [...outcome.diagnostics, ...diagnostics] };
}
