import type { SkillError } from "./errors.js";
import type { SkippedPath } from "./skill-source.js";
import type { Diagnostic, ShadowedSkill } from "./types.js";

/** A file (or source) that could not be loaded. */
export interface LoadFailure {
  /** The SKILL.md location, or the source id when a whole source failed to scan. */
  readonly path: string;
  readonly error: SkillError;
}

/** The registry after a load or an update. */
export interface LoadReport {
  /** Skills in the registry. */
  readonly loaded: number;
  /** Files and sources that could not be loaded. */
  readonly failed: readonly LoadFailure[];
  /** Name collisions, in precedence order. */
  readonly shadowed: readonly ShadowedSkill[];
  /** Warnings and errors from sources and files, with rule ids. */
  readonly diagnostics: readonly Diagnostic[];
  /** What the sources' scans passed over on purpose (`SourceScan.skipped`), in source order. */
  readonly skipped?: readonly SkippedPath[];
}
