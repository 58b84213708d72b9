import { SkillError, type SkillErrorCode } from "@skill/core";
import { fileProblem, foldKey, MAX_FILES_PER_SKILL, nameProblem } from "./safe-path.js";
import { describeKind, label, quote } from "./text.js";

/** One skill of a pack, as `index.json` lists it. */
export interface RemoteSkillEntry {
  /** Folder name of the skill: files are served at `<base>/<name>/<file>`. */
  readonly name: string;
  /** Every file of the skill folder, relative `/`-separated paths; always holds `SKILL.md`. */
  readonly files: readonly string[];
  readonly description?: string;
  /** Changes whenever a file changes; an unchanged version lets a pull skip the skill's files. */
  readonly version?: string;
}

/** The validated content of a pack's `index.json`. */
export interface RemoteSkillManifest {
  readonly skills: readonly RemoteSkillEntry[];
}

/** An entry that was not downloaded, and why. */
export interface SkippedSkill {
  /** The entry's name as listed (control characters escaped, cut at 128 characters), or `skills[i]` when it has none. */
  readonly name: string;
  /** A sentence for people: what was wrong, quoting what was found. */
  readonly reason: string;
  /** `UNSAFE_PATH`, `INVALID_FIELD`, `MISSING_FIELD`, `DUPLICATE_NAME`, `LIMIT_EXCEEDED`, or a download error's code. */
  readonly code: SkillErrorCode;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

type EntryCheck =
  | { readonly entry: RemoteSkillEntry }
  | { readonly reason: string; readonly code: SkillErrorCode };

function checkFiles(raw: unknown): { files: string[] } | { reason: string; code: SkillErrorCode } {
  if (!Array.isArray(raw)) {
    return {
      reason: `"files" must be a list of paths, found ${describeKind(raw)} ${quote(raw)}`,
      code: raw === undefined ? "MISSING_FIELD" : "INVALID_FIELD",
    };
  }
  if (raw.length > MAX_FILES_PER_SKILL) {
    return {
      reason: `it lists ${raw.length} files, more than ${MAX_FILES_PER_SKILL}`,
      code: "LIMIT_EXCEEDED",
    };
  }
  const files: string[] = [];
  const seen = new Map<string, string>();
  for (const file of raw) {
    if (typeof file !== "string") {
      return {
        reason: `"files" holds ${describeKind(file)} ${quote(file)}, expected paths`,
        code: "INVALID_FIELD",
      };
    }
    const problem = fileProblem(file);
    if (problem) return { reason: `unsafe file ${quote(file)}: ${problem}`, code: "UNSAFE_PATH" };
    const key = foldKey(file);
    const earlier = seen.get(key);
    if (earlier === file) continue;
    if (earlier !== undefined) {
      return {
        reason: `files ${quote(earlier)} and ${quote(file)} would be the same file`,
        code: "UNSAFE_PATH",
      };
    }
    seen.set(key, file);
    files.push(file);
  }
  // A path cannot be both a file and the folder of another file.
  for (const file of files) {
    const parts = file.split("/");
    for (let i = 1; i < parts.length; i++) {
      const folder = seen.get(foldKey(parts.slice(0, i).join("/")));
      if (folder !== undefined) {
        return { reason: `file ${quote(folder)} is also the folder of ${quote(file)}`, code: "UNSAFE_PATH" };
      }
    }
  }
  if (!files.includes("SKILL.md")) {
    return { reason: `"files" does not list SKILL.md (found ${quote(files, 80)})`, code: "MISSING_FIELD" };
  }
  return { files };
}

function checkEntry(raw: unknown, index: number): EntryCheck {
  if (!isRecord(raw)) {
    return {
      reason: `skills[${index}] must be an object with "name" and "files", found ${describeKind(raw)} ${quote(raw)}`,
      code: "INVALID_FIELD",
    };
  }
  const name = raw.name;
  if (typeof name !== "string") {
    return {
      reason: `skills[${index}] has no "name" string (found ${describeKind(name)})`,
      code: name === undefined ? "MISSING_FIELD" : "INVALID_FIELD",
    };
  }
  const problem = nameProblem(name);
  if (problem) return { reason: `unsafe name ${quote(name)}: ${problem}`, code: "UNSAFE_PATH" };
  const files = checkFiles(raw.files);
  if (!("files" in files)) return files;
  const version =
    typeof raw.version === "string" || (typeof raw.version === "number" && Number.isFinite(raw.version))
      ? String(raw.version)
      : undefined;
  const entry: RemoteSkillEntry = Object.freeze({
    name,
    ...(typeof raw.description === "string" ? { description: raw.description } : {}),
    ...(version === undefined || version === "" ? {} : { version }),
    files: Object.freeze(files.files),
  });
  return { entry };
}

/** Why `value` is not `{ "skills": [...] }`, or `undefined` when it is. */
export function shapeProblem(value: unknown): string | undefined {
  if (isRecord(value) && Array.isArray(value.skills)) return undefined;
  const found = isRecord(value)
    ? "skills" in value
      ? `an object whose "skills" is ${describeKind(value.skills)}`
      : 'an object without "skills"'
    : `${describeKind(value)} ${quote(value)}`;
  return `expected an object with a "skills" list, found ${found}`;
}

/**
 * Validates a parsed `index.json`. Entries that could hurt the machine or cannot be a skill are
 * left out and reported in `skipped`: a name that is not one safe folder name, a file that is
 * not a safe relative path (`..`, absolute, backslash, drive letter, NUL, `%`, `?`, `#`, empty
 * segments), no `SKILL.md`, more than 1000 files, or a name already listed (compared
 * case-insensitively; the first wins).
 *
 * @throws SkillError `REMOTE_ERROR` when `value` is not an object with a `skills` list
 * @example
 * const { manifest, skipped } = parseManifest(JSON.parse(text));
 */
export function parseManifest(value: unknown): { manifest: RemoteSkillManifest; skipped: SkippedSkill[] } {
  const { manifest, skipped } = checkManifest(value);
  return { manifest, skipped };
}

/** {@link parseManifest}, plus every safe name the manifest lists (kept or skipped). */
export function checkManifest(value: unknown): {
  manifest: RemoteSkillManifest;
  skipped: SkippedSkill[];
  listed: Set<string>;
} {
  const problem = shapeProblem(value);
  if (problem !== undefined || !isRecord(value) || !Array.isArray(value.skills)) {
    throw new SkillError("REMOTE_ERROR", `Invalid skill manifest: ${problem}`);
  }
  const skills: RemoteSkillEntry[] = [];
  const skipped: SkippedSkill[] = [];
  const names = new Map<string, number>();
  const listed = new Set<string>();
  value.skills.forEach((raw: unknown, index: number) => {
    const rawName = isRecord(raw) && typeof raw.name === "string" ? raw.name : undefined;
    if (rawName !== undefined && nameProblem(rawName) === undefined) listed.add(rawName);
    const shown = rawName === undefined ? `skills[${index}]` : label(rawName);
    const checked = checkEntry(raw, index);
    if (!("entry" in checked)) {
      skipped.push({ name: shown, reason: checked.reason, code: checked.code });
      return;
    }
    const key = foldKey(checked.entry.name);
    const first = names.get(key);
    if (first !== undefined) {
      skipped.push({
        name: shown,
        reason: `duplicate name ${quote(checked.entry.name)}: skills[${first}] already uses it`,
        code: "DUPLICATE_NAME",
      });
      return;
    }
    names.set(key, index);
    skills.push(checked.entry);
  });
  return { manifest: Object.freeze({ skills: Object.freeze(skills) }), skipped, listed };
}
