import { isUtf8 } from "node:buffer";
import { createHash } from "node:crypto";
import { join } from "node:path";
import {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_FILE_BYTES,
  type Diagnostic,
  parseSkill,
  quote,
  readInside,
  SKILL_FILE,
  SkillError,
  type SkillFile,
  sha256Digest,
  skillFiles,
} from "@skill/core";
import { BLOCK_BYTES } from "./http.js";
import { parseManifest, type RemoteSkillEntry, SCHEMA_V0_2 } from "./manifest.js";
import { deterministicTarGz, type Packed } from "./pack-archive.js";
import type { Found } from "./pack-folders.js";
import type { BuildManifestOptions, PackedArchive } from "./pack-options.js";
import { fileProblem, MAX_FILES_PER_SKILL, nameProblem } from "./safe-path.js";
import { errorText } from "./text.js";

function encodePath(rel: string): string {
  return rel.split("/").map(encodeURIComponent).join("/");
}

export interface Described {
  readonly entry: RemoteSkillEntry;
  readonly diagnostics: readonly Diagnostic[];
  readonly archive?: PackedArchive;
}

/** A skill folder reached through a link that leaves the pack: reported, never read. */
export class OutsidePack extends Error {}

/** The warning for a link core's walker did not follow: it is neither read nor packed. */
function linkWarning(folder: string, file: SkillFile): Diagnostic {
  const path = join(folder, ...file.path.split("/"));
  return file.link === "dangling"
    ? {
        code: "link-dangling",
        severity: "warning",
        message: `Not packed: ${path} is a symbolic link with no target`,
        path,
      }
    : {
        code: "link-outside",
        severity: "warning",
        message: `Not packed: ${path} is a symbolic link leading out of the skill folder ${folder} (or into a nested skill); copy the file in to publish it`,
        path,
      };
}

/** The SKILL.md bytes, parsed as core parses them; an invalid UTF-8 byte is a finding, as on load. */
function parseBytes(bytes: Uint8Array, location: string, strict: boolean) {
  const parsed = parseSkill(Buffer.from(bytes).toString("utf8"), location, { lenient: !strict });
  if (isUtf8(bytes)) return parsed;
  const message = `${location} is not valid UTF-8; the invalid bytes were read as U+FFFD`;
  if (strict) throw new SkillError("INVALID_FIELD", message, { path: location });
  const finding: Diagnostic = { code: "invalid-utf8", severity: "warning", message, path: location };
  return { ...parsed, diagnostics: [finding, ...parsed.diagnostics] };
}

type Cannot = (code: SkillError["code"], reason: string, cause?: unknown) => SkillError;

/** The errors of a skill folder that cannot be listed. */
function cannotList(folder: string): Cannot {
  return (code, reason, cause) =>
    new SkillError(code, `Skill folder ${folder} cannot be listed: ${reason}`, {
      path: folder,
      ...(cause === undefined ? {} : { cause }),
    });
}

/**
 * What core's walker lists in a skill folder: no dot-files, no nested skill, and links that
 * leave the folder listed only to be reported (`unfollowed`).
 */
async function listFolder(
  folder: string,
  cannot: Cannot,
): Promise<{ kept: SkillFile[]; unfollowed: SkillFile[] }> {
  const listed = await skillFiles(folder, {
    limit: MAX_FILES_PER_SKILL + 1,
    maxBytes: Number.POSITIVE_INFINITY,
    links: true,
  });
  if (listed.length > MAX_FILES_PER_SKILL) {
    throw cannot("LIMIT_EXCEEDED", `it holds more than ${MAX_FILES_PER_SKILL} files`);
  }
  const unfollowed = listed.filter((f) => f.link === "outside" || f.link === "dangling");
  if (unfollowed.some((f) => f.path === SKILL_FILE)) {
    throw cannot("UNSAFE_PATH", `its ${SKILL_FILE} is a symbolic link leading out of the skill folder`);
  }
  return { kept: listed.filter((f) => f.link !== "outside" && f.link !== "dangling"), unfollowed };
}

/**
 * The SKILL.md bytes, read below the pack folder: its SKILL.md stays in its folder (checked by
 * {@link listFolder}), so a refusal here means the folder itself is reached through a link out
 * of the pack.
 */
async function readSkillMd(root: string, found: Found): Promise<Uint8Array> {
  try {
    return await readInside(root, `${found.rel}/${SKILL_FILE}`, { maxBytes: DEFAULT_MAX_BYTES });
  } catch (error) {
    if (SkillError.isInstance(error) && error.code === "UNSAFE_PATH") throw new OutsidePack();
    throw error;
  }
}

/** The files to pack, each name checked, then each read inside the skill folder (SKILL.md's bytes are `skillBytes`). */
async function readFiles(
  folder: string,
  kept: readonly SkillFile[],
  skillBytes: Uint8Array,
  cannot: Cannot,
): Promise<Packed[]> {
  for (const f of kept) {
    const p = fileProblem(f.path);
    if (p) throw cannot("UNSAFE_PATH", `unsafe file ${quote(f.path)}: ${p}`);
  }
  const files: Packed[] = [];
  for (const f of kept) {
    let bytes = skillBytes;
    if (f.path !== SKILL_FILE) {
      try {
        bytes = await readInside(folder, f.path, { maxBytes: DEFAULT_MAX_FILE_BYTES });
      } catch (error) {
        throw cannot(
          SkillError.isInstance(error) ? error.code : "READ_ERROR",
          SkillError.isInstance(error) ? error.message : errorText(error),
          error,
        );
      }
    }
    files.push({ rel: f.path, bytes, executable: f.executable });
  }
  return files;
}

/** A skill's content version: changes exactly when a file's name or bytes change. */
function contentVersion(files: readonly Packed[]): string {
  const hash = createHash("sha256");
  for (const file of files) hash.update(`${file.rel}\0${file.bytes.length}\0`).update(file.bytes);
  return hash.digest("hex").slice(0, 16);
}

/** Where a v0.2 client fetches the skill: its lone SKILL.md, or a deterministic archive of its files. */
async function artifactOf(
  found: Found,
  name: string,
  files: readonly Packed[],
  skillBytes: Uint8Array,
  baseUrl: string | undefined,
): Promise<{ url: string; digest: string; archive?: PackedArchive }> {
  let archive: PackedArchive | undefined;
  let url: string;
  let digest: string;
  if (files.length === 1 && files[0]?.rel === SKILL_FILE) {
    url = `${encodePath(found.rel)}/SKILL.md`;
    digest = sha256Digest(skillBytes);
  } else {
    const bytes = await deterministicTarGz(files);
    archive = {
      path: `${found.rel}.tar.gz`,
      bytes,
      name,
      entries: files.length,
      unpackedBytes: files.reduce((sum, f) => sum + Math.max(f.bytes.length, BLOCK_BYTES), 0),
    };
    url = `${encodePath(found.rel)}.tar.gz`;
    digest = sha256Digest(bytes);
  }
  if (baseUrl !== undefined) {
    const base = new URL(baseUrl);
    base.pathname = `${base.pathname.replace(/\/+$/, "")}/`;
    url = new URL(url, base).href;
  }
  return { url, digest, ...(archive ? { archive } : {}) };
}

/** The rules a pull enforces, for both generations of readers: `cannot` when one refuses the entry. */
function checkEntry(candidate: Record<string, unknown>, servesV01: boolean, cannot: Cannot): void {
  const v2 = parseManifest({ $schema: SCHEMA_V0_2, skills: [candidate] });
  if (!v2.manifest.skills[0])
    throw cannot(v2.skipped[0]?.code ?? "INVALID_FIELD", v2.skipped[0]?.reason ?? "refused");
  if (servesV01) {
    const v1 = parseManifest({ skills: [candidate] });
    if (!v1.manifest.skills[0])
      throw cannot(v1.skipped[0]?.code ?? "UNSAFE_PATH", v1.skipped[0]?.reason ?? "refused");
  }
}

/** The warning for a skill deeper than `<dir>/<name>/`, which only v0.2 clients can fetch. */
function nestedWarning(found: Found, name: string, outer: string | undefined, single: boolean): Diagnostic {
  return {
    code: "nested-skill",
    severity: "warning",
    message: `Skill ${quote(name)} is nested at ${found.rel}/${outer === undefined ? "" : `, inside the skill folder ${outer}/ (its files are packed with it, not with ${outer}/)`}; v0.1 clients cannot fetch it (only its v0.2 ${single ? "SKILL.md" : "archive"} lists it)`,
    path: join(found.abs, SKILL_FILE),
  };
}

/**
 * One skill folder of a pack: its index entry, its findings, and its archive when it has
 * bundled files. `outer` is the skill folder it is nested in, if any.
 *
 * @throws SkillError when the skill cannot be listed; {@link OutsidePack} when its folder is
 *   reached through a link out of the pack.
 */
export async function describeSkill(
  root: string,
  found: Found,
  outer: string | undefined,
  options: BuildManifestOptions,
): Promise<Described> {
  const folder = found.abs;
  const skillPath = join(folder, SKILL_FILE);
  const cannot = cannotList(folder);
  const folderProblem = fileProblem(found.rel);
  if (folderProblem) throw cannot("UNSAFE_PATH", `unsafe name ${quote(found.rel)}: ${folderProblem}`);
  const { kept, unfollowed } = await listFolder(folder, cannot);
  const skillBytes = await readSkillMd(root, found);
  // Strict: core refuses a skill with any spec finding (INVALID_FIELD, naming the rules).
  const { skill, diagnostics } = parseBytes(skillBytes, skillPath, options.strict === true);
  const name = skill.name;
  const problem = nameProblem(name);
  if (problem) throw cannot("UNSAFE_PATH", `unsafe name ${quote(name)}: ${problem}`);
  const files = await readFiles(folder, kept, skillBytes, cannot);
  const version = contentVersion(files);
  // v0.1 clients fetch `<base><name>/<file>`: only a top-level folder named after the skill serves that.
  const servesV01 = found.rel === name;
  const findings = [...diagnostics, ...unfollowed.map((f) => linkWarning(folder, f))];

  if (options.archives === false) {
    if (!servesV01) {
      throw cannot(
        "INVALID_FIELD",
        `a v0.1 index serves skills from <name>/ folders, and ${quote(found.rel)} holds the skill ${quote(name)} (write archives to list it)`,
      );
    }
    const candidate = { name, description: skill.description, version, files: files.map((f) => f.rel) };
    const { manifest, skipped } = parseManifest({ skills: [candidate] });
    const entry = manifest.skills[0];
    if (!entry) throw cannot(skipped[0]?.code ?? "UNSAFE_PATH", skipped[0]?.reason ?? "refused");
    return { entry, diagnostics: findings };
  }

  const single = files.length === 1 && files[0]?.rel === SKILL_FILE;
  const { url, digest, archive } = await artifactOf(found, name, files, skillBytes, options.baseUrl);
  const candidate = {
    name,
    type: single ? "skill-md" : "archive",
    description: skill.description,
    url,
    digest,
    version,
    ...(servesV01 ? { files: files.map((f) => f.rel) } : {}),
  };
  checkEntry(candidate, servesV01, cannot);
  const extra = found.rel.includes("/") ? [nestedWarning(found, name, outer, single)] : [];
  return {
    entry: Object.freeze(candidate) as RemoteSkillEntry,
    diagnostics: [...findings, ...extra],
    ...(archive ? { archive } : {}),
  };
}
