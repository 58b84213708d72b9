import { join } from "node:path";
import { compareCodeUnits, SkillError } from "@skill/core";
import { computedHash } from "./computed-hash.js";
import { skillFolderName } from "./folder-name.js";
import { type ProjectLock, readProjectLock } from "./project-lock.js";

/** How one locked skill's installed folder compares with its `computedHash`. */
export interface LockCheck {
  /** The skill's name in the lock. */
  readonly name: string;
  /** The installed folder looked at: `<root>/<skillFolderName(name)>`. */
  readonly path: string;
  /** `ok`: the bytes hash to `computedHash`; `changed`: they do not; `missing`: no such folder. */
  readonly status: "ok" | "changed" | "missing";
  readonly expected: string;
  /** The hash of the installed bytes (absent when `missing`). */
  readonly actual?: string;
}

/**
 * Hashes every locked skill's installed folder, `<root>/<skillFolderName(name)>` (`root`
 * is the folder the skills are installed in, e.g. `<project>/.agents/skills`), and compares it with the lock's
 * `computedHash`. Sorted by name. A lock given as an object is used as is.
 *
 * @throws SkillError `NOT_FOUND` when `lock` is a file that does not exist, or any error of
 *   {@link readProjectLock}; `READ_ERROR` for an installed folder that cannot be read.
 */
export async function verifyLock(lock: string | ProjectLock, root: string): Promise<LockCheck[]> {
  let locked: ProjectLock;
  if (typeof lock === "string") {
    const read = await readProjectLock(lock);
    if (read === undefined) throw new SkillError("NOT_FOUND", `Lock file not found: ${lock}`, { path: lock });
    locked = read;
  } else locked = lock;
  const names = Object.keys(locked.skills).sort(compareCodeUnits);
  const checks: LockCheck[] = [];
  for (const name of names) {
    const expected = (locked.skills[name] as { computedHash: string }).computedHash;
    const path = join(root, skillFolderName(name));
    let actual: string;
    try {
      actual = await computedHash(path);
    } catch (error) {
      if (SkillError.isInstance(error) && error.code === "NOT_FOUND") {
        checks.push({ name, path, status: "missing", expected });
        continue;
      }
      throw error;
    }
    checks.push({ name, path, status: actual === expected ? "ok" : "changed", expected, actual });
  }
  return checks;
}
