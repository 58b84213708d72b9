/** The one file name a skill folder is recognised by (exact case). */
export const SKILL_FILE = "SKILL.md";

/** Default largest SKILL.md, in bytes (1 MiB). */
export const DEFAULT_MAX_BYTES = 1024 * 1024;
