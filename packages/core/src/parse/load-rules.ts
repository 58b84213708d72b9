import type { LoadRules } from "../spec/types.js";
import type { AnalyzeOptions } from "./analysis.js";

/** The load rules an analysis reads, in a fixed order (a cache fingerprint lists them so). */
const RULE_KEYS = [
  "nameFallback",
  "rejectLongName",
  "rejectLongDescription",
  "identity",
  "requireDescription",
  "descriptionFallback",
  "rejectBom",
  "requireFrontmatter",
  "brokenYaml",
  "rejectInvalidName",
  "codexPolicy",
] as const;

/**
 * The load rules of `options` (a `SkillServiceOptions`, `ParseOptions`…) as an analysis takes
 * them: `lenient` resolved, every other rule copied when set. The one place a new rule is listed.
 */
export function resolveRules(options: LoadRules): AnalyzeOptions {
  const rules: Record<string, unknown> = { lenient: options.lenient ?? true };
  for (const key of RULE_KEYS) if (options[key] !== undefined) rules[key] = options[key];
  if (options.rejectLongFields !== undefined) {
    rules.rejectLongName ??= options.rejectLongFields;
    rules.rejectLongDescription ??= options.rejectLongFields;
  }
  return rules as unknown as AnalyzeOptions;
}

/** The rules of an analysis as a list of values in a fixed order: equal rules, equal lists (a cache key part). */
export function rulesFingerprint(rules: AnalyzeOptions): unknown[] {
  return [rules.lenient, ...RULE_KEYS.map((key) => rules[key] ?? null)];
}
