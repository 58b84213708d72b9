export { DEFAULT_IGNORE } from "./ignore.js";
export type { ScanOptions } from "./scan.js";
export { SKILL_FILE, scanSkillFiles } from "./scan.js";
export type { DiscoveryOptions, DiscoveryPreset, DiscoveryRoot } from "./sources.js";
export { discoveryRoots, discoverySources, isExternalDisabled } from "./sources.js";
export type { ServiceWatchOptions, SkillChange, SkillWatcher, WatchOptions } from "./watch.js";
export { watchSkillFiles, watchSkills } from "./watch.js";
