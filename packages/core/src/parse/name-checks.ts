import { describeKind, quote } from "../spec/errors.js";
import { codePoints, singleLineLength } from "../util/text.js";
import { addFinding, checkLength, type FieldCheck, type Level } from "./check-context.js";
import { SPEC_LIMITS } from "./spec-fields.js";

const NAME_CHARS = /^[a-z0-9-]*$/;
/** skills-ref: letters and digits of any script, and hyphens (Python's `str.isalnum`). */
const UNICODE_NAME_CHARS = /^[\p{L}\p{N}-]*$/u;

type Fields = Readonly<Record<string, unknown>>;

/** `name`: present, a string, not empty; then the target's name rules. */
export function checkNameField(frontmatter: Fields, check: FieldCheck): void {
  const { target, where, folder } = check;
  const name = frontmatter.name;
  const nameFromFolder = target === "claude-code" || target === "codex";
  if (
    nameFromFolder &&
    (name === undefined || name === null || (typeof name === "string" && name.trim() === ""))
  ) {
    const what = typeof name === "string" ? "Field 'name' is empty" : "Missing frontmatter field 'name'";
    addFinding(
      check,
      "name-missing",
      "name",
      `${what}${where}; the folder name ${quote(folder)} is used`,
      "warning",
    );
  } else if (name === undefined || name === null) {
    addFinding(check, "name-missing", "name", `Missing frontmatter field 'name'${where}`);
  } else if (typeof name !== "string") {
    addFinding(
      check,
      "name-not-string",
      "name",
      `Field 'name' must be a string, found ${describeKind(name)} ${quote(name)}${where}`,
    );
  } else if (name.trim() === "") {
    addFinding(check, "name-empty", "name", `Field 'name' is empty${where}`);
  } else if (target === "codex") {
    // Codex refuses a name over the limit: an error under its target, lenient or not.
    checkLength(check, "name", singleLineLength(name), SPEC_LIMITS.name, {
      rule: "the specification's limit is",
      after: " (Codex 0.171 skips the skill)",
      level: "error",
    });
  } else {
    // gh skill publish refuses what breaks its rules.
    checkName(name, check, target === "gh-publish" ? "error" : "finding");
  }
}

/** The name rules of the spec; `skills-ref` allows Unicode letters after NFKC; `gh-publish` refuses. */
function checkName(raw: string, check: FieldCheck, level: Level): void {
  const { target, where, folder } = check;
  const unicode = target === "skills-ref";
  const value = unicode ? raw.trim().normalize("NFKC") : raw.trim();
  checkLength(check, "name", codePoints(value), SPEC_LIMITS.name, { level });
  if (unicode) {
    if (value !== value.toLowerCase() || !UNICODE_NAME_CHARS.test(value)) {
      addFinding(
        check,
        "name-invalid-chars",
        "name",
        `Field 'name' may hold only lowercase letters, digits and hyphens, found ${quote(value)}${where}`,
        level,
      );
    }
  } else if (!NAME_CHARS.test(value)) {
    addFinding(
      check,
      "name-invalid-chars",
      "name",
      `Field 'name' may hold only lowercase letters a-z, digits and hyphens, found ${quote(value)}${where}`,
      level,
    );
  }
  if (value.startsWith("-") || value.endsWith("-")) {
    addFinding(
      check,
      "name-leading-or-trailing-hyphen",
      "name",
      `Field 'name' must not start or end with '-', found ${quote(value)}${where}`,
      level,
    );
  }
  if (value.includes("--")) {
    addFinding(
      check,
      "name-consecutive-hyphens",
      "name",
      `Field 'name' must not contain '--', found ${quote(value)}${where}`,
      level,
    );
  }
  const dir = unicode ? folder.normalize("NFKC") : folder;
  if (value !== dir) {
    addFinding(
      check,
      "name-mismatch",
      "name",
      `Field 'name' is ${quote(value)} but the folder is named ${quote(folder)}${where}`,
      level,
    );
  }
}
