import {
  type AgentInfo,
  SkillError,
  type SkillMetadata,
  type SkillSearch,
  VALIDATION_TARGETS,
  type ValidationTarget,
} from "@skill/core";
import type { SkillUsage } from "@skill/format";

/** Size of the catalog in the `skill` tool's description, in characters (or `measure` units). */
export const DEFAULT_TOOL_BUDGET = 8000;

/** Options of {@link skillTools}. */
export interface SkillToolOptions {
  /** The agent whose permissions apply: denied skills are absent from every tool. */
  readonly agent: AgentInfo;
  /**
   * A search over skills (e.g. `createSkillIndex([])` from `@skill/search`). The tools feed it
   * `service.all(agent)` through `replace()` whenever the registry changes, and offer
   * `skill_search` whenever the catalog leaves a skill out or lists it without its description.
   */
  readonly search?: SkillSearch;
  /** Size of the catalog in the `skill` tool's description. Default 8,000 characters. */
  readonly budget?: number;
  /** How `budget` counts a text (e.g. a tokenizer). Default: `text.length`. */
  readonly measure?: (text: string) => number;
  /**
   * Who keeps a description, and a place at all, under the budget, higher first (after
   * `pinned`). Default (`catalogRank` of `@skill/format`): names valid for {@link target}
   * first, then the skill's source (project, then configured paths, then user, then system,
   * remote and MCP), then {@link usage}; equal ranks by name. Nothing a session does moves it.
   */
  readonly rank?: (skill: SkillMetadata) => number;
  /**
   * Whose name rules make a name valid for the default rank (default `spec`): a skill whose
   * name the agent would refuse goes last. `skill prompt --preset codex` passes `codex`.
   */
  readonly target?: ValidationTarget;
  /**
   * How often each skill was used across sessions (the harness keeps the counts), read for
   * the default rank when the tools are made and at each `refresh()`.
   */
  readonly usage?: SkillUsage;
  /** Skills that keep their whole description before any other skill keeps one. */
  readonly pinned?: readonly string[];
  /**
   * Asked before an `ask` skill (see `SkillService.access`) is loaded; `true` loads it, and
   * the answer holds for the session. Absent: an `ask` skill is refused, saying why.
   */
  readonly confirm?: (skill: SkillMetadata) => Promise<boolean>;
  /** Layout of the catalog and of search results. Default `xml`. */
  readonly style?: "xml" | "markdown";
  /**
   * What the `allowed-tools` of the skills loaded through these tools means to
   * {@link SkillTools.policy}: `"ignore"` (default: `allow` for the skill tools, `ask` for the
   * rest, never `deny`), `"pre-approve"` (the specification's meaning: `allow` for a listed
   * tool, `ask` for the rest) or `"restrict"` (`deny` for a tool no loaded skill lists).
   */
  readonly allowedTools?: "ignore" | "pre-approve" | "restrict";
  /** The harness's tool names to the names skills use in `allowed-tools`, e.g. `{ bash: "Bash" }`. */
  readonly toolNames?: Readonly<Record<string, string>>;
}

/** Checks the options of {@link skillTools}: an `INVALID_FIELD` for the first that cannot work. */
export function checkOptions(options: SkillToolOptions): void {
  const agent = options?.agent as unknown;
  if (typeof agent !== "object" || agent === null || typeof (agent as AgentInfo).name !== "string") {
    throw new SkillError(
      "INVALID_FIELD",
      `Invalid skill tool options: expected agent to be { name: string }, found ${JSON.stringify(agent) ?? String(agent)}`,
      { field: "agent" },
    );
  }
  const search = options.search as unknown;
  if (search !== undefined && typeof (search as SkillSearch | null)?.search !== "function") {
    throw new SkillError(
      "INVALID_FIELD",
      "Invalid skill tool options: search must have a search(query) method",
      {
        field: "search",
      },
    );
  }
  for (const field of ["confirm", "rank", "measure"] as const) {
    const value = options[field] as unknown;
    if (value !== undefined && typeof value !== "function") {
      throw new SkillError(
        "INVALID_FIELD",
        `Invalid skill tool options: ${field} must be a function, found ${typeof value}`,
        { field },
      );
    }
  }
  const target = options.target as unknown;
  if (target !== undefined && !VALIDATION_TARGETS.includes(target as ValidationTarget)) {
    throw new SkillError(
      "INVALID_FIELD",
      `Invalid skill tool options: target must be one of ${VALIDATION_TARGETS.join(", ")}, found ${JSON.stringify(target)}`,
      { field: "target" },
    );
  }
  const usage = options.usage as unknown;
  if (usage !== undefined && typeof (usage as SkillUsage | null)?.count !== "function") {
    throw new SkillError(
      "INVALID_FIELD",
      "Invalid skill tool options: usage must have a count(name) method",
      {
        field: "usage",
      },
    );
  }
  const mode = options.allowedTools as unknown;
  if (mode !== undefined && mode !== "ignore" && mode !== "pre-approve" && mode !== "restrict") {
    throw new SkillError(
      "INVALID_FIELD",
      `Invalid skill tool options: allowedTools must be "ignore", "pre-approve" or "restrict", found ${JSON.stringify(mode)}`,
      { field: "allowedTools" },
    );
  }
  const names = options.toolNames as unknown;
  if (
    names !== undefined &&
    (typeof names !== "object" || names === null || Object.values(names).some((v) => typeof v !== "string"))
  ) {
    throw new SkillError(
      "INVALID_FIELD",
      "Invalid skill tool options: toolNames must map tool names to strings",
      { field: "toolNames" },
    );
  }
  const style = options.style as unknown;
  if (style !== undefined && style !== "xml" && style !== "markdown") {
    throw new SkillError(
      "INVALID_FIELD",
      `Invalid skill tool options: style must be "xml" or "markdown", found ${JSON.stringify(style)}`,
      { field: "style" },
    );
  }
}
