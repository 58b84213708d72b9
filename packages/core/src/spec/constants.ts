/** The file name a skill folder is recognised by (exact case). */
export const SKILL_FILE = "SKILL.md";

/**
 * Whether `name` (a file name, no folder) is a skill's own file in its folder: `SKILL.md`, or
 * the lower-case `skill.md` Amp reads too. Any other file a source gives as a skill (pi's flat
 * `.md` files) is a skill without a folder: it bundles no files.
 */
export function isSkillFileName(name: string): boolean {
  return name === SKILL_FILE || name === "skill.md";
}

/** Default largest SKILL.md, in bytes (1 MiB). */
export const DEFAULT_MAX_BYTES = 1024 * 1024;
