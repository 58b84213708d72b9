export { isDigest, sha256Digest } from "./files/digest.js";
export type {
  DigestMemo,
  DigestMemoOptions,
  DigestMemoStats,
  FileDigest,
  FileDigestOptions,
} from "./files/digest-memo.js";
export { digestMemo } from "./files/digest-memo.js";
export { fileKey, sameFileKey } from "./files/file-key.js";
export type { SkillFilesBound, SkillFilesOrder } from "./files/folder-walk.js";
export { isInside, resolveInside } from "./files/inside.js";
export type { ReadInsideOptions } from "./files/read-inside.js";
export { DEFAULT_MAX_FILE_BYTES, readInside } from "./files/read-inside.js";
export type { ListSkillFilesOptions, SkillFileList, SkillFilesOptions } from "./files/skill-files.js";
export {
  DEFAULT_SKILL_FILES_BYTES,
  DEFAULT_SKILL_FILES_LIMIT,
  listSkillFiles,
  skillFiles,
} from "./files/skill-files.js";
export type { SkillFolderStage, WriteInsideOptions } from "./files/write-inside.js";
export { checkInside, linkInside, stageSkillFolder, writeInside } from "./files/write-inside.js";
export { splitFrontmatter } from "./parse/frontmatter.js";
export { loadSkillFile, parseSkill, validateSkillFile } from "./parse/parse-skill.js";
export { CLAUDE_CODE_FIELDS, SPEC_FIELDS, SPEC_LIMITS, VALIDATION_TARGETS } from "./parse/spec-fields.js";
export { bodySummary, MAX_SUMMARY_LENGTH } from "./parse/summary.js";
export type { UserOnlySpelling, UserOnlyVerdict } from "./parse/user-only.js";
export { userOnlyNote, userOnlySpellings, userOnlyVerdict } from "./parse/user-only.js";
export { validateFrontmatter, validateSkill } from "./parse/validate.js";
export type { FileHeadCacheOptions } from "./registry/head-cache.js";
export { fileHeadCache } from "./registry/head-cache.js";
export type { MemorySkill } from "./registry/memory-source.js";
export { memorySource } from "./registry/memory-source.js";
export { SkillService } from "./registry/service.js";
export { codexSidecarUserOnly, type SharedReadsOptions, sharedReads } from "./registry/shared-reads.js";
export { DEFAULT_MAX_BYTES, isSkillFileName, SKILL_FILE } from "./spec/constants.js";
export type { SkillErrorDetails } from "./spec/errors.js";
export { describeKind, printable, quote, SkillError } from "./spec/errors.js";
export type { EventBus, LogFields, Logger, SkillEvents } from "./spec/logging.js";
export type { OriginKind } from "./spec/origin.js";
export { isNonLocal, ORIGIN_KINDS, originKind, originLabel, originRank } from "./spec/origin.js";
export type { LoadFailure, LoadReport } from "./spec/report.js";
export type {
  AgentInfo,
  PermissionAction,
  PermissionConfig,
  PermissionPolicy,
  SharedReads,
  SkillServiceOptions,
} from "./spec/service-options.js";
export type {
  FileKey,
  HeadCache,
  ScanContext,
  SkillFile,
  SkillHead,
  SkillSource,
  SkippedPath,
  SourceEntry,
  SourceScan,
} from "./spec/skill-source.js";
export type {
  Diagnostic,
  LoadRules,
  ParsedSkill,
  ParseOptions,
  ShadowedSkill,
  SkillErrorCode,
  SkillHit,
  SkillInfo,
  SkillMetadata,
  SkillSearch,
  ValidateOptions,
  ValidationTarget,
} from "./spec/types.js";
export { SKILL_SPEC_VERSION } from "./spec/types.js";
export { abortError } from "./util/abort.js";
export { skillCacheHome } from "./util/cache-home.js";
export { didYouMean } from "./util/did-you-mean.js";
export { errnoOf } from "./util/errno.js";
export { errorMessage } from "./util/error-text.js";
export { noopLogger } from "./util/logger.js";
export { isMapping } from "./util/mapping.js";
export {
  redactError,
  redactingLogger,
  redactText,
  redactThrown,
  redactUrl,
  withoutCredentials,
} from "./util/redact.js";
export { similarNames } from "./util/similar.js";
export { compareCodeUnits, formatBytes } from "./util/text.js";
