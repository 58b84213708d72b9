import { join } from "node:path";
import { isMapping } from "@skill/core";
import { invalid, readJsonObject } from "./read-json.js";
import { writeFileAtomically } from "./write-file.js";

/**
 * One skill of the global lock. Fields this package does not know (`gh skill`'s, newer
 * `skills` versions') are kept when the lock is rewritten.
 */
export interface GlobalLockEntry {
  readonly source: string;
  readonly sourceType: string;
  readonly sourceUrl?: string;
  readonly ref?: string;
  readonly skillPath?: string;
  /** Hash of the skill folder as `skills` records it (git tree SHA or {@link computedHash}). */
  readonly skillFolderHash?: string;
  /** ISO 8601 time of the first install. */
  readonly installedAt?: string;
  /** ISO 8601 time of the last install or update. */
  readonly updatedAt?: string;
  readonly pluginName?: string;
  readonly [field: string]: unknown;
}

/** `~/.agents/.skill-lock.json`: `version` 3. Other top-level fields are kept. */
export interface GlobalLock {
  readonly version: 3;
  readonly skills: Readonly<Record<string, GlobalLockEntry>>;
  /** Prompts the user dismissed, by key. */
  readonly dismissed?: Readonly<Record<string, boolean>>;
  /** The agents chosen last time (Vercel's agent ids). */
  readonly lastSelectedAgents?: readonly string[];
  readonly [field: string]: unknown;
}

/** Where the global lock lives, as `skills` decides it: `$XDG_STATE_HOME/skills/.skill-lock.json` when set, else `<home>/.agents/.skill-lock.json`. */
export function globalLockPath(options: {
  readonly home: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
}): string {
  const state = options.env?.XDG_STATE_HOME;
  if (state) return join(state, "skills", ".skill-lock.json");
  return join(options.home, ".agents", ".skill-lock.json");
}

const WHAT = "global lock";

/**
 * Reads the global lock; undefined when the file does not exist. Like `readProjectLock`, the
 * lock and every object in it have no prototype: every skill name is an own key.
 *
 * @throws SkillError `PARSE_ERROR` or `INVALID_FIELD` (a `version` other than 3 — `gh skill`
 *   resets such a file, `skills` ignores it; here it is an error that names the file),
 *   `READ_ERROR`.
 */
export async function readGlobalLock(file: string): Promise<GlobalLock | undefined> {
  const value = await readJsonObject(file, WHAT);
  if (value === undefined) return undefined;
  if (value.version !== 3) throw invalid(file, WHAT, "version", "3", value.version);
  if (!isMapping(value.skills)) throw invalid(file, WHAT, "skills", "an object", value.skills);
  for (const [name, entry] of Object.entries(value.skills)) {
    if (!isMapping(entry)) throw invalid(file, WHAT, `skills.${name}`, "an object", entry);
    for (const field of ["source", "sourceType"]) {
      if (typeof entry[field] !== "string")
        throw invalid(file, WHAT, `skills.${name}.${field}`, "a string", entry[field]);
    }
  }
  if (value.dismissed !== undefined && !isMapping(value.dismissed)) {
    throw invalid(file, WHAT, "dismissed", "an object", value.dismissed);
  }
  const agents = value.lastSelectedAgents;
  if (agents !== undefined && !(Array.isArray(agents) && agents.every((a) => typeof a === "string"))) {
    throw invalid(file, WHAT, "lastSelectedAgents", "a list of strings", agents);
  }
  return value as GlobalLock;
}

/**
 * Writes the global lock as `skills` does (2-space JSON, no final newline, fields in their
 * order, unknown ones kept), atomically.
 *
 * @throws SkillError `WRITE_ERROR` naming the file.
 */
export async function writeGlobalLock(file: string, lock: GlobalLock): Promise<void> {
  await writeFileAtomically(file, JSON.stringify({ ...lock, version: 3 }, null, 2));
}
