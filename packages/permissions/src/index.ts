export type { PermissionRule, Ruleset } from "./ruleset.js";
export { evaluate, fromConfig } from "./ruleset.js";
export { wildcardMatch } from "./wildcard.js";
