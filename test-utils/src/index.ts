export type { AgentsWorld } from "./agents-fixture.js";
export { agentsWorld, DOCTOR_AGENTS, EXPECTED_CELLS, EXPECTED_LOADS } from "./agents-fixture.js";
export type { Member, ZipMember } from "./archives.js";
export { digestOf, skillBody, tar, tarGz, tarGzBomb, zip, zipBomb } from "./archives.js";
export type { MemoryLogger, Recorded } from "./fixture.js";
export {
  memoryLogger,
  removeTempDirs,
  skillText,
  tempDir,
  tempWorld,
  writeSkill,
  writeTree,
} from "./fixture.js";
export { copyWithDependencies, installBuilt, NOBODY } from "./install-built.js";
export type { NestedInstall } from "./nested-fixture.js";
export { nestedInstall } from "./nested-fixture.js";
export type { Handler, Logged, Served, StaticOptions } from "./serve.js";
export { send, serve, silentServer, staticDir, staticFiles, until } from "./serve.js";
export type { SkillRepo } from "./skill-repo.js";
export { generateSkillRepo } from "./skill-repo.js";
