export type {
  PermissionExplanation,
  PermissionLayer,
  PermissionPolicyOptions,
  RulesetPolicy,
} from "./policy.js";
export { createPermissionPolicy } from "./policy.js";
export type { PermissionRule, Ruleset } from "./ruleset.js";
export { evaluate, fromConfig } from "./ruleset.js";
export { wildcardMatch } from "./wildcard.js";
