import { describeKind, printable, quote } from "../spec/errors.js";
import { isMapping } from "../util/mapping.js";
import { codePoints, singleLineLength } from "../util/text.js";
import { addFinding, checkLength, type FieldCheck, type Level } from "./check-context.js";
import { CLAUDE_CODE_FIELDS, SPEC_FIELDS, SPEC_LIMITS } from "./spec-fields.js";

const SPEC_KNOWN: ReadonlySet<string> = new Set(SPEC_FIELDS);
const CLAUDE_CODE_KNOWN: ReadonlySet<string> = new Set([...SPEC_FIELDS, ...CLAUDE_CODE_FIELDS]);

/** Claude Code cuts `description` + `when_to_use` at this many characters in its skill listing. */
const CLAUDE_CODE_LISTING_LIMIT = 1536;
/** `gh skill publish` warns about a body longer than this many lines. */
const GH_BODY_LINES = 500;

type Fields = Readonly<Record<string, unknown>>;

/** Up to `max` items, then `and N more`. */
function listSome(items: readonly string[], max = 5): string {
  const shown = items.slice(0, max).join(", ");
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}

/** `description`: present, a string, not empty, within the target's length. */
export function checkDescription(frontmatter: Fields, check: FieldCheck): void {
  const { where } = check;
  const description = frontmatter.description;
  if (description === undefined || description === null) {
    addFinding(
      check,
      "description-missing",
      "description",
      `Missing frontmatter field 'description'${where}`,
    );
  } else if (typeof description !== "string") {
    addFinding(
      check,
      "description-not-string",
      "description",
      `Field 'description' must be a string, found ${describeKind(description)} ${quote(description)}${where}`,
    );
  } else {
    const value = description.trim();
    if (value === "")
      addFinding(check, "description-empty", "description", `Field 'description' is empty${where}`);
    else checkDescriptionLength(value, check);
  }
}

/** The description's length: UTF-8 bytes for `gh-publish`, else characters. */
function checkDescriptionLength(value: string, check: FieldCheck): void {
  const limit = SPEC_LIMITS.description;
  if (check.target === "gh-publish") {
    checkLength(check, "description", Buffer.byteLength(value, "utf8"), limit, {
      unit: "bytes of UTF-8",
      rule: "gh skill publish recommends at most",
    });
  } else if (check.target === "codex") {
    checkLength(check, "description", singleLineLength(value), limit, {
      rule: "the specification's limit is",
      after: " (Codex 0.171 still loads it)",
    });
  } else {
    checkLength(check, "description", codePoints(value), limit);
  }
}

/** `compatibility`, when given: a string, not empty, within its limit. */
export function checkCompatibility(frontmatter: Fields, check: FieldCheck): void {
  const { where } = check;
  const compatibility = frontmatter.compatibility;
  if (compatibility === undefined || compatibility === null) return;
  if (typeof compatibility !== "string") {
    addFinding(
      check,
      "compatibility-not-string",
      "compatibility",
      `Field 'compatibility' must be a string, found ${describeKind(compatibility)} ${quote(compatibility)}${where}`,
    );
  } else if (compatibility.trim() === "") {
    addFinding(
      check,
      "compatibility-empty",
      "compatibility",
      `Field 'compatibility' is empty; give 1-${SPEC_LIMITS.compatibility} characters or leave the field out${where}`,
    );
  } else {
    checkLength(check, "compatibility", codePoints(compatibility.trim()), SPEC_LIMITS.compatibility);
  }
}

/** `license`: a string when given; `gh-publish` asks for one. */
export function checkLicense(frontmatter: Fields, check: FieldCheck): void {
  const { where } = check;
  const license = frontmatter.license;
  if (license !== undefined && license !== null && typeof license !== "string") {
    addFinding(
      check,
      "license-not-string",
      "license",
      `Field 'license' must be a string, found ${describeKind(license)}${where}`,
    );
  }
  if (check.target === "gh-publish" && !Object.hasOwn(frontmatter, "license")) {
    addFinding(
      check,
      "license-missing",
      "license",
      `Field 'license' is missing; gh skill publish recommends one (e.g. license: MIT)${where}`,
    );
  }
}

/** `metadata`, when given: a mapping of strings; `gh-publish` refuses install metadata in it. */
export function checkMetadata(frontmatter: Fields, check: FieldCheck): void {
  const { where } = check;
  const metadata = frontmatter.metadata;
  if (metadata === undefined || metadata === null) return;
  if (!isMapping(metadata)) {
    addFinding(
      check,
      "metadata-not-mapping",
      "metadata",
      `Field 'metadata' must be a mapping of keys to values, found ${describeKind(metadata)}${where}`,
    );
    return;
  }
  const keys = Object.keys(metadata);
  const notStrings = keys.filter((k) => typeof metadata[k] !== "string");
  if (notStrings.length > 0) {
    const shown = notStrings.map((k) => `'${printable(k)}' (${describeKind(metadata[k])})`);
    addFinding(
      check,
      "metadata-value-not-string",
      "metadata",
      `Field 'metadata' must map keys to strings; quote the value${notStrings.length > 1 ? "s" : ""} of ${listSome(shown)}${where}`,
    );
  }
  if (check.target === "gh-publish") {
    const install = keys.filter((k) => k.startsWith("github-"));
    if (install.length > 0) {
      addFinding(
        check,
        "install-metadata",
        "metadata",
        `Field 'metadata' holds install metadata that gh skill publish refuses: ${listSome(install.map((k) => printable(k)))} (remove it, or run gh skill publish --fix)${where}`,
        "error",
      );
    }
  }
}

/** `allowed-tools`, when given: a space-separated string (Claude Code also reads a list). */
export function checkAllowedTools(frontmatter: Fields, check: FieldCheck): void {
  const { target, where } = check;
  const tools = frontmatter["allowed-tools"];
  if (tools === undefined || tools === null || typeof tools === "string") return;
  const strings = Array.isArray(tools) && tools.every((t) => typeof t === "string");
  if (strings && target === "claude-code") {
    // Claude Code reads a list as well as a string.
  } else if (strings) {
    addFinding(
      check,
      "allowed-tools-not-string",
      "allowed-tools",
      `Field 'allowed-tools' must be a space-separated string, found a list; write allowed-tools: ${quote((tools as string[]).join(" "))}${where}`,
      // gh skill publish refuses what breaks its rules.
      target === "gh-publish" ? "error" : "finding",
    );
  } else {
    const expected =
      target === "claude-code" ? "a space-separated string or a list of strings" : "a space-separated string";
    addFinding(
      check,
      "allowed-tools-not-string",
      "allowed-tools",
      `Field 'allowed-tools' must be ${expected}, found ${describeKind(tools)} ${quote(tools)}${where}`,
    );
  }
}

/** `claude-code`: whether `description` + `when_to_use` fit Claude Code's skill listing. */
export function checkListing(frontmatter: Fields, check: FieldCheck): void {
  const description = frontmatter.description;
  if (check.target !== "claude-code" || typeof description !== "string") return;
  const whenToUse = frontmatter.when_to_use;
  const extra = typeof whenToUse === "string" ? whenToUse.trim() : "";
  const length = codePoints(description.trim()) + codePoints(extra);
  if (length > CLAUDE_CODE_LISTING_LIMIT) {
    addFinding(
      check,
      "listing-truncated",
      extra === "" ? "description" : "when_to_use",
      `Fields 'description' and 'when_to_use' hold ${length} characters; Claude Code's skill listing shows only the first ${CLAUDE_CODE_LISTING_LIMIT}${check.where}`,
    );
  }
}

/** `gh-publish`: whether the body is within the lines gh skill publish recommends. */
export function checkBodyLines(body: string | undefined, check: FieldCheck): void {
  if (check.target !== "gh-publish" || body === undefined) return;
  // gh counts newlines + 1 after dropping the blank lines that open the body.
  const text = body.replace(/^[\r\n]+/, "");
  let lines = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines++;
  if (lines > GH_BODY_LINES) {
    addFinding(
      check,
      "body-too-long",
      undefined,
      `The body is ${lines} lines; gh skill publish recommends at most ${GH_BODY_LINES} (move detail into referenced files)${check.where}`,
    );
  }
}

/** Every top-level key the target does not know: `unknown-field:<key>`. */
export function checkUnknownFields(frontmatter: Fields, check: FieldCheck): void {
  const { target, where } = check;
  const known = target === "claude-code" ? CLAUDE_CODE_KNOWN : SPEC_KNOWN;
  const unknownLevel: Level = target === "skills-ref" ? "error" : "finding";
  for (const key of Object.keys(frontmatter)) {
    if (!known.has(key)) {
      const which = target === "claude-code" ? "known to Claude Code" : "in the Agent Skills specification";
      addFinding(
        check,
        `unknown-field:${key}`,
        key,
        `Field '${printable(key)}' is not ${which} (known: ${SPEC_FIELDS.join(", ")}${target === "claude-code" ? " and Claude Code's own fields" : ""})${where}`,
        unknownLevel,
      );
    }
  }
}
