import { basename, dirname } from "node:path";
import { describeKind, printable, quote } from "./errors.js";
import type { Diagnostic, SkillMetadata, ValidateOptions } from "./types.js";

/** Fields of the Agent Skills specification; any other top-level key is `unknown-field:<key>`. */
export const SPEC_FIELDS: readonly string[] = [
  "name",
  "description",
  "license",
  "compatibility",
  "metadata",
  "allowed-tools",
];

/** Limits of the Agent Skills specification, in code points. */
export const SPEC_LIMITS = { name: 64, description: 1024, compatibility: 500 } as const;

/** Findings that stop a skill from loading: errors even in lenient mode. */
const BLOCKING = new Set([
  "name-missing",
  "name-not-string",
  "name-empty",
  "description-missing",
  "description-not-string",
  "description-empty",
]);

const NAME_CHARS = /^[a-z0-9-]*$/;

function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * Checks frontmatter against the Agent Skills specification (https://agentskills.io/specification).
 * Rule ids: `name-missing`, `name-not-string`, `name-empty`, `name-too-long`, `name-invalid-chars`,
 * `name-leading-or-trailing-hyphen`, `name-consecutive-hyphens`, `name-mismatch`,
 * `description-missing`, `description-not-string`, `description-empty`, `description-too-long`,
 * `compatibility-not-string`, `compatibility-too-long`, `license-not-string`,
 * `metadata-not-mapping`, `allowed-tools-invalid`, `unknown-field:<key>`.
 *
 * Name and description are trimmed first; lengths count code points. Findings are warnings,
 * or errors with `strict`; a missing, empty or non-string name or description is always an
 * error, since the skill cannot load.
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
  const severity = options.strict ? "error" : "warning";
  const out: Diagnostic[] = [];
  const add = (code: string, field: string | undefined, message: string) => {
    const d: { -readonly [K in keyof Diagnostic]: Diagnostic[K] } = {
      code,
      severity: BLOCKING.has(code) ? "error" : severity,
      message,
      path: location,
    };
    if (field !== undefined) d.field = field;
    out.push(d);
  };
  const where = ` in ${location}`;

  const name = frontmatter.name;
  if (name === undefined || name === null) {
    add("name-missing", "name", `Missing frontmatter field 'name'${where}`);
  } else if (typeof name !== "string") {
    add(
      "name-not-string",
      "name",
      `Field 'name' must be a string, found ${describeKind(name)} ${quote(name)}${where}`,
    );
  } else {
    const value = name.trim();
    if (value === "") add("name-empty", "name", `Field 'name' is empty${where}`);
    else {
      const length = codePoints(value);
      if (length > SPEC_LIMITS.name) {
        add(
          "name-too-long",
          "name",
          `Field 'name' is ${length} characters, the limit is ${SPEC_LIMITS.name}${where}`,
        );
      }
      if (!NAME_CHARS.test(value)) {
        add(
          "name-invalid-chars",
          "name",
          `Field 'name' may hold only lowercase letters a-z, digits and hyphens, found ${quote(value)}${where}`,
        );
      }
      if (value.startsWith("-") || value.endsWith("-")) {
        add(
          "name-leading-or-trailing-hyphen",
          "name",
          `Field 'name' must not start or end with '-', found ${quote(value)}${where}`,
        );
      }
      if (value.includes("--")) {
        add(
          "name-consecutive-hyphens",
          "name",
          `Field 'name' must not contain '--', found ${quote(value)}${where}`,
        );
      }
      const folder = basename(dirname(location));
      if (value !== folder) {
        add(
          "name-mismatch",
          "name",
          `Field 'name' is ${quote(value)} but the folder is named ${quote(folder)}${where}`,
        );
      }
    }
  }

  const description = frontmatter.description;
  if (description === undefined || description === null) {
    add("description-missing", "description", `Missing frontmatter field 'description'${where}`);
  } else if (typeof description !== "string") {
    add(
      "description-not-string",
      "description",
      `Field 'description' must be a string, found ${describeKind(description)} ${quote(description)}${where}`,
    );
  } else {
    const value = description.trim();
    if (value === "") add("description-empty", "description", `Field 'description' is empty${where}`);
    const length = codePoints(value);
    if (length > SPEC_LIMITS.description) {
      add(
        "description-too-long",
        "description",
        `Field 'description' is ${length} characters, the limit is ${SPEC_LIMITS.description}${where}`,
      );
    }
  }

  const compatibility = frontmatter.compatibility;
  if (compatibility !== undefined && compatibility !== null) {
    if (typeof compatibility !== "string") {
      add(
        "compatibility-not-string",
        "compatibility",
        `Field 'compatibility' must be a string, found ${describeKind(compatibility)}${where}`,
      );
    } else if (codePoints(compatibility.trim()) > SPEC_LIMITS.compatibility) {
      add(
        "compatibility-too-long",
        "compatibility",
        `Field 'compatibility' is ${codePoints(compatibility.trim())} characters, the limit is ${SPEC_LIMITS.compatibility}${where}`,
      );
    }
  }
  const license = frontmatter.license;
  if (license !== undefined && license !== null && typeof license !== "string") {
    add(
      "license-not-string",
      "license",
      `Field 'license' must be a string, found ${describeKind(license)}${where}`,
    );
  }
  const metadata = frontmatter.metadata;
  if (
    metadata !== undefined &&
    metadata !== null &&
    (typeof metadata !== "object" || Array.isArray(metadata))
  ) {
    add(
      "metadata-not-mapping",
      "metadata",
      `Field 'metadata' must be a mapping of keys to values, found ${describeKind(metadata)}${where}`,
    );
  }
  const tools = frontmatter["allowed-tools"];
  if (
    tools !== undefined &&
    tools !== null &&
    typeof tools !== "string" &&
    !(Array.isArray(tools) && tools.every((t) => typeof t === "string"))
  ) {
    add(
      "allowed-tools-invalid",
      "allowed-tools",
      `Field 'allowed-tools' must be a space-separated string or a list of strings, found ${describeKind(tools)}${where}`,
    );
  }

  for (const key of Object.keys(frontmatter)) {
    if (!SPEC_FIELDS.includes(key)) {
      add(
        `unknown-field:${key}`,
        key,
        `Field '${printable(key)}' is not in the Agent Skills specification (known: ${SPEC_FIELDS.join(", ")})${where}`,
      );
    }
  }
  return out;
}

/**
 * Checks a loaded skill against the Agent Skills specification; see {@link validateFrontmatter}.
 *
 * @example
 * const { skill } = await loadSkillFile("/s/pdf/SKILL.md");
 * for (const d of validateSkill(skill, { strict: true })) console.log(d.code, d.message);
 */
export function validateSkill(skill: SkillMetadata, options: ValidateOptions = {}): Diagnostic[] {
  return validateFrontmatter(skill.frontmatter, skill.location, options);
}
