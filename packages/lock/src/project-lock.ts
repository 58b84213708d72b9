import { isAbsolute, relative, resolve, sep } from "node:path";
import { compareCodeUnits, isMapping } from "@skill/core";
import { invalid, readJsonObject } from "./read-json.js";
import { writeFileAtomically } from "./write-file.js";

/** The project lock's file name, in the project's root folder. */
export const PROJECT_LOCK_FILE = "skills-lock.json";

/**
 * One skill of `skills-lock.json`. Fields this package does not know (Vercel's `subagents`,
 * another tool's) are kept, in their place, when the lock is rewritten.
 */
export interface ProjectLockEntry {
  /** Where it came from: `owner/repo`, a git URL, a site, or (`sourceType: "local"`) a path relative to the lock's folder. */
  readonly source: string;
  /** The URL fetched (git and well-known sources). */
  readonly sourceUrl?: string;
  /** Git branch, tag or commit asked for (`#ref`). */
  readonly ref?: string;
  /** `local`, `git`, `github`, `gitlab`, `well-known`, `node_modules`… */
  readonly sourceType: string;
  /** The skill's SKILL.md inside the source, `/`-separated (`skills/pdf/SKILL.md`). */
  readonly skillPath?: string;
  /** {@link computedHash} of the skill folder (lowercase hex sha256). */
  readonly computedHash: string;
  /** The well-known index's digest of the skill (`sha256:…`). */
  readonly wellKnownDigest?: string;
  readonly [field: string]: unknown;
}

/** `skills-lock.json`: `version` 1, skills by name. Other top-level fields are kept. */
export interface ProjectLock {
  readonly version: 1;
  readonly skills: Readonly<Record<string, ProjectLockEntry>>;
  readonly [field: string]: unknown;
}

const WHAT = "project lock";
const OPTIONAL = ["sourceUrl", "ref", "skillPath", "wellKnownDigest"] as const;

function checkEntry(file: string, name: string, entry: unknown): ProjectLockEntry {
  const at = `skills.${name}`;
  if (!isMapping(entry)) throw invalid(file, WHAT, at, "an object", entry);
  for (const field of ["source", "sourceType", "computedHash"]) {
    if (typeof entry[field] !== "string")
      throw invalid(file, WHAT, `${at}.${field}`, "a string", entry[field]);
  }
  for (const field of OPTIONAL) {
    if (entry[field] !== undefined && typeof entry[field] !== "string") {
      throw invalid(file, WHAT, `${at}.${field}`, "a string", entry[field]);
    }
  }
  return entry as ProjectLockEntry;
}

/**
 * Reads `skills-lock.json`, as written by this package or by Vercel's `skills`; undefined
 * when the file does not exist. Local sources are returned as written (relative to the
 * lock's folder; {@link lockedSourcePath} resolves them).
 *
 * The lock and every object in it have no prototype (`Object.create(null)`): look a skill up
 * with `lock.skills[name]` or `Object.hasOwn`, whatever its name (`constructor`, `__proto__`);
 * `lock.skills.hasOwnProperty(…)` does not exist on them.
 *
 * @throws SkillError `PARSE_ERROR` (not JSON, not an object) or `INVALID_FIELD` (a `version`
 *   other than 1, a field of the wrong type), naming the file: a broken lock is never read
 *   as an empty one. `READ_ERROR` when it cannot be read.
 */
export async function readProjectLock(file: string): Promise<ProjectLock | undefined> {
  const value = await readJsonObject(file, WHAT);
  if (value === undefined) return undefined;
  if (value.version !== 1) throw invalid(file, WHAT, "version", "1", value.version);
  if (!isMapping(value.skills)) throw invalid(file, WHAT, "skills", "an object", value.skills);
  for (const [name, entry] of Object.entries(value.skills)) checkEntry(file, name, entry);
  return value as ProjectLock;
}

/** A local source as `skills` writes it: `./x`, `../x` or `.`, relative to the lock's folder, `/`-separated. */
export function portableSource(source: string, lockDir: string): string {
  const absolute = isAbsolute(source) ? source : resolve(lockDir, source);
  const rel = relative(lockDir, absolute);
  if (isAbsolute(rel)) return absolute.split(sep).join("/"); // another drive
  const portable = rel.split(sep).join("/");
  if (portable === "") return ".";
  if (portable === ".." || portable.startsWith("../")) return portable;
  return `./${portable}`;
}

/** The absolute path of a `local` entry's source, resolved against the lock file's folder. */
export function lockedSourcePath(lockFile: string, entry: ProjectLockEntry): string {
  return resolve(resolve(lockFile, ".."), entry.source);
}

/** The exact text {@link writeProjectLock} writes. */
export function formatProjectLock(lock: ProjectLock, lockDir: string): string {
  // Without a prototype, `skills["__proto__"] = …` is an entry like any other.
  const skills: Record<string, ProjectLockEntry> = Object.create(null);
  for (const name of Object.keys(lock.skills).sort(compareCodeUnits)) {
    const entry = lock.skills[name] as ProjectLockEntry;
    skills[name] =
      entry.sourceType === "local" ? { ...entry, source: portableSource(entry.source, lockDir) } : entry;
  }
  const { version: _version, skills: _skills, ...rest } = lock;
  return `${JSON.stringify({ version: 1, skills, ...rest }, null, 2)}\n`;
}

/**
 * Writes `skills-lock.json` as `skills` does, byte for byte: `version` then `skills`, skills
 * sorted by name (code units), each entry's fields in their order (build new ones as
 * `source, sourceUrl?, ref?, sourceType, skillPath?, computedHash, wellKnownDigest?`), local
 * sources relative to the lock's folder, 2-space JSON and a newline, no timestamps. Fields
 * it does not know are kept. Atomic: a temporary file renamed over the old one.
 *
 * @throws SkillError `WRITE_ERROR` naming the file.
 */
export async function writeProjectLock(file: string, lock: ProjectLock): Promise<void> {
  await writeFileAtomically(file, formatProjectLock(lock, resolve(file, "..")));
}
