import type { AgentInfo, PermissionPolicy, UserOnlySpelling, UserOnlyVerdict } from "@skill/core";
import type { DiscoveryOptions } from "./discovery-options.js";
import type { NestedCopy } from "./nested.js";
import type { DiscoveryPreset } from "./presets.js";

/** Why an agent does not load a skill; when several apply, the first in this list is given. */
export type VisibilityReason =
  | "not-scanned"
  | "too-deep"
  | "dot-folder"
  | "symlinked-file"
  | "name-missing"
  | "too-long"
  | "parse-error"
  | "shadowed"
  | "dangling-symlink"
  | "git-symlink-stub"
  | "denied";

/** Reason ids in order of priority. */
export const VISIBILITY_REASONS: readonly VisibilityReason[] = Object.freeze([
  "not-scanned",
  "too-deep",
  "dot-folder",
  "symlinked-file",
  "name-missing",
  "too-long",
  "parse-error",
  "shadowed",
  "dangling-symlink",
  "git-symlink-stub",
  "denied",
] as const);

/** One agent's verdict on one skill. */
export type VisibilityCell =
  | {
      readonly loaded: true;
      /** The key the agent loads it under (Claude Code: the folder name). */
      readonly name: string;
      /** The `name` shown beside the key when the agent keys by folder (Claude Code). */
      readonly displayName?: string;
      /** `nondeterministic`: the agent's winner among same-named skills changes between runs (opencode). */
      readonly detail?: string;
      /**
       * For a skill that says "user-only" (see the row's `userOnly`), what this agent does with
       * it, where known: `honoured`, `ignored` (its model sees the skill anyway) or
       * `unreachable` (listed, but nobody can invoke it: Copilot CLI). See `userOnlyVerdict`.
       */
      readonly userOnly?: UserOnlyVerdict;
    }
  | {
      readonly loaded: false;
      readonly reason: VisibilityReason;
      /**
       * More about the reason: the winner's location for `shadowed`, or what the agent really
       * does where a registry keeps one winner: `duplicate-listed` (Codex lists every copy) or
       * `nondeterministic` (opencode's winner changes between runs).
       */
      readonly detail?: string;
      /**
       * On a `shadowed` cell whose pair is one skill installed twice, inside its parent skill's
       * folder and in its own (see `classifyShadowed`): the parent's name and which copy is the
       * one inside it (this location, or the winner's).
       */
      readonly nested?: NestedCopy;
      /**
       * A deliberate difference from the agent, which follows such links and has no such bound:
       * the preset did not follow a link to the filesystem root, the home folder or above its
       * root (`link-to-ancestor`), or stopped at the folder bound it adds (`max-dirs`).
       */
      readonly deliberate?: DeliberateSkip;
    };

/** Why a preset stops where its agent goes on, on purpose (see {@link VisibilityReport.deliberate}). */
export type DeliberateSkip = "link-to-ancestor" | "max-dirs";

/** Which agent sees which skill, and why not. */
export interface VisibilityReport {
  readonly agents: readonly DiscoveryPreset[];
  /** Sorted by name, then location. */
  readonly skills: readonly {
    readonly name: string;
    readonly location: string;
    readonly cells: Readonly<Record<string, VisibilityCell>>;
    /**
     * The ways the skill says "user-only", when it does: in its frontmatter, and Codex's
     * `agents/openai.yaml` beside it (read for every row an agent loaded, as `codexPolicy` reads it).
     */
    readonly userOnly?: readonly UserOnlySpelling[];
  }[];
  /**
   * Where a preset stopped on purpose and its agent would go on, sorted by agent then path: a
   * link not followed (`link-to-ancestor`; nothing behind it was read, so the skills there have
   * no rows) or a folder past the preset's own folder bound (`max-dirs`).
   */
  readonly deliberate: readonly {
    readonly agent: string;
    readonly path: string;
    readonly reason: DeliberateSkip;
  }[];
}

/** Options of {@link compareAgents}. */
export interface CompareOptions extends Omit<DiscoveryOptions, "preset"> {
  /** The agents to compare (default: every preset). */
  readonly agents?: readonly DiscoveryPreset[];
  /** With `agent`: skills this policy denies are reported `denied`. */
  readonly permission?: PermissionPolicy;
  readonly agent?: AgentInfo;
}
