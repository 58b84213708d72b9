import type { Env } from "./discovery-options.js";

/** opencode's reading of a boolean flag: `1` or `true`, any case. */
export function truthy(value: string | undefined): boolean {
  const lower = value?.toLowerCase();
  return lower === "1" || lower === "true";
}

/**
 * True when the environment turns off the `.claude` and `.agents` roots:
 * `OPENCODE_DISABLE_EXTERNAL_SKILLS` set to `1` or `true` in any case. (The two Claude Code
 * flags turn off the `.claude` roots only: see {@link isClaudeCodeDisabled}.)
 */
export function isExternalDisabled(env: Env = process.env): boolean {
  return truthy(env.OPENCODE_DISABLE_EXTERNAL_SKILLS);
}

/**
 * True when the environment turns off the `.claude` roots: `OPENCODE_DISABLE_CLAUDE_CODE_SKILLS`,
 * `OPENCODE_DISABLE_CLAUDE_CODE` or `OPENCODE_DISABLE_EXTERNAL_SKILLS`, set to `1` or `true` in
 * any case. opencode 1.18.33 keeps the `.agents` roots under the first two.
 */
export function isClaudeCodeDisabled(env: Env = process.env): boolean {
  return (
    isExternalDisabled(env) ||
    truthy(env.OPENCODE_DISABLE_CLAUDE_CODE_SKILLS) ||
    truthy(env.OPENCODE_DISABLE_CLAUDE_CODE)
  );
}
