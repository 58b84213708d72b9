import { basename, dirname } from "node:path";
import { describeKind, printable, quote, SkillError } from "../spec/errors.js";
import type { Diagnostic, LoadRules, SkillInfo, ValidationTarget } from "../spec/types.js";
import { singleLineLength } from "../util/text.js";
import {
  type FrontmatterBounds,
  locateFrontmatter,
  missingDelimitersError,
  normalizeText,
} from "./frontmatter.js";
import { deepFreeze, simpleJsonValue, toJsonValue } from "./json-value.js";
import { checkFrontmatter, SPEC_LIMITS } from "./validate.js";
import { exceedsNodeLimit, parseYaml, repairPlainScalars, type YamlResult } from "./yaml.js";

/** Values a frontmatter may expand to (aliases followed) before it is refused. */
const MAX_FRONTMATTER_NODES = 10_000;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Everything learned about one SKILL.md text; `error` set when it cannot become a skill. */
export interface Analysis {
  readonly skill?: SkillInfo;
  /** The frontmatter as JSON data (see `toJsonValue`), frozen; set once it parsed as a mapping. */
  readonly frontmatter?: Readonly<Record<string, unknown>>;
  readonly diagnostics: Diagnostic[];
  readonly error?: SkillError;
  /** The description came from a body this analysis did not have (a head): read the file. */
  readonly needsBody?: boolean;
}

/** The load rules, resolved, plus what the reader learned about the bytes. */
export interface AnalyzeOptions {
  readonly lenient: boolean;
  readonly nameFallback?: LoadRules["nameFallback"];
  readonly rejectLongFields?: boolean;
  readonly identity?: LoadRules["identity"];
  readonly requireDescription?: LoadRules["requireDescription"];
  readonly descriptionFallback?: LoadRules["descriptionFallback"];
  readonly rejectBom?: boolean;
  readonly requireFrontmatter?: boolean;
  readonly brokenYaml?: LoadRules["brokenYaml"];
  readonly rejectInvalidName?: boolean;
  readonly invalidUtf8?: boolean;
  /** Judge the frontmatter as this place would (validation only; default `spec`). */
  readonly target?: ValidationTarget;
  /** The id of the source, copied onto the skill. */
  readonly source?: string;
  /** Who vouches for the skill; default the source id, else `manual`. */
  readonly origin?: string;
  /** What loads sharing reads remember of a text, whatever their rules (see `sharedReads`). */
  readonly memo?: ParseMemo;
  /**
   * The skill is registry metadata: made without `content` (the body), so a bulk load keeps
   * the one frozen object it makes. A read leaves it unset.
   */
  readonly metadataOnly?: boolean;
}

/**
 * The steps of a parse that no load rule changes, each done once per input by a memo shared
 * between loads: the text normalized and split, its YAML parsed, the parse made JSON data.
 */
export interface ParseMemo {
  split(text: string): { readonly normalized: string; readonly bounds: FrontmatterBounds | undefined };
  yaml(text: string): YamlResult;
  /**
   * `check()`: the spec findings on these fields of this file, with this body, judged this way
   * (`how`); the same findings whatever else the load rules say.
   */
  findings(
    raw: object,
    body: string | undefined,
    location: string,
    how: string,
    check: () => Diagnostic[],
  ): readonly Diagnostic[];
  /** Whether the value exceeds the node limit, and else its JSON data, frozen. */
  data(value: object, limit: number): { readonly tooLarge: boolean; readonly data?: Record<string, unknown> };
}

/** The memo-free steps, as {@link ParseMemo} does them. */
export function splitText(text: string): { normalized: string; bounds: FrontmatterBounds | undefined } {
  const normalized = normalizeText(text);
  return { normalized, bounds: locateFrontmatter(normalized) };
}

/**
 * A parsed frontmatter as the frozen JSON data a skill keeps, or `tooLarge` past `limit`
 * values: in one pass for the common shapes (`simpleJsonValue`), else the full copy.
 */
export function dataOf(value: object, limit: number): { tooLarge: boolean; data?: Record<string, unknown> } {
  const simple = simpleJsonValue(value, limit);
  if (simple) return { tooLarge: false, data: simple };
  if (exceedsNodeLimit(value, limit)) return { tooLarge: true };
  return { tooLarge: false, data: deepFreeze(toJsonValue(value) as Record<string, unknown>) };
}

/** The load rules an analysis reads, in a fixed order (a cache fingerprint lists them so). */
const RULE_KEYS = [
  "nameFallback",
  "rejectLongFields",
  "identity",
  "requireDescription",
  "descriptionFallback",
  "rejectBom",
  "requireFrontmatter",
  "brokenYaml",
  "rejectInvalidName",
] as const;

/**
 * The load rules of `options` (a `SkillServiceOptions`, `ParseOptions`…) as an analysis takes
 * them: `lenient` resolved, every other rule copied when set. The one place a new rule is listed.
 */
export function resolveRules(options: LoadRules): AnalyzeOptions {
  const rules: Record<string, unknown> = { lenient: options.lenient ?? true };
  for (const key of RULE_KEYS) if (options[key] !== undefined) rules[key] = options[key];
  return rules as unknown as AnalyzeOptions;
}

/** The rules of an analysis as a list of values in a fixed order: equal rules, equal lists (a cache key part). */
export function rulesFingerprint(rules: AnalyzeOptions): unknown[] {
  return [rules.lenient, ...RULE_KEYS.map((key) => rules[key] ?? null)];
}

/** Spec name findings that `rejectInvalidName` turns into a refusal. */
const INVALID_NAME_CODES: ReadonlySet<string> = new Set([
  "name-invalid-chars",
  "name-leading-or-trailing-hyphen",
  "name-consecutive-hyphens",
]);

/**
 * Top-level keys of frontmatter text → 1-based line in the file (the opening `---` is line 1).
 * A hand-written scan: a regex here was quadratic on long runs of blanks.
 */
function keyLines(frontmatter: string): Map<string, number> {
  const lines = new Map<string, number>();
  let from = 0;
  for (let row = 0; from <= frontmatter.length; row++) {
    let to = frontmatter.indexOf("\n", from);
    if (to === -1) to = frontmatter.length;
    const key = keyOf(frontmatter, from, to);
    if (key !== undefined && !lines.has(key)) lines.set(key, row + 2);
    from = to + 1;
  }
  return lines;
}

/** The key a top-level `key: value` line in `text[from, to)` starts with. */
function keyOf(text: string, from: number, to: number): string | undefined {
  const first = text[from];
  if (first === undefined || from >= to) return undefined;
  let end: number;
  let key: string;
  if (first === '"' || first === "'") {
    end = text.indexOf(first, from + 1);
    if (end === -1 || end >= to || end === from + 1) return undefined;
    key = text.slice(from + 1, end);
    end++;
  } else {
    if (first === " " || first === "\t" || first === "#" || first === ":") return undefined;
    end = text.indexOf(":", from);
    if (end === -1 || end >= to) return undefined;
    key = text.slice(from, end).trimEnd();
  }
  while (end < to && (text[end] === " " || text[end] === "\t")) end++;
  if (text[end] !== ":") return undefined;
  const after = text[end + 1];
  return end + 1 === to || after === " " || after === "\t" ? key : undefined;
}

function diagnostic(
  code: string,
  severity: Diagnostic["severity"],
  message: string,
  path: string,
  extra: { field?: string; line?: number } = {},
): Diagnostic {
  const d: Mutable<Diagnostic> = { code, severity, message, path };
  if (extra.field !== undefined) d.field = extra.field;
  if (extra.line !== undefined) d.line = extra.line;
  return d;
}

function fail(diagnostics: Diagnostic[], error: SkillError, code: string, line?: number): Analysis {
  diagnostics.push(
    diagnostic(code, "error", error.message, error.path ?? "", {
      ...(error.field === undefined ? {} : { field: error.field }),
      ...(line === undefined ? {} : { line }),
    }),
  );
  return { diagnostics, error };
}

function optionalLine(line: number | undefined): { line?: number } {
  return line === undefined ? {} : { line };
}

/** `true`, `yes` (any case) or the YAML boolean. */
function isTrue(value: unknown): boolean {
  if (value === true) return true;
  if (typeof value !== "string") return false;
  const lower = value.trim().toLowerCase();
  return lower === "true" || lower === "yes";
}

/** `false`, `no` (any case) or the YAML boolean. */
function isFalse(value: unknown): boolean {
  if (value === false) return true;
  if (typeof value !== "string") return false;
  const lower = value.trim().toLowerCase();
  return lower === "false" || lower === "no";
}

/** The folder a SKILL.md location sits in (a path or a URI): the name `nameFallback` uses. */
export function folderName(location: string): string {
  return basename(dirname(location));
}

/** Parses SKILL.md text without throwing: the shared core of every read path. */
export function analyzeSkill(text: string, location: string, options: AnalyzeOptions): Analysis {
  const severity = options.lenient ? "warning" : "error";
  const diagnostics: Diagnostic[] = [];
  if (options.invalidUtf8) {
    diagnostics.push(
      diagnostic(
        "invalid-utf8",
        severity,
        `${location} is not valid UTF-8; the invalid bytes were read as U+FFFD`,
        location,
      ),
    );
  }
  if (options.rejectBom && text.charCodeAt(0) === 0xfeff) {
    const error = new SkillError(
      "PARSE_ERROR",
      `Failed to parse frontmatter: ${location} starts with a UTF-8 byte order mark (U+FEFF), where '---' was expected; this agent does not load it (rejectBom); save the file without the mark`,
      { path: location },
    );
    return fail(diagnostics, error, "bom", 1);
  }
  const memo = options.memo;
  const { normalized, bounds } = memo ? memo.split(text) : splitText(text);
  if (!bounds) {
    const error = missingDelimitersError(location, normalized);
    if (options.requireFrontmatter !== false) return fail(diagnostics, error, "frontmatter-missing", 1);
    diagnostics.push(
      diagnostic(
        "frontmatter-missing",
        "warning",
        `${error.message}; read as a skill with no fields`,
        location,
        {
          line: 1,
        },
      ),
    );
    return analyzeFields({}, Object.freeze({}), location, options, { diagnostics, body: normalized });
  }

  const parse = memo ? (t: string) => memo.yaml(t) : parseYaml;
  let parsed = parse(bounds.frontmatter);
  let fmText = bounds.frontmatter;
  const brokenYaml = options.brokenYaml ?? (options.lenient ? "repair" : "refuse");
  if (!parsed.ok) {
    const failure = parsed.failure;
    const repair = brokenYaml === "ignore" ? undefined : repairPlainScalars(bounds.frontmatter);
    const retried = repair ? parse(repair.text) : undefined;
    const fileLine = failure.line === undefined ? undefined : failure.line + 1;
    if (brokenYaml === "ignore") {
      diagnostics.push(
        diagnostic(
          "yaml-invalid",
          "warning",
          `Failed to parse frontmatter: ${failure.reason} in ${location}; read as a skill with no fields`,
          location,
          optionalLine(fileLine),
        ),
      );
      return analyzeFields({}, Object.freeze({}), location, options, { diagnostics, body: bounds.body });
    }
    if (brokenYaml === "repair" && repair && retried?.ok) {
      parsed = retried;
      fmText = repair.text;
      const lines = keyLines(repair.text);
      for (const key of repair.keys) {
        diagnostics.push(
          diagnostic(
            "yaml-repaired",
            "warning",
            `Field '${printable(key)}' holds ': ' in an unquoted value; it was read as a quoted string in ${location} (quote it to silence this warning)`,
            location,
            { field: key, ...optionalLine(lines.get(key)) },
          ),
        );
      }
    } else {
      const found = fileLine === undefined ? "" : lineAt(normalized, fileLine);
      let message = `Failed to parse frontmatter: ${failure.reason}`;
      if (fileLine !== undefined) message += ` at line ${fileLine}`;
      message += ` in ${location}`;
      if (found) message += ` (found ${quote(found.trim())})`;
      if (repair && retried?.ok)
        message += `; put the value of '${printable(repair.keys[0] ?? "")}' in quotes`;
      const error = new SkillError("PARSE_ERROR", message, { path: location });
      return fail(diagnostics, error, "yaml-invalid", fileLine);
    }
  }

  const value = parsed.value ?? {};
  const isMappingValue = typeof value === "object" && !Array.isArray(value) && !(value instanceof Date);
  const made = isMappingValue
    ? memo
      ? memo.data(value, MAX_FRONTMATTER_NODES)
      : dataOf(value, MAX_FRONTMATTER_NODES)
    : { tooLarge: exceedsNodeLimit(value, MAX_FRONTMATTER_NODES) };
  if (made.tooLarge) {
    const error = new SkillError(
      "LIMIT_EXCEEDED",
      `Failed to parse frontmatter: it expands to more than ${MAX_FRONTMATTER_NODES} values (YAML aliases) in ${location}`,
      { path: location },
    );
    return fail(diagnostics, error, "frontmatter-too-large", 1);
  }
  if (typeof value !== "object" || Array.isArray(value) || value instanceof Date) {
    const error = new SkillError(
      "PARSE_ERROR",
      `Failed to parse frontmatter: expected a mapping of fields (name: …, description: …), found ${describeKind(value)} ${quote(value)} in ${location}`,
      { path: location },
    );
    return fail(diagnostics, error, "frontmatter-not-mapping", 2);
  }
  // Checks read the YAML as parsed (so a date is reported as a date); the skill keeps it as
  // JSON data (dates as ISO strings, `!!binary` as base64), frozen.
  const frontmatter = value as Record<string, unknown>;
  const data = made.data as Record<string, unknown>;

  let lines: Map<string, number> | undefined;
  const lineOf = (field: string) => {
    lines ??= keyLines(fmText);
    return lines.get(field);
  };
  return analyzeFields(frontmatter, data, location, options, {
    diagnostics,
    body: bounds.body,
    lineOf,
  });
}

/** What a text parse knows besides the fields: earlier findings, the body, where keys are. */
interface FieldContext {
  readonly diagnostics: Diagnostic[];
  /** The markdown body; `undefined` when only the frontmatter is known (a head). */
  readonly body?: string;
  readonly lineOf?: (field: string) => number | undefined;
  /** `false`: the findings are known already (a cached head keeps them); only the skill is made. */
  readonly check?: boolean;
}

/**
 * Turns parsed frontmatter into a skill by the load rules: validation findings, the name
 * fallback, required fields, long fields. `raw` is what the YAML parser gave (checked);
 * `stored` is what the skill keeps (the same fields, JSON data). The one place these rules
 * live, for a text parse and a head alike.
 */
export function analyzeFields(
  raw: Readonly<Record<string, unknown>>,
  stored: Readonly<Record<string, unknown>>,
  location: string,
  options: AnalyzeOptions,
  context: FieldContext,
): Analysis {
  const { diagnostics } = context;
  const frontmatter = raw;
  const byFolder = options.identity === "folder";
  const fallback = (options.nameFallback === "folder" || byFolder) && isBlank(frontmatter.name);
  // No closure is made per skill unless it is needed: a bulk load runs this thousands of times.
  const findings: readonly Diagnostic[] =
    context.check === false
      ? []
      : options.memo
        ? options.memo.findings(
            frontmatter,
            context.body,
            location,
            `${!options.lenient}:${options.target ?? ""}`,
            () => findingsOf(frontmatter, location, options, context),
          )
        : findingsOf(frontmatter, location, options, context);
  if (findings.length > 0) placeFindings(findings, frontmatter, location, options, context, fallback);

  const rawName = frontmatter.name;
  if (!fallback && !byFolder) {
    if (isBlank(rawName)) return missing(context, stored, frontmatter, location, "name", rawName);
    if (typeof rawName !== "string") return notString(context, stored, location, "name", rawName);
  }
  const rawDescription = frontmatter.description;
  let description: string;
  let needsBody = false;
  if (rawDescription !== undefined && rawDescription !== null && typeof rawDescription !== "string") {
    return notString(context, stored, location, "description", rawDescription);
  }
  const require = options.requireDescription ?? true;
  if (isBlank(rawDescription) && options.descriptionFallback === "body") {
    if (context.body === undefined) needsBody = true;
    description = firstLine(context.body ?? "");
  } else {
    description = typeof rawDescription === "string" ? rawDescription.trim() : "";
  }
  if (description === "") {
    if (
      require === true ||
      (require === "field" && (rawDescription === undefined || rawDescription === null))
    ) {
      return missing(context, stored, frontmatter, location, "description", rawDescription);
    }
  }

  const key = fallback || byFolder ? folderName(location) : (rawName as string).trim();
  const shown = typeof rawName === "string" ? rawName.trim() : "";
  const displayName = byFolder && shown !== "" && shown !== key ? shown : undefined;
  const name = key;
  if (options.rejectInvalidName && !fallback && !byFolder) {
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
  if (options.rejectLongFields) {
    const error = longFieldError(name, description, location);
    if (error) return fail(diagnostics, error, `${error.field}-too-long`, lineIn(context, error.field) ?? 1);
  }

  const made: { -readonly [K in keyof SkillInfo]?: SkillInfo[K] } = {
    name,
    description,
    location,
    frontmatter: stored,
  };
  if (options.source !== undefined) made.source = options.source;
  made.origin = options.origin ?? options.source ?? "manual";
  made.modelInvocable = !isTrue(frontmatter["disable-model-invocation"]);
  made.userInvocable = !isFalse(frontmatter["user-invocable"]);
  if (displayName !== undefined) made.displayName = displayName;
  // Without `content` for a bulk load (`metadataOnly`): `accept` then keeps this object as is.
  if (!options.metadataOnly) made.content = context.body ?? "";
  const skill = Object.freeze(made) as SkillInfo;
  return { skill, frontmatter: stored, diagnostics, ...(needsBody ? { needsBody } : {}) };
}

/** The line of a field in the text parsed, when known. */
function lineIn(context: FieldContext, field: string | undefined): number | undefined {
  return field === undefined ? undefined : context.lineOf?.(field);
}

/** The specification's findings on the fields (what `checkFrontmatter` says under the load rules). */
function findingsOf(
  frontmatter: Readonly<Record<string, unknown>>,
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
  frontmatter: Readonly<Record<string, unknown>>,
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
function foundFields(frontmatter: Readonly<Record<string, unknown>>): string {
  const keys = Object.keys(frontmatter);
  return keys.length > 0 ? `found fields: ${keys.map((k) => printable(k)).join(", ")}` : "no fields found";
}

function missing(
  context: FieldContext,
  stored: Readonly<Record<string, unknown>>,
  frontmatter: Readonly<Record<string, unknown>>,
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
  stored: Readonly<Record<string, unknown>>,
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

function longFieldError(name: string, description: string, location: string): SkillError | undefined {
  for (const [field, value] of [
    ["name", name],
    ["description", description],
  ] as const) {
    const limit = SPEC_LIMITS[field];
    // Trimming, joining whitespace and counting code points never makes a text longer.
    if (value.length <= limit) continue;
    const length = singleLineLength(value);
    if (length > limit) {
      return new SkillError(
        "INVALID_FIELD",
        `Field '${field}' is ${length} characters, over the limit of ${limit}, in ${location}; the skill is not loaded (rejectLongFields)`,
        { path: location, field },
      );
    }
  }
  return undefined;
}

/** The 1-based line `n` of normalized text, found without splitting the whole text. */
function lineAt(text: string, n: number): string {
  let from = 0;
  for (let i = 1; i < n; i++) {
    const next = text.indexOf("\n", from);
    if (next === -1) return "";
    from = next + 1;
  }
  const to = text.indexOf("\n", from);
  return text.slice(from, Math.min(to === -1 ? text.length : to, from + 200));
}

/**
 * Strict loading (`lenient: false`): a skill with any error finding is refused, with the
 * rule ids in the message. The one place this rule lives; `undefined` when it may load.
 */
export function strictRejection(analysis: Analysis, location: string): SkillError | undefined {
  if (analysis.diagnostics.length === 0) return undefined;
  const errors = analysis.diagnostics.filter((d) => d.severity === "error");
  if (errors.length === 0) return undefined;
  const first = errors[0] as Diagnostic;
  const field = first.field;
  const more =
    errors.length > 1
      ? ` (and ${errors.length - 1} more: ${errors
          .slice(1)
          .map((d) => d.code)
          .join(", ")})`
      : "";
  return new SkillError(
    "INVALID_FIELD",
    `Skill ${location} breaks the Agent Skills rules: ${first.code}: ${first.message}${more}`,
    { path: location, ...(field === undefined ? {} : { field }) },
  );
}
