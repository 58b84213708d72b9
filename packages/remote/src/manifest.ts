import { describeKind, isDigest, isMapping, quote, SkillError, type SkillErrorCode } from "@skill/core";
import { fileProblem, foldKey, MAX_FILES_PER_SKILL, nameProblem } from "./safe-path.js";
import { label } from "./text.js";

/** What a v0.2 entry points at: one `SKILL.md`, or an archive of the whole skill folder. */
export type RemoteSkillType = "skill-md" | "archive";

/**
 * One skill of a pack, as `index.json` lists it: a v0.1 entry has `files`; a v0.2 entry has
 * `type`, `url` and `digest`.
 */
export interface RemoteSkillEntry {
  /** Folder name of the skill: v0.1 files are served at `<base>/<name>/<file>`. */
  readonly name: string;
  readonly description?: string;
  /** v0.1: every file of the skill folder, relative `/`-separated paths; always holds `SKILL.md`. */
  readonly files?: readonly string[];
  /** v0.2: a single `SKILL.md` or an archive (`.tar.gz`, `.zip`) of the skill folder. */
  readonly type?: RemoteSkillType;
  /** v0.2: where the artifact is, as listed (resolved against the index URL when pulled). */
  readonly url?: string;
  /** v0.2: `sha256:` and 64 lowercase hex digits of the artifact's bytes. */
  readonly digest?: string;
  /** Changes whenever a file changes; an unchanged version lets a pull skip the skill's files. */
  readonly version?: string;
}

/** The validated content of a pack's `index.json`. */
export interface RemoteSkillManifest {
  /** The `$schema` the index named (v0.2), absent for a v0.1 index. */
  readonly schema?: string;
  readonly skills: readonly RemoteSkillEntry[];
}

/** The `$schema` of the discovery index v0.2.0, which `writeManifest` writes. */
export const SCHEMA_V0_2 = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";
const DISCOVERY_SCHEMA = /^https:\/\/schemas\.agentskills\.io\/discovery\/0\.([12])\.\d+\/schema\.json$/;

/**
 * The index version `$schema` names: `0.1` without one; throws `REMOTE_ERROR` for one we do not
 * know (`where` names the index in the message).
 */
export function indexVersion(value: Record<string, unknown>, where = "the skill index"): "0.1" | "0.2" {
  if (!("$schema" in value)) return "0.1";
  const schema = value.$schema;
  const match = typeof schema === "string" ? DISCOVERY_SCHEMA.exec(schema) : null;
  if (!match) {
    throw new SkillError(
      "REMOTE_ERROR",
      `Remote fetch failed: ${where} names an unknown "$schema" ${quote(schema, 120)} (expected the Agent Skills discovery schema 0.1.x or 0.2.x); not processed`,
    );
  }
  return match[1] === "2" ? "0.2" : "0.1";
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

type EntryCheck =
  | { readonly entry: RemoteSkillEntry }
  | { readonly reason: string; readonly code: SkillErrorCode };

function checkFiles(raw: unknown): { files: string[] } | { reason: string; code: SkillErrorCode } {
  if (!Array.isArray(raw)) {
    return {
      reason:
        raw === undefined
          ? `"files" is missing (expected a list of paths, SKILL.md among them)`
          : `"files" must be a list of paths, found ${describeKind(raw)} ${quote(raw)}`,
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

function checkEntry(raw: unknown, index: number, version: "0.1" | "0.2"): EntryCheck {
  if (!isMapping(raw)) {
    return {
      reason: `skills[${index}] must be an object with "name" and ${version === "0.2" ? '"url"' : '"files"'}, found ${describeKind(raw)} ${quote(raw)}`,
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
  const revision =
    typeof raw.version === "string" || (typeof raw.version === "number" && Number.isFinite(raw.version))
      ? String(raw.version)
      : undefined;
  const common = {
    name,
    ...(typeof raw.description === "string" ? { description: raw.description } : {}),
    ...(revision === undefined || revision === "" ? {} : { version: revision }),
  };
  if (version === "0.2") return checkPinned(raw, common);
  const files = checkFiles(raw.files);
  if (!("files" in files)) return files;
  return { entry: Object.freeze({ ...common, files: Object.freeze(files.files) }) };
}

/** A v0.2 entry: `type`, `url` and `digest`; `files` (the hybrid index) are left to v0.1 readers. */
function checkPinned(raw: Record<string, unknown>, common: { name: string }): EntryCheck {
  const { type, url, digest } = raw;
  if (type !== "skill-md" && type !== "archive") {
    return {
      reason:
        type === undefined
          ? 'it has no "type" (expected "skill-md" or "archive")'
          : `unknown "type" ${quote(type)} (expected "skill-md" or "archive")`,
      code: type === undefined ? "MISSING_FIELD" : "INVALID_FIELD",
    };
  }
  if (typeof url !== "string" || url === "") {
    return {
      reason: `"url" must be the address of the ${type === "archive" ? "archive" : "SKILL.md"}, found ${describeKind(url)} ${quote(url)}`,
      code: url === undefined ? "MISSING_FIELD" : "INVALID_FIELD",
    };
  }
  if (!isDigest(digest)) {
    return {
      reason: `"digest" must be "sha256:" and 64 lowercase hex digits, found ${describeKind(digest)} ${quote(digest, 80)}`,
      code: "INVALID_FIELD",
    };
  }
  return { entry: Object.freeze({ ...common, type, url, digest }) };
}

/** Why `value` is not `{ "skills": [...] }`, or `undefined` when it is. */
export function shapeProblem(value: unknown): string | undefined {
  if (isMapping(value) && Array.isArray(value.skills)) return undefined;
  const found = isMapping(value)
    ? "skills" in value
      ? `an object whose "skills" is ${describeKind(value.skills)}`
      : 'an object without "skills"'
    : `${describeKind(value)} ${quote(value)}`;
  return `expected an object with a "skills" list, found ${found}`;
}

/**
 * Validates a parsed `index.json`, v0.1 (no `$schema`) or v0.2 (`$schema` naming discovery
 * 0.2.x). Entries that could hurt the machine or cannot be a skill are left out and reported in
 * `skipped`: a name that is not one safe folder name, a name already listed (compared
 * case-insensitively; the first wins); in v0.1 a file that is not a safe relative path (`..`,
 * absolute, backslash, drive letter, NUL, `%`, `?`, `#`, empty segments), no `SKILL.md` or more
 * than 1000 files; in v0.2 an unknown `type`, no `url`, or no valid `digest`. Unknown fields are
 * ignored.
 *
 * @throws SkillError `REMOTE_ERROR` when `value` is not an object with a `skills` list, or names a
 * `$schema` that is not the discovery index
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
  if (problem !== undefined || !isMapping(value) || !Array.isArray(value.skills)) {
    throw new SkillError("REMOTE_ERROR", `Remote fetch failed: not a skill index: ${problem}`);
  }
  const version = indexVersion(value);
  const skills: RemoteSkillEntry[] = [];
  const skipped: SkippedSkill[] = [];
  const names = new Map<string, number>();
  const listed = new Set<string>();
  value.skills.forEach((raw: unknown, index: number) => {
    const rawName = isMapping(raw) && typeof raw.name === "string" ? raw.name : undefined;
    if (rawName !== undefined && nameProblem(rawName) === undefined) listed.add(rawName);
    const shown = rawName === undefined ? `skills[${index}]` : label(rawName);
    const checked = checkEntry(raw, index, version);
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
  const schema = version === "0.2" ? { schema: value.$schema as string } : {};
  return { manifest: Object.freeze({ ...schema, skills: Object.freeze(skills) }), skipped, listed };
}
