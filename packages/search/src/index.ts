export type { SkillIndexOptions } from "./ranking.js";
export type { SkillIndex } from "./skill-index.js";
export { createSkillIndex, DEFAULT_SEARCH_LIMIT, loadSkillIndex, MAX_SEARCH_LIMIT } from "./skill-index.js";
