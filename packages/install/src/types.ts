import type { SkillErrorCode } from "@skill/core";
import type { FileChanges } from "./changes.js";

/** Where skills are installed, and how the work is watched. */
export interface InstallScope {
  /** The project folder (its `.agents/skills`, its agents' folders and `skills-lock.json`). */
  readonly cwd: string;
  /** The home folder (global roots, `~/` in paths). */
  readonly home: string;
  /** `project`: into `cwd`; `global`: into the home's folders, with the global lock. */
  readonly scope: "project" | "global";
  /** Environment read for agents' folders: `XDG_CONFIG_HOME`, `CLAUDE_CONFIG_DIR`, `XDG_STATE_HOME`, and `PATH`/`HOME` for git. Default `{}`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly signal?: AbortSignal;
  /** Told what is happening, a step at a time (a CLI shows progress from it). */
  readonly onProgress?: (event: InstallProgress) => void;
}

/** One step of an install, for a progress display. */
export interface InstallProgress {
  readonly step: "fetch" | "scan" | "hash" | "place" | "lock";
  /** The skill concerned, when there is one. */
  readonly name?: string;
  /** Skills done and to do in this step, when counted. */
  readonly done?: number;
  readonly total?: number;
}

/** Fetches a git repository: `clone` puts `url` at `ref` (default branch without one) in the empty folder `into`. */
export interface GitPort {
  clone(
    url: string,
    ref: string | undefined,
    into: string,
    signal?: AbortSignal,
  ): Promise<{ commit: string }>;
}

/** Pulls a site's skills (a well-known pack) into the empty folder `into`. */
export interface SitePort {
  pull(
    url: string,
    into: string,
    signal?: AbortSignal,
  ): Promise<{
    /** Each skill's folder (below `into`) and the digest the index gave it. */
    readonly skills: readonly { readonly name: string; readonly folder: string; readonly digest?: string }[];
    /** The index URL the pull read, after well-known resolution (locked as `sourceUrl`). */
    readonly indexUrl?: string;
    /** Entries the pull left out, and why (a wrong digest, an unsafe archive path…). */
    readonly skipped?: readonly { readonly name: string; readonly reason: string }[];
  }>;
}

/** Options of {@link planAdd}. */
export interface AddOptions extends InstallScope {
  /** Vercel agent ids (`claude-code`, `codex`, `github-copilot`…) or preset names; see `detectAgents`. */
  readonly agents: readonly string[];
  /** Only these skills of the source (default: all it holds). */
  readonly names?: readonly string[];
  /** Copies, rather than links, for the agents that do not read `.agents/skills`. */
  readonly copy?: boolean;
  /** Replace what is in the way: a folder not installed by us, or one edited since. */
  readonly force?: boolean;
  /** Git (default: the `git` binary, with safe arguments). */
  readonly git?: GitPort;
  /** Sites: required to add from an http(s) URL that is not a git repository. */
  readonly fetchSite?: SitePort;
}

/** A skill a plan will not install, and why. */
export interface RefusedSkill {
  readonly name: string;
  readonly code: SkillErrorCode;
  readonly reason: string;
}

/** What an install, restore or update would read and write: plain data to show or test, then `applyPlan`. */
export interface InstallPlan {
  readonly skills: readonly PlannedSkill[];
  readonly refused: readonly RefusedSkill[];
  /** Paths of the source passed over, with why: `outside-source`, `parse-error: …`, `link-to-ancestor`… */
  readonly skipped: readonly { readonly path: string; readonly reason: string }[];
}

/** One skill a plan installs. */
export interface PlannedSkill {
  readonly name: string;
  /**
   * `planAdd` of a folder or git source: the description its fetched SKILL.md gives, as core
   * parsed it when the skill was found (for a review, without reading the file again). A site's
   * skills and the plans of `update` and `restore` leave it out.
   */
  readonly description?: string;
  /** The source as the user named it (`repo#ref`, a folder, a site). */
  readonly source: string;
  /** The skill's folder as fetched, to review before applying (removed by `applyPlan` or `discardPlan`). */
  readonly staged: string;
  /** The canonical destination, `<scope>/.agents/skills/<folder>`. */
  readonly folder: string;
  /** `computedHash` of the staged folder: what will be installed and locked. */
  readonly computedHash: string;
  /** Each agent's way to it: the canonical folder itself, a link to it, or a copy. */
  readonly agents: readonly {
    readonly agent: string;
    readonly how: "canonical" | "link" | "copy";
    readonly path: string;
  }[];
  /** What is there now and is replaced (an earlier install of this skill, or with `force` anything in the way). */
  readonly replaces?: { readonly computedHash: string; readonly folder: string };
  /** Why it cannot be placed without `force` (a folder in the way, an edited install); `applyPlan` refuses the whole plan then. */
  readonly blocked?: readonly string[];
  /** With `force`: the paths in the way (not installed by us, or edited since) that are replaced. */
  readonly overrides?: readonly string[];
  /** The commit a git source was at. */
  readonly commit?: string;
  /** Updates: the files the new version adds, removes and changes against the installed copy. */
  readonly files?: FileChanges;
  /** Updates: the installed copy was edited since it was installed, and `force` replaces the edits. */
  readonly edited?: boolean;
}

/** What an apply, restore or removal did. */
export interface InstallReport {
  readonly installed: readonly {
    readonly name: string;
    readonly folder: string;
    readonly computedHash: string;
  }[];
  readonly refused: readonly RefusedSkill[];
  /** Every path written, created or removed, by its real path. */
  readonly written: readonly string[];
  /** The lock file written, when one was (for a restore, the lock restored from, written or not). */
  readonly lock?: string;
}

/** Options of {@link applyPlan}. */
export interface ApplyOptions {
  /**
   * Asked before anything is written: `true` applies the plan, `false` installs nothing, a list
   * of names applies those skills only (a per-skill confirmation).
   */
  review?(plan: InstallPlan): Promise<boolean | readonly string[]>;
}
