import type { ShadowedSkill, SkillErrorCode } from "./types.js";

/** Where libraries publish events; see {@link SkillEvents} for the payloads. Return values are ignored. */
export interface EventBus {
  publish(topic: string, payload: unknown): unknown;
}

/** Payloads a {@link SkillService} publishes, by topic; a typed bus can use `keyof SkillEvents`. */
export interface SkillEvents {
  /** A SKILL.md (or a whole source, `path` = its id) could not be loaded. */
  "session.error": { readonly type: "skill_parse_error"; readonly path: string; readonly error: string };
  /** Two skills had the same name; the later one won. */
  "skill.shadowed": ShadowedSkill;
  /** What an `update` changed, by skill name (sorted). */
  "skill.changed": {
    readonly added: readonly string[];
    readonly changed: readonly string[];
    readonly removed: readonly string[];
  };
}

/** Structured fields of a log line: what a program filters on, instead of the wording. */
export interface LogFields {
  /** A {@link SkillErrorCode} or a {@link Diagnostic} rule id. */
  readonly code?: SkillErrorCode | (string & {});
  /** The system error code behind it: `ENOENT`, `EACCES`, `ELOOP`… */
  readonly errno?: string;
  readonly path?: string;
  readonly url?: string;
  /** The id of the source concerned. */
  readonly source?: string;
  /** The skill name concerned. */
  readonly name?: string;
}

/** Where libraries send warnings; they never print. */
export interface Logger {
  warn(message: string, fields?: LogFields): void;
  debug?(message: string, fields?: LogFields): void;
}
