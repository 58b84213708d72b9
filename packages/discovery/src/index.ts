export type { SkillChange } from "./change-batch.js";
export { compareAgents } from "./compare.js";
export type { DiscoveryOptions, DiscoveryRoot } from "./discovery-options.js";
export { isClaudeCodeDisabled, isExternalDisabled } from "./env-flags.js";
export { DEFAULT_IGNORE } from "./ignore.js";
export type { ClassifiedShadow, NestedCopy } from "./nested.js";
export { classifyShadowed } from "./nested.js";
export { findWorktreeRoot, foldersBetween } from "./paths.js";
export type { DiscoveryPreset, RootLimits } from "./presets.js";
export { DISCOVERY_PRESETS } from "./presets.js";
export { discoveryRoots } from "./roots.js";
export { SKILL_FILE, scanSkillFiles } from "./scan.js";
export type { ScanOptions, SkipReason } from "./scan-options.js";
export { agentProfile, DEFAULT_MAX_DIRS, discoverySources } from "./sources.js";
export type {
  CompareOptions,
  DeliberateSkip,
  VisibilityCell,
  VisibilityReason,
  VisibilityReport,
} from "./visibility.js";
export { VISIBILITY_REASONS } from "./visibility.js";
export type { ServiceWatchOptions, WatchOptions } from "./watch.js";
export { watchSkillFiles, watchSkills } from "./watch.js";
export type { SkillWatcher } from "./watch-plans.js";
