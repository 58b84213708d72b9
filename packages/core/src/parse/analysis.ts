import { SkillError } from "../spec/errors.js";
import type { Diagnostic, LoadRules, SkillInfo, ValidationTarget } from "../spec/types.js";
import type { FrontmatterBounds } from "./frontmatter.js";
import type { YamlResult } from "./yaml.js";

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
  readonly rejectLongName?: boolean;
  readonly rejectLongDescription?: boolean;
  readonly identity?: LoadRules["identity"];
  readonly requireDescription?: LoadRules["requireDescription"];
  readonly descriptionFallback?: LoadRules["descriptionFallback"];
  readonly rejectBom?: boolean;
  readonly requireFrontmatter?: boolean;
  readonly brokenYaml?: LoadRules["brokenYaml"];
  readonly rejectInvalidName?: LoadRules["rejectInvalidName"];
  /** Read by the loader, not the parse: Codex's `agents/openai.yaml` beside a SKILL.md on disk. */
  readonly codexPolicy?: boolean;
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
  /** `bodySummary(body)`: the summary of a body. */
  summary(body: string): string | undefined;
}

export function diagnostic(
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

/** The analysis of a text that cannot become a skill: the error, also as a finding. */
export function fail(diagnostics: Diagnostic[], error: SkillError, code: string, line?: number): Analysis {
  diagnostics.push(
    diagnostic(code, "error", error.message, error.path ?? "", {
      ...(error.field === undefined ? {} : { field: error.field }),
      ...(line === undefined ? {} : { line }),
    }),
  );
  return { diagnostics, error };
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
