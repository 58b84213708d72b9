export type { ToolDefinition } from "./definitions.js";
export { SEARCH_TOOL, SKILL_TOOL } from "./definitions.js";
export type { ToolResult } from "./results.js";
export type { JsonSchema } from "./schema.js";
export { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from "./schema.js";
export type { SkillToolOptions } from "./tool-options.js";
export { DEFAULT_TOOL_BUDGET } from "./tool-options.js";
export type { SkillTools, ToolCatalog } from "./tools.js";
export { skillTools } from "./tools.js";
