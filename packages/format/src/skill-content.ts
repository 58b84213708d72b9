import { dirname, isAbsolute, join } from "node:path";
import { compareCodeUnits, SkillError, type SkillInfo } from "@skill/core";
import { escapeXml } from "./escape.js";
import { checkLocationStyle, formatLocation, type LocationStyle } from "./location.js";

/** Options of {@link formatSkillContent}. */
export interface SkillContentOptions {
  /**
   * Files bundled with the skill: relative to the skill's folder (what `SkillService.files`
   * returns) or absolute. Given: a `<skill_files>` block lists them; absent: no such block.
   */
  readonly files?: readonly string[];
  /** Most files listed (default 10); a note says when the list was cut. */
  readonly limit?: number;
  /** `path` (default) or `file-url` for the base directory and the files. */
  readonly locationStyle?: LocationStyle;
}

/** Files listed by default in `<skill_files>`. */
export const DEFAULT_FILE_LIMIT = 10;

function checkLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_FILE_LIMIT;
  if (typeof limit !== "number" || Number.isNaN(limit) || limit < 0) {
    throw new SkillError(
      "INVALID_FIELD",
      `Invalid file limit: expected a number >= 0, found ${JSON.stringify(limit) ?? String(limit)}`,
      { field: "limit" },
    );
  }
  return Math.floor(limit);
}

/**
 * The block an agent receives when it loads a skill (opencode's skill tool layout):
 *
 * ```text
 * <skill_content name="pdf">
 * # Skill: pdf
 *
 * <the body, trimmed>
 *
 * Base directory for this skill: /home/me/.agents/skills/pdf
 * Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.
 *
 * <skill_files>
 * <file>/home/me/.agents/skills/pdf/scripts/fill.py</file>
 * </skill_files>
 * </skill_content>
 * ```
 *
 * The body is markdown for the agent and is not escaped; the name, the base directory and
 * the file paths are (see {@link escapeXml}). `files` are made absolute against the skill's
 * folder, de-duplicated, stripped of the SKILL.md itself and sorted (code-unit order); at
 * most `limit` are listed, with a note saying how many there are when the list was cut.
 *
 * @example
 * const skill = await service.read("pdf", agent);
 * formatSkillContent(skill, { files: await service.files("pdf", agent) });
 *
 * @throws SkillError `INVALID_FIELD` for a negative or NaN `limit` or an unknown `locationStyle`
 */
export function formatSkillContent(skill: SkillInfo, options: SkillContentOptions = {}): string {
  const limit = checkLimit(options.limit);
  const style = checkLocationStyle(options.locationStyle ?? "path");
  const uri = isUri(skill.location);
  // A skill that is not a local file (skill://…, builtin:…) has a base URI, not a folder.
  const dir = uri
    ? skill.location.slice(0, skill.location.lastIndexOf("/") + 1) || skill.location
    : dirname(skill.location);
  const resolveFile = (f: string) => (uri ? (isUri(f) ? f : dir + f) : isAbsolute(f) ? f : join(dir, f));
  const name = escapeXml(skill.name);
  const body = skill.content.trim();

  const lines = [`<skill_content name="${name}">`, `# Skill: ${name}`, ""];
  if (body !== "") lines.push(body, "");
  lines.push(
    `Base directory for this skill: ${escapeXml(uri ? dir : formatLocation(dir, style))}`,
    "Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.",
  );

  if (options.files !== undefined) {
    const files = [...new Set(options.files.map(resolveFile))]
      .filter((f) => f !== skill.location)
      .sort(compareCodeUnits);
    const shown = files.slice(0, limit);
    if (shown.length < files.length) {
      lines.push(`Note: ${files.length} files are bundled; the first ${shown.length} (sorted) are listed.`);
    }
    lines.push(
      "",
      "<skill_files>",
      ...shown.map((f) => `<file>${escapeXml(uri ? f : formatLocation(f, style))}</file>`),
      "</skill_files>",
    );
  }
  lines.push("</skill_content>");
  return lines.join("\n");
}

/** A URI such as `skill://server/pdf/SKILL.md` or `builtin:pdf` (a drive letter is not a scheme). */
function isUri(location: string): boolean {
  return /^[a-zA-Z][a-zA-Z0-9+.-]+:/.test(location) && !isAbsolute(location);
}
