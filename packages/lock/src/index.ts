export type { HashedFile, HashedFolder, HashFolderOptions } from "./computed-hash.js";
export { computedHash, hashedFiles, hashedSkillFiles, hashFolder } from "./computed-hash.js";
export { skillFolderName } from "./folder-name.js";
export type { GlobalLock, GlobalLockEntry } from "./global-lock.js";
export { globalLockPath, readGlobalLock, writeGlobalLock } from "./global-lock.js";
export type { ProjectLock, ProjectLockEntry } from "./project-lock.js";
export {
  formatProjectLock,
  lockedSourcePath,
  PROJECT_LOCK_FILE,
  portableSource,
  readProjectLock,
  writeProjectLock,
} from "./project-lock.js";
export type { LockCheck } from "./verify-lock.js";
export { verifyLock } from "./verify-lock.js";
