import { basename, dirname } from "node:path";
import { SkillError } from "../spec/errors.js";
import type { Diagnostic, SkillMetadata, ValidateOptions, ValidationTarget } from "../spec/types.js";
import type { FieldCheck } from "./check-context.js";
import {
  checkAllowedTools,
  checkBodyLines,
  checkCompatibility,
  checkDescription,
  checkLicense,
  checkListing,
  checkMetadata,
  checkUnknownFields,
} from "./field-checks.js";
import { checkNameField } from "./name-checks.js";
import { VALIDATION_TARGETS } from "./spec-fields.js";

/** What the target-specific checks need beyond the frontmatter. */
export interface ValidateExtras {
  /** The markdown body, when known: `gh-publish` counts its lines. */
  readonly body?: string;
}

function checkTarget(target: unknown): ValidationTarget {
  if (target === undefined) return "spec";
  if (VALIDATION_TARGETS.includes(target as ValidationTarget)) return target as ValidationTarget;
  throw new SkillError(
    "INVALID_FIELD",
    `Unknown validation target ${JSON.stringify(target)} (expected one of: ${VALIDATION_TARGETS.join(", ")})`,
    { field: "target" },
  );
}

/**
 * Checks frontmatter against the Agent Skills specification (https://agentskills.io/specification),
 * or against what one place does with the file (`target`).
 *
 * Rule ids: `name-missing`, `name-not-string`, `name-empty`, `name-too-long`, `name-invalid-chars`,
 * `name-leading-or-trailing-hyphen`, `name-consecutive-hyphens`, `name-mismatch`,
 * `description-missing`, `description-not-string`, `description-empty`, `description-too-long`,
 * `compatibility-not-string`, `compatibility-empty`, `compatibility-too-long`, `license-not-string`,
 * `metadata-not-mapping`, `metadata-value-not-string`, `allowed-tools-not-string`,
 * `unknown-field:<key>`; by target: `listing-truncated` (`claude-code`), `install-metadata`,
 * `license-missing`, `body-too-long` (`gh-publish`).
 *
 * Name and description are trimmed first; lengths count code points (UTF-8 bytes for the
 * description under `gh-publish`). Findings are warnings, or errors with `strict`; a missing,
 * empty or non-string name or description is always an error, since the skill cannot load;
 * what a target refuses outright (`gh skill publish`, Codex skipping a skill) is always an error.
 *
 * @example
 * validateFrontmatter({ name: "PDF", description: "x" }, "/s/pdf/SKILL.md");
 * // [{ code: "name-invalid-chars", … }, { code: "name-mismatch", … }]
 */
export function validateFrontmatter(
  frontmatter: Readonly<Record<string, unknown>>,
  location: string,
  options: ValidateOptions = {},
): Diagnostic[] {
  return checkFrontmatter(frontmatter, location, options, {});
}

/** {@link validateFrontmatter} with what only a file read knows (the body). */
export function checkFrontmatter(
  frontmatter: Readonly<Record<string, unknown>>,
  location: string,
  options: ValidateOptions,
  extras: ValidateExtras,
): Diagnostic[] {
  const target = checkTarget(options.target);
  const check: FieldCheck = {
    out: [],
    location,
    target,
    strict: options.strict === true,
    where: ` in ${location}`,
    folder: basename(dirname(location)),
  };
  checkNameField(frontmatter, check);
  checkDescription(frontmatter, check);
  checkCompatibility(frontmatter, check);
  checkLicense(frontmatter, check);
  checkMetadata(frontmatter, check);
  checkAllowedTools(frontmatter, check);
  checkListing(frontmatter, check);
  checkBodyLines(extras.body, check);
  checkUnknownFields(frontmatter, check);
  return check.out;
}

/**
 * Checks a loaded skill against the Agent Skills specification, or a target; see
 * {@link validateFrontmatter}. Given a `SkillInfo` (with `content`), body rules apply too.
 *
 * @example
 * const { skill } = await loadSkillFile("/s/pdf/SKILL.md");
 * for (const d of validateSkill(skill, { strict: true })) console.log(d.code, d.message);
 */
export function validateSkill(skill: SkillMetadata, options: ValidateOptions = {}): Diagnostic[] {
  const body = (skill as { content?: unknown }).content;
  return checkFrontmatter(
    skill.frontmatter,
    skill.location,
    options,
    typeof body === "string" ? { body } : {},
  );
}
