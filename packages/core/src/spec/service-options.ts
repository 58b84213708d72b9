import type { EventBus, Logger } from "./logging.js";
import type { HeadCache, SkillSource } from "./skill-source.js";
import type { LoadRules } from "./types.js";

/** What a permission rule decides. `ask` keeps a skill listed; `deny` hides it. */
export type PermissionAction = "allow" | "deny" | "ask";

/**
 * Permission config in the opencode shape: `{ "skill": "deny" }` or
 * `{ "skill": { "*": "allow", "internal-*": "deny" } }`. Key order matters: the last match wins.
 */
export type PermissionConfig = Readonly<
  Record<string, PermissionAction | Readonly<Record<string, PermissionAction>>>
>;

/** The agent a lookup is for. */
export interface AgentInfo {
  readonly name: string;
  /** The agent's own rules; they override config and defaults. */
  readonly permission?: PermissionConfig;
}

/** Decides what an agent may do. `permission` is e.g. `skill`, `pattern` the skill name. */
export interface PermissionPolicy {
  evaluate(agent: AgentInfo, permission: string, pattern: string): PermissionAction;
}

/**
 * SKILL.md reads shared by loads that run together (see {@link sharedReads}). Opaque: pass it
 * to `SkillServiceOptions.sharedReads`.
 */
export interface SharedReads {
  readonly kind: "shared-reads";
}

/** Options of {@link SkillService}: where skills come from, who may see them, how they are read. */
export interface SkillServiceOptions extends LoadRules {
  /** Where skills come from, lowest precedence first. */
  readonly sources?: readonly SkillSource[];
  /** Decides what an agent sees; absent: every skill is visible to every agent. */
  readonly permission?: PermissionPolicy;
  /** Receives the events of {@link SkillEvents}. */
  readonly bus?: EventBus;
  /** Receives warnings (duplicate names, failed files, source findings). */
  readonly logger?: Logger;
  /** Heads of unchanged SKILL.md files, kept between runs: a warm load stats instead of reading. */
  readonly headCache?: HeadCache;
  /**
   * From `sharedReads()`: services loading together under different rules read and
   * parse each SKILL.md once between them. Each file is remembered as first seen: for services
   * that load once, not for one that is `update()`d.
   */
  readonly sharedReads?: SharedReads;
  /** Largest bundled file `readFile` returns, in bytes (default 10 MiB). */
  readonly maxFileBytes?: number;
}
