import { basename, dirname } from "node:path";
import { codexUserOnly } from "../files/codex-sidecar.js";
import {
  checkMaxBytes,
  READ_CODES,
  readError,
  readSkillFile,
  type SkillFileText,
  tooLargeError,
} from "../files/read-file.js";
import { SKILL_FILE } from "../spec/constants.js";
import { quote, SkillError } from "../spec/errors.js";
import type { Diagnostic, ParsedSkill, ParseOptions, ValidateOptions } from "../spec/types.js";
import { type Analysis, strictRejection } from "./analysis.js";
import { analyzeSkill } from "./analyze.js";
import { resolveRules } from "./load-rules.js";
import { type UserOnlySpelling, userOnlyNote, userOnlySpellings, userOnlyVerdict } from "./user-only.js";

function checkTextSize(text: string, location: string, maxBytes: number): void {
  if (text.length * 3 <= maxBytes) return;
  const size = Buffer.byteLength(text, "utf8");
  if (size > maxBytes) throw tooLargeError(location, size, maxBytes);
}

function rulesOf(options: ParseOptions) {
  return resolveRules(options);
}

function toParsed(analysis: Analysis, location: string, lenient: boolean): ParsedSkill {
  if (analysis.error || !analysis.skill) throw analysis.error;
  const rejection = lenient ? undefined : strictRejection(analysis, location);
  if (rejection) throw rejection;
  return { skill: analysis.skill, diagnostics: analysis.diagnostics };
}

/**
 * Parses the text of a SKILL.md. `location` is the absolute path of the file (or a URI); it
 * becomes `SkillInfo.location` and names the file in every message.
 *
 * @throws SkillError `PARSE_ERROR` (no delimiters, invalid YAML, not a mapping), `MISSING_FIELD`,
 * `INVALID_FIELD` (also: any spec finding when `lenient: false`), `LIMIT_EXCEEDED`
 * @example
 * const { skill, diagnostics } = parseSkill("---\nname: pdf\ndescription: Read PDFs\n---\n# PDF\n", "/s/pdf/SKILL.md");
 * skill.name; // "pdf"
 */
export function parseSkill(text: string, location: string, options: ParseOptions = {}): ParsedSkill {
  checkTextSize(text, location, checkMaxBytes(options.maxBytes));
  return toParsed(analyzeSkill(text, location, rulesOf(options)), location, options.lenient ?? true);
}

/**
 * Reads and parses one SKILL.md. With `codexPolicy`, the Codex sidecar beside it
 * (`agents/openai.yaml`) is looked at too (see `LoadRules.codexPolicy`).
 *
 * @throws SkillError `NOT_FOUND` (no such file), `READ_ERROR` (a directory, unreadable),
 * `LIMIT_EXCEEDED` (over `maxBytes`, refused before reading), and every error of {@link parseSkill}
 * @example
 * const { skill } = await loadSkillFile("/home/me/.agents/skills/pdf/SKILL.md");
 */
export async function loadSkillFile(path: string, options: ParseOptions = {}): Promise<ParsedSkill> {
  const file = await readSkillFile(path, checkMaxBytes(options.maxBytes));
  const parsed = toParsed(
    analyzeSkill(file.text, path, { ...rulesOf(options), invalidUtf8: file.invalidUtf8 }),
    path,
    options.lenient ?? true,
  );
  if (!options.codexPolicy || !parsed.skill.modelInvocable || !codexUserOnly(path)) return parsed;
  return { ...parsed, skill: Object.freeze({ ...parsed.skill, modelInvocable: false }) };
}

/**
 * Validates a SKILL.md file against the Agent Skills rules. Never throws for a bad file: a
 * missing, unreadable or unparseable file is itself an `error` diagnostic (`file-not-found`,
 * `file-unreadable`, `file-too-large`, `frontmatter-missing`, `yaml-invalid`,
 * `frontmatter-not-mapping`). Spec findings are warnings, or errors with `strict`. With a
 * `target`, the file is judged as that place would judge it (see {@link validateFrontmatter});
 * a file named `skill.md` gets `file-name-case` except under `skills-ref`, which accepts it.
 * Under `claude-code` and `codex`, a skill that says "user-only" only in a way the target does
 * not read gets `user-only-ignored` (for `codex`, its `agents/openai.yaml` is read as Codex
 * reads it: see `LoadRules.codexPolicy`).
 *
 * @example
 * const findings = await validateSkillFile("skills/pdf/SKILL.md", { strict: true });
 * const ok = findings.every((d) => d.severity !== "error");
 */
export async function validateSkillFile(path: string, options: ValidateOptions = {}): Promise<Diagnostic[]> {
  const target = options.target ?? "spec";
  let file: SkillFileText;
  try {
    file = await readSkillFile(path);
  } catch (error) {
    const e = SkillError.isInstance(error) ? error : readError(path, error);
    return [{ code: READ_CODES[e.code] ?? "file-unreadable", severity: "error", message: e.message, path }];
  }
  const diagnostics: Diagnostic[] = [];
  const fileName = basename(path);
  // skills-ref accepts skill.md too; agents look for SKILL.md, which a case-sensitive disk tells apart.
  const accepted = target === "skills-ref" ? [SKILL_FILE, "skill.md"] : [SKILL_FILE];
  if (!accepted.includes(fileName) && fileName.toUpperCase() === SKILL_FILE.toUpperCase()) {
    const lookFor = accepted.join(" or ");
    diagnostics.push({
      code: "file-name-case",
      severity: options.strict ? "error" : "warning",
      message: `The file is named ${quote(fileName)} but ${target === "skills-ref" ? "skills-ref" : "agents"} look for ${lookFor}, which a case-sensitive file system tells apart: ${path}`,
      path,
    });
  }
  const analysis = analyzeSkill(file.text, path, {
    lenient: !options.strict,
    invalidUtf8: file.invalidUtf8,
    target,
    // Claude Code and Codex name a skill without `name` after its folder.
    ...(target === "claude-code" || target === "codex" ? { nameFallback: "folder" as const } : {}),
  });
  diagnostics.push(...analysis.diagnostics);
  if (analysis.frontmatter) {
    // The skill's Codex sidecar is read under both targets that judge "user-only": Codex reads
    // it (`codexPolicy`), and Claude Code does not, which a skill spelled only that way is told.
    const sidecar = (target === "codex" || target === "claude-code") && codexUserOnly(path);
    const spellings = userOnlySpellings(analysis.frontmatter, sidecar);
    const name = analysis.skill?.name ?? basename(dirname(path));
    const found = userOnlyFinding(target, spellings, name, path, options.strict === true);
    if (found) diagnostics.push(found);
  }
  return diagnostics;
}

/**
 * `user-only-ignored` when the target reads none of the ways the skill says "user-only" (its
 * model sees the skill), `user-only-unreachable` when the target refuses such a skill to
 * everyone; a warning, or an error with `strict`.
 */
function userOnlyFinding(
  target: string,
  spellings: readonly UserOnlySpelling[],
  name: string,
  path: string,
  strict: boolean,
): Diagnostic | undefined {
  const verdict = userOnlyVerdict(target, spellings);
  const note = userOnlyNote(target, spellings, name);
  if (note === undefined || (verdict !== "ignored" && verdict !== "unreachable")) return undefined;
  return {
    code: `user-only-${verdict}`,
    severity: strict ? "error" : "warning",
    message: `${note} in ${path}`,
    path,
  };
}
