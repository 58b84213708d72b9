/** How `skill prompt` ranks who keeps a description under the budget. */
export const RANKS = ["source", "input"] as const;

/**
 * Claude Code's skill listing budget: 1% of a 200,000-token context at 4 characters a token.
 * A catalog this size leaves the system prompt room for everything else on any current model.
 */
export const DEFAULT_BUDGET = 8000;
