import { basename, dirname } from "node:path";
import { isSkillFileName } from "../spec/constants.js";
import { describeKind, printable, quote, SkillError } from "../spec/errors.js";
import type { Diagnostic, SkillInfo } from "../spec/types.js";
import { singleLineLength } from "../util/text.js";
import { type Analysis, type AnalyzeOptions, fail } from "./analysis.js";
import { SPEC_LIMITS } from "./spec-fields.js";
import { bodySummary } from "./summary.js";
import { disablesModelInvocation, opencodeUserOnly } from "./user-only.js";
import { checkFrontmatter } from "./validate.js";

/** Spec name findings that `rejectInvalidName` turns into a refusal. */
const INVALID_NAME_CODES: ReadonlySet<string> = new Set([
  "name-invalid-chars",
  "name-leading-or-trailing-hyphen",
  "name-consecutive-hyphens",
]);

/** The names `rejectInvalidName: "loose"` accepts (Copilot CLI 1.0.102's rule). */
const LOOSE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.: -]*$/;

/** What a text parse knows besides the fields: earlier findings, the body, where keys are. */
export interface FieldContext {
  readonly diagnostics: Diagnostic[];
  /** The markdown body; `undefined` when only the frontmatter is known (a head). */
  readonly body?: string;
  readonly lineOf?: (field: string) => number | undefined;
  /** `false`: the findings are known already (a cached head keeps them); only the skill is made. */
  readonly check?: boolean;
  /** The body's summary as a head keeps it, when there is no body. */
  readonly summary?: string;
}

type Fields = Readonly<Record<string, unknown>>;

/**
 * The name `nameFallback` uses: the folder a SKILL.md location sits in (a path or a URI), or
 * for a skill that is a `.md` file of its own (pi's flat files) that file's stem.
 */
export function folderName(location: string): string {
  const file = basename(location);
  if (file.endsWith(".md") && !isSkillFileName(file)) return file.slice(0, -".md".length);
  return basename(dirname(location));
}

/**
 * Turns parsed frontmatter into a skill by the load rules: validation findings, the name
 * fallback, required fields, long fields. `raw` is what the YAML parser gave (checked);
 * `stored` is what the skill keeps (the same fields, JSON data). The one place these rules
 * live, for a text parse and a head alike.
 */
export function analyzeFields(
  raw: Fields,
  stored: Fields,
  location: string,
  options: AnalyzeOptions,
  context: FieldContext,
): Analysis {
  const frontmatter = raw;
  const byFolder = options.identity === "folder";
  const fallback = (options.nameFallback === "folder" || byFolder) && isBlank(frontmatter.name);
  const findings = findingsFor(frontmatter, location, options, context);
  if (findings.length > 0) placeFindings(findings, frontmatter, location, options, context, fallback);

  const fromFolder = fallback || byFolder;
  const rawName = frontmatter.name;
  if (!fromFolder) {
    if (isBlank(rawName)) return missing(context, stored, frontmatter, location, "name", rawName);
    if (typeof rawName !== "string") return notString(context, stored, location, "name", rawName);
  }
  const rawDescription = frontmatter.description;
  if (rawDescription !== undefined && rawDescription !== null && typeof rawDescription !== "string") {
    return notString(context, stored, location, "description", rawDescription);
  }
  const fromBody = isBlank(rawDescription) && options.descriptionFallback === "body";
  const description = fromBody
    ? firstLine(context.body ?? "")
    : typeof rawDescription === "string"
      ? rawDescription.trim()
      : "";
  if (description === "" && descriptionRequired(options, rawDescription)) {
    return missing(context, stored, frontmatter, location, "description", rawDescription);
  }

  const name = fromFolder ? folderName(location) : (rawName as string).trim();
  const refusal = ruleRefusal(name, description, findings, location, options, context, fromFolder);
  if (refusal) return refusal;
  const skill = makeSkill(name, description, frontmatter, stored, location, options, context);
  const needsBody = fromBody && context.body === undefined;
  return {
    skill,
    frontmatter: stored,
    diagnostics: context.diagnostics,
    ...(needsBody ? { needsBody } : {}),
  };
}

/** Whether a blank description refuses the skill: always, or (`field`) when the field is absent. */
function descriptionRequired(options: AnalyzeOptions, rawDescription: unknown): boolean {
  const require = options.requireDescription ?? true;
  return (
    require === true || (require === "field" && (rawDescription === undefined || rawDescription === null))
  );
}

/** The refusal `rejectInvalidName`, `rejectLongName` or `rejectLongDescription` makes of a skill, if any. */
function ruleRefusal(
  name: string,
  description: string,
  findings: readonly Diagnostic[],
  location: string,
  options: AnalyzeOptions,
  context: FieldContext,
  fromFolder: boolean,
): Analysis | undefined {
  const { diagnostics } = context;
  if (options.rejectInvalidName === "loose" && !fromFolder && !LOOSE_NAME.test(name)) {
    const error = new SkillError(
      "INVALID_FIELD",
      `Invalid frontmatter field 'name' in ${location}: ${quote(name)} must start with an ASCII letter or digit and hold only ASCII letters, digits, '-', '_', '.', ':' and spaces; the skill is not loaded (rejectInvalidName: "loose")`,
      { path: location, field: "name" },
    );
    return fail(diagnostics, error, "name-invalid-chars", lineIn(context, "name") ?? 1);
  }
  if (options.rejectInvalidName === true && !fromFolder) {
    const invalid = findings.find((d) => INVALID_NAME_CODES.has(d.code));
    if (invalid) {
      const error = new SkillError(
        "INVALID_FIELD",
        `Invalid frontmatter field 'name' in ${location}: ${invalid.message}; the skill is not loaded (rejectInvalidName)`,
        { path: location, field: "name" },
      );
      return fail(diagnostics, error, invalid.code, lineIn(context, "name") ?? 1);
    }
  }
  if (options.rejectLongName || options.rejectLongDescription) {
    const error = longFieldError(name, description, location, options);
    if (error) return fail(diagnostics, error, `${error.field}-too-long`, lineIn(context, error.field) ?? 1);
  }
  return undefined;
}

/** The skill, frozen: its name and description as the rules made them, and what the fields say. */
function makeSkill(
  name: string,
  description: string,
  frontmatter: Fields,
  stored: Fields,
  location: string,
  options: AnalyzeOptions,
  context: FieldContext,
): SkillInfo {
  const rawName = frontmatter.name;
  const shown = typeof rawName === "string" ? rawName.trim() : "";
  const displayName = options.identity === "folder" && shown !== "" && shown !== name ? shown : undefined;
  const made: { -readonly [K in keyof SkillInfo]?: SkillInfo[K] } = {
    name,
    description,
    location,
    frontmatter: stored,
  };
  if (options.source !== undefined) made.source = options.source;
  made.origin = options.origin ?? options.source ?? "manual";
  made.modelInvocable = !disablesModelInvocation(frontmatter) && !opencodeUserOnly(frontmatter);
  made.userInvocable = !isFalse(frontmatter["user-invocable"]);
  if (displayName !== undefined) made.displayName = displayName;
  const body = context.body;
  const summary =
    body === undefined ? context.summary : options.memo ? options.memo.summary(body) : bodySummary(body);
  if (summary !== undefined) made.summary = summary;
  // Without `content` for a bulk load (`metadataOnly`): `accept` then keeps this object as is.
  if (!options.metadataOnly) made.content = context.body ?? "";
  return Object.freeze(made) as SkillInfo;
}

/** The line of a field in the text parsed, when known. */
function lineIn(context: FieldContext, field: string | undefined): number | undefined {
  return field === undefined ? undefined : context.lineOf?.(field);
}

/** The findings on the fields: none when known already, else once per text through the memo. */
function findingsFor(
  frontmatter: Fields,
  location: string,
  options: AnalyzeOptions,
  context: FieldContext,
): readonly Diagnostic[] {
  if (context.check === false) return [];
  // No closure is made per skill unless it is needed: a bulk load runs this thousands of times.
  if (!options.memo) return findingsOf(frontmatter, location, options, context);
  return options.memo.findings(
    frontmatter,
    context.body,
    location,
    `${!options.lenient}:${options.target ?? ""}`,
    () => findingsOf(frontmatter, location, options, context),
  );
}

/** The specification's findings on the fields (what `checkFrontmatter` says under the load rules). */
function findingsOf(
  frontmatter: Fields,
  location: string,
  options: AnalyzeOptions,
  context: FieldContext,
): Diagnostic[] {
  return checkFrontmatter(
    frontmatter,
    location,
    { strict: !options.lenient, ...(options.target === undefined ? {} : { target: options.target }) },
    context.body === undefined ? {} : { body: context.body },
  );
}

/**
 * Adds the findings to the context's diagnostics, as the load rules read them: a description
 * the rules let be missing (or take from the body) is a warning, not a failure; a name taken
 * from the folder is a warning, and trivially matches it. Each gets its line where known.
 */
function placeFindings(
  findings: readonly Diagnostic[],
  frontmatter: Fields,
  location: string,
  options: AnalyzeOptions,
  context: FieldContext,
  fallback: boolean,
): void {
  const { diagnostics } = context;
  const require = options.requireDescription ?? true;
  const optionalDescription =
    options.descriptionFallback === "body" ||
    require === false ||
    (require === "field" && typeof frontmatter.description === "string");
  for (const d of findings) {
    if (optionalDescription && (d.code === "description-missing" || d.code === "description-empty")) {
      diagnostics.push({ ...d, severity: "warning", line: lineIn(context, d.field) ?? 1 });
      continue;
    }
    if (fallback && d.field === "name") {
      if (d.code === "name-missing" || d.code === "name-empty") {
        diagnostics.push({
          ...d,
          code: "name-missing",
          severity: "warning",
          message: `Missing frontmatter field 'name' in ${location}; the folder name ${quote(folderName(location))} is used`,
          line: 1,
        });
      }
      continue;
    }
    const line =
      lineIn(context, d.field) ?? (d.field === "name" || d.field === "description" ? 1 : undefined);
    diagnostics.push(line === undefined ? d : { ...d, line });
  }
}

/** The fields a frontmatter holds, for an error message. */
function foundFields(frontmatter: Fields): string {
  const keys = Object.keys(frontmatter);
  return keys.length > 0 ? `found fields: ${keys.map((k) => printable(k)).join(", ")}` : "no fields found";
}

function missing(
  context: FieldContext,
  stored: Fields,
  frontmatter: Fields,
  location: string,
  field: string,
  value: unknown,
): Analysis {
  const found = foundFields(frontmatter);
  const why = value === undefined || value === null ? found : `the value is empty; ${found}`;
  const error = new SkillError(
    "MISSING_FIELD",
    `Missing frontmatter field '${field}' in ${location} (${why})`,
    {
      path: location,
      field,
    },
  );
  return { diagnostics: context.diagnostics, frontmatter: stored, error };
}

function notString(
  context: FieldContext,
  stored: Fields,
  location: string,
  field: string,
  value: unknown,
): Analysis {
  const error = new SkillError(
    "INVALID_FIELD",
    `Invalid frontmatter field '${field}' in ${location}: expected a string, found ${describeKind(value)} ${quote(value)}`,
    { path: location, field },
  );
  return { diagnostics: context.diagnostics, frontmatter: stored, error };
}

/** The first non-blank line of a body, trimmed: the description Claude Code falls back to. */
function firstLine(body: string): string {
  for (const line of body.split("\n")) {
    const text = line.trim();
    if (text !== "") return text;
  }
  return "";
}

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === "string" && value.trim() === "");
}

/** `false`, `no` (any case) or the YAML boolean. */
function isFalse(value: unknown): boolean {
  if (value === false) return true;
  if (typeof value !== "string") return false;
  const lower = value.trim().toLowerCase();
  return lower === "false" || lower === "no";
}

function longFieldError(
  name: string,
  description: string,
  location: string,
  options: AnalyzeOptions,
): SkillError | undefined {
  for (const [field, value, rule] of [
    ["name", name, options.rejectLongName && "rejectLongName"],
    ["description", description, options.rejectLongDescription && "rejectLongDescription"],
  ] as const) {
    if (!rule) continue;
    const limit = SPEC_LIMITS[field];
    // Trimming, joining whitespace and counting code points never makes a text longer.
    if (value.length <= limit) continue;
    const length = singleLineLength(value);
    if (length > limit) {
      return new SkillError(
        "INVALID_FIELD",
        `Field '${field}' is ${length} characters, over the limit of ${limit}, in ${location}; the skill is not loaded (${rule})`,
        { path: location, field },
      );
    }
  }
  return undefined;
}
