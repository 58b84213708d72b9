export { applyPlan } from "./apply.js";
export type { FileChanges } from "./changes.js";
export { fileChanges } from "./changes.js";
export type { CheckOptions, CheckReport, InstalledState, SkillCheck, UpstreamState } from "./check.js";
export { checkInstalled } from "./check.js";
export { checkGitArgument, gitBinary } from "./git.js";
export { planAdd } from "./plan-add.js";
export { discardPlan } from "./plan-state.js";
export type { RemovedSkill, RemoveOptions, RemoveReport } from "./remove.js";
export { removeSkills } from "./remove.js";
export type { RestoreOptions } from "./restore.js";
export { restore } from "./restore.js";
export { detectAgents } from "./scope.js";
export { isGitSpec, isSiteSpec } from "./source.js";
export type { AgentTarget } from "./targets.js";
export { AGENT_TARGETS, agentTarget } from "./targets.js";
export type {
  AddOptions,
  ApplyOptions,
  GitPort,
  InstallPlan,
  InstallProgress,
  InstallReport,
  InstallScope,
  PlannedSkill,
  RefusedSkill,
  SitePort,
} from "./types.js";
export type { UpdateOptions, UpdatePlan } from "./update.js";
export { planUpdate } from "./update.js";
