import { basename, dirname } from "node:path";
import { describeKind, printable, quote, SkillError } from "../spec/errors.js";
import type { Diagnostic, SkillMetadata, ValidateOptions, ValidationTarget } from "../spec/types.js";
import { codePoints, singleLineLength } from "../util/text.js";

/** Fields of the Agent Skills specification; any other top-level key is `unknown-field:<key>`. */
export const SPEC_FIELDS: readonly string[] = [
  "name",
  "description",
  "license",
  "compatibility",
  "metadata",
  "allowed-tools",
];

/** Claude Code's own frontmatter fields, known to the `claude-code` target besides {@link SPEC_FIELDS}. */
export const CLAUDE_CODE_FIELDS: readonly string[] = [
  "when_to_use",
  "argument-hint",
  "arguments",
  "disable-model-invocation",
  "user-invocable",
  "disallowed-tools",
  "model",
  "effort",
  "context",
  "agent",
  "background",
  "hooks",
  "paths",
  "shell",
];

const SPEC_KNOWN: ReadonlySet<string> = new Set(SPEC_FIELDS);
const CLAUDE_CODE_KNOWN: ReadonlySet<string> = new Set([...SPEC_FIELDS, ...CLAUDE_CODE_FIELDS]);

/** Limits of the Agent Skills specification, in code points. */
export const SPEC_LIMITS = { name: 64, description: 1024, compatibility: 500 } as const;

/** Every validation target, `spec` (the default) first. */
export const VALIDATION_TARGETS: readonly ValidationTarget[] = [
  "spec",
  "skills-ref",
  "claude-code",
  "codex",
  "gh-publish",
];

/** Claude Code cuts `description` + `when_to_use` at this many characters in its skill listing. */
const CLAUDE_CODE_LISTING_LIMIT = 1536;
/** `gh skill publish` warns about a body longer than this many lines. */
const GH_BODY_LINES = 500;

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
/** skills-ref: letters and digits of any script, and hyphens (Python's `str.isalnum`). */
const UNICODE_NAME_CHARS = /^[\p{L}\p{N}-]*$/u;

/**
 * How hard a finding lands: `finding` is a warning, or an error with `strict`; `error` is an
 * error in every mode (the target refuses the file); `warning` stays a warning.
 */
type Level = "finding" | "error" | "warning";

/** What the target-specific checks need beyond the frontmatter. */
export interface ValidateExtras {
  /** The markdown body, when known: `gh-publish` counts its lines. */
  readonly body?: string;
}

function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
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

/** Up to `max` items, then `and N more`. */
function listSome(items: readonly string[], max = 5): string {
  const shown = items.slice(0, max).join(", ");
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
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
  const strict = options.strict === true;
  const out: Diagnostic[] = [];
  const add = (code: string, field: string | undefined, message: string, level: Level = "finding") => {
    const severity =
      level === "error" || (level === "finding" && (strict || BLOCKING.has(code))) ? "error" : "warning";
    const d: { -readonly [K in keyof Diagnostic]: Diagnostic[K] } = {
      code,
      severity,
      message,
      path: location,
    };
    if (field !== undefined) d.field = field;
    out.push(d);
  };
  const where = ` in ${location}`;
  // gh skill publish refuses what breaks its rules.
  const refused: Level = target === "gh-publish" ? "error" : "finding";
  const folder = basename(dirname(location));

  const name = frontmatter.name;
  const nameFromFolder = target === "claude-code" || target === "codex";
  if (
    nameFromFolder &&
    (name === undefined || name === null || (typeof name === "string" && name.trim() === ""))
  ) {
    const what = typeof name === "string" ? "Field 'name' is empty" : "Missing frontmatter field 'name'";
    add("name-missing", "name", `${what}${where}; the folder name ${quote(folder)} is used`, "warning");
  } else if (name === undefined || name === null) {
    add("name-missing", "name", `Missing frontmatter field 'name'${where}`);
  } else if (typeof name !== "string") {
    add(
      "name-not-string",
      "name",
      `Field 'name' must be a string, found ${describeKind(name)} ${quote(name)}${where}`,
    );
  } else if (name.trim() === "") {
    add("name-empty", "name", `Field 'name' is empty${where}`);
  } else if (target === "codex") {
    const length = singleLineLength(name);
    if (length > SPEC_LIMITS.name) {
      add(
        "name-too-long",
        "name",
        `Field 'name' is ${length} characters, the specification's limit is ${SPEC_LIMITS.name}${where}`,
      );
    }
  } else {
    checkName(name, target, folder, where, add, refused);
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
    else if (target === "gh-publish") {
      const bytes = utf8Bytes(value);
      if (bytes > SPEC_LIMITS.description) {
        add(
          "description-too-long",
          "description",
          `Field 'description' is ${bytes} bytes of UTF-8, gh skill publish recommends at most ${SPEC_LIMITS.description}${where}`,
        );
      }
    } else if (target === "codex") {
      const length = singleLineLength(value);
      if (length > SPEC_LIMITS.description) {
        add(
          "description-too-long",
          "description",
          `Field 'description' is ${length} characters, the specification's limit is ${SPEC_LIMITS.description}${where} (Codex 0.171 still loads it)`,
        );
      }
    } else {
      const length = codePoints(value);
      if (length > SPEC_LIMITS.description) {
        add(
          "description-too-long",
          "description",
          `Field 'description' is ${length} characters, the limit is ${SPEC_LIMITS.description}${where}`,
        );
      }
    }
  }

  const compatibility = frontmatter.compatibility;
  if (compatibility !== undefined && compatibility !== null) {
    if (typeof compatibility !== "string") {
      add(
        "compatibility-not-string",
        "compatibility",
        `Field 'compatibility' must be a string, found ${describeKind(compatibility)} ${quote(compatibility)}${where}`,
      );
    } else if (compatibility.trim() === "") {
      add(
        "compatibility-empty",
        "compatibility",
        `Field 'compatibility' is empty; give 1-${SPEC_LIMITS.compatibility} characters or leave the field out${where}`,
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
  if (target === "gh-publish" && !Object.hasOwn(frontmatter, "license")) {
    add(
      "license-missing",
      "license",
      `Field 'license' is missing; gh skill publish recommends one (e.g. license: MIT)${where}`,
    );
  }

  const metadata = frontmatter.metadata;
  if (metadata !== undefined && metadata !== null) {
    if (!isMapping(metadata)) {
      add(
        "metadata-not-mapping",
        "metadata",
        `Field 'metadata' must be a mapping of keys to values, found ${describeKind(metadata)}${where}`,
      );
    } else {
      const keys = Object.keys(metadata);
      const notStrings = keys.filter((k) => typeof metadata[k] !== "string");
      if (notStrings.length > 0) {
        const shown = notStrings.map((k) => `'${printable(k)}' (${describeKind(metadata[k])})`);
        add(
          "metadata-value-not-string",
          "metadata",
          `Field 'metadata' must map keys to strings; quote the value${notStrings.length > 1 ? "s" : ""} of ${listSome(shown)}${where}`,
        );
      }
      if (target === "gh-publish") {
        const install = keys.filter((k) => k.startsWith("github-"));
        if (install.length > 0) {
          add(
            "install-metadata",
            "metadata",
            `Field 'metadata' holds install metadata that gh skill publish refuses: ${listSome(install.map((k) => printable(k)))} (remove it, or run gh skill publish --fix)${where}`,
            "error",
          );
        }
      }
    }
  }

  const tools = frontmatter["allowed-tools"];
  if (tools !== undefined && tools !== null && typeof tools !== "string") {
    const strings = Array.isArray(tools) && tools.every((t) => typeof t === "string");
    if (strings && target === "claude-code") {
      // Claude Code reads a list as well as a string.
    } else if (strings) {
      add(
        "allowed-tools-not-string",
        "allowed-tools",
        `Field 'allowed-tools' must be a space-separated string, found a list; write allowed-tools: ${quote((tools as string[]).join(" "))}${where}`,
        refused,
      );
    } else {
      const expected =
        target === "claude-code"
          ? "a space-separated string or a list of strings"
          : "a space-separated string";
      add(
        "allowed-tools-not-string",
        "allowed-tools",
        `Field 'allowed-tools' must be ${expected}, found ${describeKind(tools)} ${quote(tools)}${where}`,
      );
    }
  }

  if (target === "claude-code" && typeof description === "string") {
    const whenToUse = frontmatter.when_to_use;
    const extra = typeof whenToUse === "string" ? whenToUse.trim() : "";
    const length = codePoints(description.trim()) + codePoints(extra);
    if (length > CLAUDE_CODE_LISTING_LIMIT) {
      add(
        "listing-truncated",
        extra === "" ? "description" : "when_to_use",
        `Fields 'description' and 'when_to_use' hold ${length} characters; Claude Code's skill listing shows only the first ${CLAUDE_CODE_LISTING_LIMIT}${where}`,
      );
    }
  }

  if (target === "gh-publish" && extras.body !== undefined) {
    // gh counts newlines + 1 after dropping the blank lines that open the body.
    const body = extras.body.replace(/^[\r\n]+/, "");
    let lines = 1;
    for (let i = body.indexOf("\n"); i !== -1; i = body.indexOf("\n", i + 1)) lines++;
    if (lines > GH_BODY_LINES) {
      add(
        "body-too-long",
        undefined,
        `The body is ${lines} lines; gh skill publish recommends at most ${GH_BODY_LINES} (move detail into referenced files)${where}`,
      );
    }
  }

  const known = target === "claude-code" ? CLAUDE_CODE_KNOWN : SPEC_KNOWN;
  const unknownLevel: Level = target === "skills-ref" ? "error" : "finding";
  for (const key of Object.keys(frontmatter)) {
    if (!known.has(key)) {
      const which = target === "claude-code" ? "known to Claude Code" : "in the Agent Skills specification";
      add(
        `unknown-field:${key}`,
        key,
        `Field '${printable(key)}' is not ${which} (known: ${SPEC_FIELDS.join(", ")}${target === "claude-code" ? " and Claude Code's own fields" : ""})${where}`,
        unknownLevel,
      );
    }
  }
  return out;
}

/** The name rules of the spec; `skills-ref` allows Unicode letters after NFKC; `gh-publish` refuses. */
function checkName(
  raw: string,
  target: ValidationTarget,
  folder: string,
  where: string,
  add: (code: string, field: string | undefined, message: string, level?: Level) => void,
  level: Level,
): void {
  const unicode = target === "skills-ref";
  const value = unicode ? raw.trim().normalize("NFKC") : raw.trim();
  const length = codePoints(value);
  if (length > SPEC_LIMITS.name) {
    add(
      "name-too-long",
      "name",
      `Field 'name' is ${length} characters, the limit is ${SPEC_LIMITS.name}${where}`,
      level,
    );
  }
  if (unicode) {
    if (value !== value.toLowerCase() || !UNICODE_NAME_CHARS.test(value)) {
      add(
        "name-invalid-chars",
        "name",
        `Field 'name' may hold only lowercase letters, digits and hyphens, found ${quote(value)}${where}`,
        level,
      );
    }
  } else if (!NAME_CHARS.test(value)) {
    add(
      "name-invalid-chars",
      "name",
      `Field 'name' may hold only lowercase letters a-z, digits and hyphens, found ${quote(value)}${where}`,
      level,
    );
  }
  if (value.startsWith("-") || value.endsWith("-")) {
    add(
      "name-leading-or-trailing-hyphen",
      "name",
      `Field 'name' must not start or end with '-', found ${quote(value)}${where}`,
      level,
    );
  }
  if (value.includes("--")) {
    add(
      "name-consecutive-hyphens",
      "name",
      `Field 'name' must not contain '--', found ${quote(value)}${where}`,
      level,
    );
  }
  const dir = unicode ? folder.normalize("NFKC") : folder;
  if (value !== dir) {
    add(
      "name-mismatch",
      "name",
      `Field 'name' is ${quote(value)} but the folder is named ${quote(folder)}${where}`,
      level,
    );
  }
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
