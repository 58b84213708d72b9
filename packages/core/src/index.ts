export type { SkillErrorCode, SkillErrorDetails } from "./errors.js";
export { printable, quote, SkillError } from "./errors.js";
export { splitFrontmatter } from "./frontmatter.js";
export { DEFAULT_MAX_BYTES, loadSkillFile, parseSkill, validateSkillFile } from "./parse-skill.js";
export { SkillService } from "./service.js";
export type {
  AgentInfo,
  Diagnostic,
  EventBus,
  LoadFailure,
  LoadReport,
  Logger,
  ParsedSkill,
  ParseOptions,
  PermissionAction,
  PermissionConfig,
  PermissionPolicy,
  ScanContext,
  ShadowedSkill,
  SkillInfo,
  SkillServiceOptions,
  SkillSource,
  SourceScan,
  ValidateOptions,
} from "./types.js";
export { SKILL_SPEC_VERSION } from "./types.js";
export { SPEC_FIELDS, SPEC_LIMITS, validateFrontmatter, validateSkill } from "./validate.js";
