export type { SkillEntry, SkillResourceRef } from "./protocol.js";
export { SKILLS_EXTENSION_ID } from "./protocol.js";
export type { McpServerLike, RegisterSkillsOptions } from "./server.js";
export { registerSkills } from "./server.js";
export type { McpClientLike, McpSourceOptions } from "./source.js";
export { DEFAULT_TIMEOUT_MS, mcpSource } from "./source.js";
export type { McpStdioSource, McpStdioSourceOptions, ServeStdioOptions } from "./stdio.js";
export { mcpStdioSource, serveStdio } from "./stdio.js";
