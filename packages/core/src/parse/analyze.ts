import { describeKind, printable, quote, SkillError } from "../spec/errors.js";
import type { Diagnostic } from "../spec/types.js";
import { type Analysis, type AnalyzeOptions, diagnostic, fail } from "./analysis.js";
import { analyzeFields } from "./analyze-fields.js";
import {
  type FrontmatterBounds,
  locateFrontmatter,
  missingDelimitersError,
  normalizeText,
} from "./frontmatter.js";
import { deepFreeze, simpleJsonValue, toJsonValue } from "./json-value.js";
import { keyLines, lineAt } from "./key-lines.js";
import { exceedsNodeLimit, fieldsByLines, parseYaml, repairPlainScalars, type YamlFailure } from "./yaml.js";

/** Values a frontmatter may expand to (aliases followed) before it is refused. */
const MAX_FRONTMATTER_NODES = 10_000;

/** The memo-free steps, as `ParseMemo` does them. */
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

function optionalLine(line: number | undefined): { line?: number } {
  return line === undefined ? {} : { line };
}

/** Parses SKILL.md text without throwing: the shared core of every read path. */
export function analyzeSkill(text: string, location: string, options: AnalyzeOptions): Analysis {
  const diagnostics: Diagnostic[] = [];
  if (options.invalidUtf8) {
    diagnostics.push(
      diagnostic(
        "invalid-utf8",
        options.lenient ? "warning" : "error",
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
  if (!bounds) return withoutFrontmatter(normalized, location, options, diagnostics);

  const parse = memo ? (t: string) => memo.yaml(t) : parseYaml;
  let parsed = parse(bounds.frontmatter);
  let fmText = bounds.frontmatter;
  if (!parsed.ok) {
    const brokenYaml = options.brokenYaml ?? (options.lenient ? "repair" : "refuse");
    const failure = parsed.failure;
    if (brokenYaml === "ignore") {
      return yamlReadAnyway(undefined, failure, bounds.body, location, options, diagnostics);
    }
    if (brokenYaml === "lines") {
      const fields = fieldsByLines(bounds.frontmatter);
      if (fields) return yamlReadAnyway(fields, failure, bounds.body, location, options, diagnostics);
      return yamlError(failure, normalized, location, diagnostics, undefined);
    }
    const repair = repairPlainScalars(bounds.frontmatter, brokenYaml !== "quote");
    const retried = repair ? parse(repair.text) : undefined;
    const quoteKey = repair && retried?.ok ? (repair.keys[0] ?? "") : undefined;
    if ((brokenYaml !== "repair" && brokenYaml !== "quote") || !repair || !retried?.ok) {
      return yamlError(failure, normalized, location, diagnostics, quoteKey);
    }
    parsed = retried;
    fmText = repair.text;
    repairWarnings(repair.text, repair.keys, location, diagnostics);
  }
  return analyzeValue(parsed.value ?? {}, fmText, bounds.body, location, options, diagnostics);
}

/** A text without `---` delimiters: refused, or (`requireFrontmatter: false`) a skill with no fields. */
function withoutFrontmatter(
  normalized: string,
  location: string,
  options: AnalyzeOptions,
  diagnostics: Diagnostic[],
): Analysis {
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

/**
 * Broken YAML read anyway, with a warning: under `brokenYaml: "ignore"` as a skill with no
 * fields (`fields` undefined), under `"lines"` with the name and description read line by line.
 */
function yamlReadAnyway(
  fields: { name: string; description: string } | undefined,
  failure: YamlFailure,
  body: string,
  location: string,
  options: AnalyzeOptions,
  diagnostics: Diagnostic[],
): Analysis {
  const fileLine = failure.line === undefined ? undefined : failure.line + 1;
  const how = fields ? "its name and description were read line by line" : "read as a skill with no fields";
  diagnostics.push(
    diagnostic(
      "yaml-invalid",
      "warning",
      `Failed to parse frontmatter: ${failure.reason} in ${location}; ${how}`,
      location,
      optionalLine(fileLine),
    ),
  );
  const stored = Object.freeze(fields ? { ...fields } : {});
  return analyzeFields(fields ?? {}, stored, location, options, { diagnostics, body });
}

/** One warning per field whose unquoted `: ` the repair quoted. */
function repairWarnings(
  text: string,
  keys: readonly string[],
  location: string,
  diagnostics: Diagnostic[],
): void {
  const lines = keyLines(text);
  for (const key of keys) {
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
}

/**
 * The last line before `end` whose value opens a `mark` quote that the line does not close
 * (`description: "unclosed`), 1-based; `undefined` when none does.
 */
function unclosedQuoteLine(text: string, end: number, mark: '"' | "'"): number | undefined {
  const lines = text.split("\n", end);
  for (let n = Math.min(end, lines.length) - 1; n >= 1; n--) {
    const value = /^\s*(?:-\s+)?[^\s#"'][^:]*:\s+(.*)$/.exec(lines[n] as string)?.[1];
    if (value === undefined || !value.startsWith(mark)) continue;
    // Closed when a quote follows that is not escaped (`\"`) or doubled (`''`).
    const rest = value.slice(1);
    const closed = mark === '"' ? /(^|[^\\])(\\\\)*"/.test(rest) : /'(?!')/.test(rest.replace(/''/g, ""));
    if (!closed) return n + 1;
  }
  return undefined;
}

/** Broken YAML refused: where, what was found, and (`quoteKey`) which value quotes would fix. */
function yamlError(
  failure: YamlFailure,
  normalized: string,
  location: string,
  diagnostics: Diagnostic[],
  quoteKey: string | undefined,
): Analysis {
  const fileLine = failure.line === undefined ? undefined : failure.line + 1;
  const found = fileLine === undefined ? "" : lineAt(normalized, fileLine);
  let message = `Failed to parse frontmatter: ${failure.reason}`;
  if (fileLine !== undefined) message += ` at line ${fileLine}`;
  message += ` in ${location}`;
  if (found) message += ` (found ${quote(found.trim())})`;
  if (quoteKey !== undefined) message += `; put the value of '${printable(quoteKey)}' in quotes`;
  // js-yaml tells where the stream ended, not where the quote that never closed was opened.
  const kind = /within a (double|single) quoted scalar/.exec(failure.reason)?.[1];
  const opened =
    kind && fileLine !== undefined
      ? unclosedQuoteLine(normalized, fileLine, kind === "double" ? '"' : "'")
      : undefined;
  if (opened !== undefined) message += `; the quote opened on line ${opened} is never closed`;
  const error = new SkillError("PARSE_ERROR", message, { path: location });
  return fail(diagnostics, error, "yaml-invalid", fileLine);
}

/** The parsed frontmatter, refused when it is too large or not a mapping, else made a skill. */
function analyzeValue(
  value: unknown,
  fmText: string,
  body: string,
  location: string,
  options: AnalyzeOptions,
  diagnostics: Diagnostic[],
): Analysis {
  const memo = options.memo;
  const isMappingValue = typeof value === "object" && !Array.isArray(value) && !(value instanceof Date);
  const made = isMappingValue
    ? memo
      ? memo.data(value as object, MAX_FRONTMATTER_NODES)
      : dataOf(value as object, MAX_FRONTMATTER_NODES)
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
  return analyzeFields(frontmatter, data, location, options, { diagnostics, body, lineOf });
}
