export { DEFAULT_MAX_BYTES, SKILL_FILE } from "./constants.js";
export type { SkillErrorCode, SkillErrorDetails } from "./errors.js";
export { describeKind, printable, quote, SkillError } from "./errors.js";
export type { SkillFilesBound, SkillFilesOrder } from "./folder-walk.js";
export { splitFrontmatter } from "./frontmatter.js";
export type { FileHeadCacheOptions } from "./head-cache.js";
export { fileHeadCache } from "./head-cache.js";
export { isInside, resolveInside } from "./inside.js";
export { noopLogger } from "./logger.js";
export type { MemorySkill } from "./memory-source.js";
export { memorySource } from "./memory-source.js";
export type { OriginKind } from "./origin.js";
export { isNonLocal, ORIGIN_KINDS, originKind, originLabel, originRank } from "./origin.js";
export { loadSkillFile, parseSkill, validateSkillFile } from "./parse-skill.js";
export type { ReadInsideOptions } from "./read-inside.js";
export { DEFAULT_MAX_FILE_BYTES, readInside } from "./read-inside.js";
export { SkillService } from "./service.js";
export type { SharedReads } from "./shared-reads.js";
export { sharedReads } from "./shared-reads.js";
export { similarNames } from "./similar.js";
export type { ListSkillFilesOptions, SkillFileList, SkillFilesOptions } from "./skill-files.js";
export {
  DEFAULT_SKILL_FILES_BYTES,
  DEFAULT_SKILL_FILES_LIMIT,
  listSkillFiles,
  skillFiles,
} from "./skill-files.js";
export { compareCodeUnits, formatBytes } from "./text.js";
export type {
  AgentInfo,
  Diagnostic,
  EventBus,
  FileKey,
  HeadCache,
  LoadFailure,
  LoadReport,
  LoadRules,
  LogFields,
  Logger,
  ParsedSkill,
  ParseOptions,
  PermissionAction,
  PermissionConfig,
  PermissionPolicy,
  ScanContext,
  ShadowedSkill,
  SkillEvents,
  SkillFile,
  SkillHead,
  SkillHit,
  SkillInfo,
  SkillMetadata,
  SkillSearch,
  SkillServiceOptions,
  SkillSource,
  SkippedPath,
  SourceEntry,
  SourceScan,
  ValidateOptions,
  ValidationTarget,
} from "./types.js";
export { SKILL_SPEC_VERSION } from "./types.js";
export {
  CLAUDE_CODE_FIELDS,
  SPEC_FIELDS,
  SPEC_LIMITS,
  VALIDATION_TARGETS,
  validateFrontmatter,
  validateSkill,
} from "./validate.js";
export type { SkillFolderStage } from "./write-inside.js";
export { checkInside, linkInside, stageSkillFolder, writeInside } from "./write-inside.js";
