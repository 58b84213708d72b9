import type { SkillError } from "./errors.js";

/** Version of the SKILL.md contract this package implements. */
export const SKILL_SPEC_VERSION = 1 as const;

/** One loaded skill. */
export interface SkillInfo {
  /** The `name` frontmatter field, surrounding whitespace trimmed. Unique in a registry. */
  readonly name: string;
  /** The `description` frontmatter field, surrounding whitespace trimmed. */
  readonly description: string;
  /** Absolute path of the SKILL.md file, as the source reached it (a symlink stays a symlink). */
  readonly location: string;
  /**
   * Markdown body: everything after the closing frontmatter line, untrimmed, LF line endings.
   * Skills held by a {@link SkillService} read it from disk on first access and keep it
   * (progressive disclosure); reading it then may throw a `SkillError` if the file is gone.
   */
  readonly content: string;
  /** Every frontmatter field as parsed, in document order. */
  readonly frontmatter: Readonly<Record<string, unknown>>;
  /** Id of the {@link SkillSource} that found it, when loaded through one. */
  readonly source?: string;
}

/** One finding about a skill file. */
export interface Diagnostic {
  /** Stable rule id, e.g. `name-mismatch`, `unknown-field:version`, `yaml-repaired`. */
  readonly code: string;
  /** `error` stops the skill from loading (or fails strict validation); `warning` does not. */
  readonly severity: "error" | "warning";
  /** A sentence for people, naming the file. */
  readonly message: string;
  /** Absolute path of the file concerned. */
  readonly path?: string;
  /** The frontmatter field concerned. */
  readonly field?: string;
  /** 1-based line in the file, where known. */
  readonly line?: number;
}

/** Options of {@link parseSkill} and {@link loadSkillFile}. */
export interface ParseOptions {
  /**
   * Repair what other agents accept (default `true`): a plain scalar holding `: ` is re-read
   * as a quoted string, with a `yaml-repaired` warning. `false` repairs nothing and reports
   * spec findings as errors.
   */
  readonly lenient?: boolean;
  /** Largest file accepted, in bytes (default 1 MiB). Larger files fail with `LIMIT_EXCEEDED`. */
  readonly maxBytes?: number;
}

/** A parsed skill and what was noticed while parsing it. */
export interface ParsedSkill {
  readonly skill: SkillInfo;
  readonly diagnostics: readonly Diagnostic[];
}

/** Validation options. */
export interface ValidateOptions {
  /** Report findings as errors (skills-ref parity). Default `false`: warnings. */
  readonly strict?: boolean;
}

/** What a scan may be cancelled with. */
export interface ScanContext {
  readonly signal?: AbortSignal;
}

/** What one source found. */
export interface SourceScan {
  /** Absolute SKILL.md paths, sorted; later files take precedence over earlier ones. */
  readonly files: readonly string[];
  /** The root directories the source looked in (existing or not), for watchers and reports. */
  readonly dirs: readonly string[];
}

/** A place skills come from: a folder tree, a remote pack, a database… */
export interface SkillSource {
  /** Readable, unique id, e.g. `global:.claude` or `project:/abs/dir/.agents`. */
  readonly id: string;
  scan(ctx: ScanContext): Promise<SourceScan>;
}

/** Where libraries publish events (`session.error`, `skill.shadowed`). Return values are ignored. */
export interface EventBus {
  publish(topic: string, payload: unknown): unknown;
}

/** Where libraries send warnings; they never print. */
export interface Logger {
  warn(message: string, fields?: object): void;
  debug?(message: string, fields?: object): void;
}

/** What a permission rule decides. `ask` keeps a skill listed; `deny` hides it. */
export type PermissionAction = "allow" | "deny" | "ask";

/**
 * Permission config in the opencode shape: `{ "skill": "deny" }` or
 * `{ "skill": { "*": "allow", "internal-*": "deny" } }`. Key order matters: the last match wins.
 */
export type PermissionConfig = Readonly<
  Record<string, PermissionAction | Readonly<Record<string, PermissionAction>>>
>;

/** The agent a listing is for. */
export interface AgentInfo {
  readonly name: string;
  /** The agent's own rules; they override config and defaults. */
  readonly permission?: PermissionConfig;
}

/** Decides what an agent may do. `permission` is e.g. `skill`, `pattern` the skill name. */
export interface PermissionPolicy {
  evaluate(agent: AgentInfo, permission: string, pattern: string): PermissionAction;
}

/** Options of {@link SkillService}. */
export interface SkillServiceOptions {
  /** Where skills come from, lowest precedence first. */
  readonly sources?: readonly SkillSource[];
  /** Filters `all(agent)`; absent: every skill is visible. */
  readonly permission?: PermissionPolicy;
  /** Receives `session.error` and `skill.shadowed`. */
  readonly bus?: EventBus;
  /** Receives warnings (duplicate names, failed files). */
  readonly logger?: Logger;
  /** Repair and warn (default `true`); `false` rejects skills with any spec finding. */
  readonly lenient?: boolean;
  /** Largest SKILL.md accepted, in bytes (default 1 MiB). */
  readonly maxBytes?: number;
}

/** A file (or source) that could not be loaded. */
export interface LoadFailure {
  /** The SKILL.md path, or the source id when a whole source failed to scan. */
  readonly path: string;
  readonly error: SkillError;
}

/** A name collision: the skill at `kept` replaced the one at `dropped` (both SKILL.md paths). */
export interface ShadowedSkill {
  readonly name: string;
  readonly kept: string;
  readonly dropped: string;
}

/** The outcome of {@link SkillService.discoverAndLoad}. */
export interface LoadReport {
  /** Skills in the registry after the load. */
  readonly loaded: number;
  readonly failed: readonly LoadFailure[];
  readonly shadowed: readonly ShadowedSkill[];
}
