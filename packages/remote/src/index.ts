export { redactUrl } from "@skill/core";
export { buildManifest, writeManifest } from "./build-manifest.js";
export { defaultCacheDir, urlToDirName } from "./cache-dir.js";
export type { FetchInit, FetchLike, FetchResponseLike } from "./http.js";
export type { RemoteSkillEntry, RemoteSkillManifest, RemoteSkillType, SkippedSkill } from "./manifest.js";
export { parseManifest, SCHEMA_V0_2 } from "./manifest.js";
export type { PullOptions, PullProgress, PullResult } from "./options.js";
export { PULL_DEFAULTS } from "./options.js";
export type {
  BuildManifestOptions,
  BuildManifestResult,
  PackedArchive,
  PackProgress,
} from "./pack-options.js";
export { pull } from "./pull.js";
export type { RefreshPolicy, RemoteSourceOptions } from "./remote-source.js";
export { remoteSource } from "./remote-source.js";
export type { VerifyProblem, VerifyReport } from "./verify-cache.js";
export { verifyCache } from "./verify-cache.js";
