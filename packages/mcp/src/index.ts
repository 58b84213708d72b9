export type { SkillCacheScope, SkillEntry, SkillResourceRef } from "./protocol.js";
export { SKILL_LIMITS, SKILLS_EXTENSION_ID } from "./protocol.js";
export type { McpServerLike, RegisterSkillsOptions, SkillsServerOptions } from "./server.js";
export { createSkillsServer, PROTOCOL_VERSIONS, registerSkills } from "./server.js";
export type { McpClientLike, McpSourceOptions } from "./source.js";
export { DEFAULT_MAX_SKILLS, DEFAULT_TIMEOUT_MS, mcpSource } from "./source.js";
