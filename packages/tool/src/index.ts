export type { JsonSchema } from "./schema.js";
export { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from "./schema.js";
export type {
  SkillToolOptions,
  SkillTools,
  ToolCatalog,
  ToolDefinition,
  ToolResult,
} from "./tools.js";
export { DEFAULT_TOOL_BUDGET, SEARCH_TOOL, SKILL_TOOL, skillTools } from "./tools.js";
