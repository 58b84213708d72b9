import { isUtf8 } from "node:buffer";
import { createHash, randomBytes } from "node:crypto";
import { rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { gzipSync } from "node:zlib";
import {
  compareCodeUnits,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_FILE_BYTES,
  type Diagnostic,
  errnoOf,
  isInside,
  type Logger,
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
import { parseManifest, type RemoteSkillEntry, type RemoteSkillManifest, SCHEMA_V0_2 } from "./manifest.js";
import { fileProblem, MAX_FILES_PER_SKILL, nameProblem } from "./safe-path.js";
import { errorText } from "./text.js";

export interface BuildManifestOptions {
  /** Leave out skills with any spec finding (a name that does not match its folder, …). Default `false`. */
  readonly strict?: boolean;
  /**
   * Write the hybrid index (default `true`): v0.2 `$schema`, `type`, `url` and `digest` per skill,
   * plus `files` for v0.1 clients, and a `.tar.gz` beside each skill with bundled files. `false`
   * writes a v0.1-only index (no `$schema`, no archives) for servers that cannot hold archives.
   */
  readonly archives?: boolean;
  /** The absolute URL the pack will be served from: artifact `url`s become absolute. Default: relative to the index. */
  readonly baseUrl?: string;
  /**
   * The skills to pack: `SKILL.md` paths or skill folders, absolute or relative to `dir`, as a
   * crawl such as discovery's `scanSkillFiles(dir)` returns them. Default: every `SKILL.md` that
   * core's walker (`skillFiles(dir, { nested: true })`) lists under `dir`: dot-folders,
   * `node_modules` and links that leave `dir` are not entered.
   */
  readonly skills?: readonly string[];
  /**
   * `writeManifest` only: write the index of the skills that could be listed, leaving out those
   * that failed (still reported in `failed`). Default `false`: a pack is published whole or not
   * at all.
   */
  readonly skipInvalid?: boolean;
  readonly logger?: Logger;
}

/** A pack's manifest, and the skill folders that could not be listed. */
export interface BuildManifestResult {
  readonly manifest: RemoteSkillManifest;
  /** Skill folders left out: `path` is the folder, `error` says why (parse error, unsafe name or file…). */
  readonly failed: readonly { readonly path: string; readonly error: SkillError }[];
  /**
   * Findings about the pack (spec warnings, repaired YAML, nested skill folders, links that
   * were not packed because they leave their skill folder or the pack).
   */
  readonly diagnostics: readonly Diagnostic[];
  /** The archives the index names, in the order of its skills. */
  readonly archives: readonly PackedArchive[];
}

/** One archive of a pack, with what a pull measures against its limits. */
export interface PackedArchive {
  /** Relative to the pack folder, `/`-separated. */
  readonly path: string;
  /** The exact bytes (`maxArchiveBytes` of a pull applies to their length). */
  readonly bytes: Uint8Array;
  /** The skill it holds. */
  readonly name: string;
  /** Entries it holds (`maxArchiveFiles`). */
  readonly entries: number;
  /** Bytes it unpacks to as a pull counts them, each file as at least 4 KiB (`maxUnpackedBytes`). */
  readonly unpackedBytes: number;
}

/** One skill folder to pack. */
interface Found {
  /** The folder below the pack folder, `/`-separated. */
  readonly rel: string;
  readonly abs: string;
}

/** A file of a skill, with the bytes that are hashed and packed. */
interface Packed {
  readonly rel: string;
  readonly bytes: Uint8Array;
  readonly executable: boolean;
}

/** Diagnostics a pack author should see, also sent to the logger. */
const LOGGED = new Set([
  "nested-skill",
  "name-mismatch",
  "link-outside",
  "link-dangling",
  "skill-at-pack-root",
]);

function toRel(root: string, abs: string): string {
  return relative(root, abs).split(sep).join("/");
}

function packFolderError(root: string, error: unknown): SkillError {
  const code = SkillError.isInstance(error) ? error.code : errnoOf(error);
  if (SkillError.isInstance(error) && code !== "NOT_FOUND" && code !== "READ_ERROR") {
    return new SkillError(
      error.code,
      `Cannot search the skill pack folder ${root} for skills: ${error.message} (name the skills with the 'skills' option instead)`,
      { path: error.path ?? root, cause: error },
    );
  }
  return new SkillError(
    code === "NOT_FOUND" || code === "ENOENT" ? "NOT_FOUND" : "READ_ERROR",
    `Cannot read the skill pack folder ${root} (${errorText(error)})`,
    { path: root, cause: error },
  );
}

/**
 * The skill folders to pack, sorted: those the caller named, or every folder holding a
 * `SKILL.md` that core's walker lists under `root`. A `SKILL.md` at the root itself is
 * reported, not packed: a pack serves skills from folders below its index.
 */
async function findSkills(
  root: string,
  options: BuildManifestOptions,
  failed: { path: string; error: SkillError }[],
  diagnostics: Diagnostic[],
): Promise<Found[]> {
  let folders: string[];
  try {
    if (options.skills === undefined) {
      const listed = await skillFiles(root, { nested: true, limit: Infinity, maxBytes: Infinity });
      folders = listed
        .filter((f) => f.path === SKILL_FILE || f.path.endsWith(`/${SKILL_FILE}`))
        .map((f) => dirname(join(root, ...f.path.split("/"))));
    } else {
      // Only to tell a missing pack folder from an empty one; the walk itself lists nothing.
      await skillFiles(root, { limit: 0 });
      folders = options.skills.map((given) => {
        const abs = resolve(root, given);
        return basename(abs) === SKILL_FILE ? dirname(abs) : abs;
      });
    }
  } catch (error) {
    throw packFolderError(root, error);
  }
  const out = new Map<string, Found>();
  for (const abs of folders) {
    if (abs === root) {
      diagnostics.push({
        code: "skill-at-pack-root",
        severity: "warning",
        message: `Not packed: ${join(root, SKILL_FILE)} sits in the pack folder itself; a pack serves skills from the folders below its index.json (pack the parent folder instead)`,
        path: join(root, SKILL_FILE),
      });
    } else if (!isInside(root, abs)) {
      failed.push({
        path: abs,
        error: new SkillError(
          "UNSAFE_PATH",
          `Skill folder ${abs} cannot be listed: expected a skill folder inside the pack folder ${root}`,
          { path: abs },
        ),
      });
    } else {
      out.set(abs, { rel: toRel(root, abs), abs });
    }
  }
  return [...out.values()].sort((a, b) => compareCodeUnits(a.rel, b.rel));
}

/**
 * A `.tar.gz` of `files` that is the same bytes wherever and whenever it is built: entries
 * sorted, no folders, mtime 0, owner 0:0 without names, mode 0644 (0755 when executable), and a
 * gzip header without time or OS.
 */
async function deterministicTarGz(files: readonly Packed[]): Promise<Buffer> {
  const { Header, Pax } = await import("tar");
  const blocks: Buffer[] = [];
  for (const file of files) {
    const bytes = Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength);
    const data = {
      path: file.rel,
      mode: file.executable ? 0o755 : 0o644,
      uid: 0,
      gid: 0,
      size: bytes.length,
      mtime: new Date(0),
      type: "File" as const,
      uname: "",
      gname: "",
    };
    const header = new Header(data);
    const block = Buffer.alloc(512);
    if (header.encode(block)) blocks.push(new Pax({ path: file.rel }).encode());
    blocks.push(block, bytes, Buffer.alloc((512 - (bytes.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  const gz = gzipSync(Buffer.concat(blocks), { level: 9 });
  gz[9] = 0xff; // OS: unknown, so the bytes do not depend on the platform that built them
  return gz;
}

function encodePath(rel: string): string {
  return rel.split("/").map(encodeURIComponent).join("/");
}

interface Described {
  readonly entry: RemoteSkillEntry;
  readonly diagnostics: readonly Diagnostic[];
  readonly archive?: PackedArchive;
}

/** A skill folder reached through a link that leaves the pack: reported, never read. */
class OutsidePack extends Error {}

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

async function describeSkill(
  root: string,
  found: Found,
  outer: string | undefined,
  options: BuildManifestOptions,
): Promise<Described> {
  const folder = found.abs;
  const skillPath = join(folder, SKILL_FILE);
  const cannot = (code: SkillError["code"], reason: string, cause?: unknown) =>
    new SkillError(code, `Skill folder ${folder} cannot be listed: ${reason}`, {
      path: folder,
      ...(cause === undefined ? {} : { cause }),
    });
  const folderProblem = fileProblem(found.rel);
  if (folderProblem) throw cannot("UNSAFE_PATH", `unsafe name ${quote(found.rel)}: ${folderProblem}`);
  // Core's walker decides what the skill holds: no dot-files, no nested skill, and links that
  // leave the folder are listed only to be reported.
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
  // Read below the pack folder: its SKILL.md stays in its folder (checked above), so a refusal
  // here means the folder itself is reached through a link out of the pack.
  let skillBytes: Uint8Array;
  try {
    skillBytes = await readInside(root, `${found.rel}/${SKILL_FILE}`, { maxBytes: DEFAULT_MAX_BYTES });
  } catch (error) {
    if (SkillError.isInstance(error) && error.code === "UNSAFE_PATH") throw new OutsidePack();
    throw error;
  }
  // Strict: core refuses a skill with any spec finding (INVALID_FIELD, naming the rules).
  const { skill, diagnostics } = parseBytes(skillBytes, skillPath, options.strict === true);
  const name = skill.name;
  const problem = nameProblem(name);
  if (problem) throw cannot("UNSAFE_PATH", `unsafe name ${quote(name)}: ${problem}`);

  const kept = listed.filter((f) => f.link !== "outside" && f.link !== "dangling");
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
  const hash = createHash("sha256");
  for (const file of files) hash.update(`${file.rel}\0${file.bytes.length}\0`).update(file.bytes);
  const version = hash.digest("hex").slice(0, 16);
  // v0.1 clients fetch `<base><name>/<file>`: only a top-level folder named after the skill serves that.
  const servesV01 = found.rel === name;
  const common = { name, description: skill.description, version };
  const findings = [...diagnostics, ...unfollowed.map((f) => linkWarning(folder, f))];

  if (options.archives === false) {
    if (!servesV01) {
      throw cannot(
        "INVALID_FIELD",
        `a v0.1 index serves skills from <name>/ folders, and ${quote(found.rel)} holds the skill ${quote(name)} (write archives to list it)`,
      );
    }
    const candidate = { ...common, files: files.map((f) => f.rel) };
    const { manifest, skipped } = parseManifest({ skills: [candidate] });
    const entry = manifest.skills[0];
    if (!entry) throw cannot(skipped[0]?.code ?? "UNSAFE_PATH", skipped[0]?.reason ?? "refused");
    return { entry, diagnostics: findings };
  }

  const single = files.length === 1 && files[0]?.rel === SKILL_FILE;
  let archive: Described["archive"];
  let url: string;
  let digest: string;
  if (single) {
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
  if (options.baseUrl !== undefined) {
    const base = new URL(options.baseUrl);
    base.pathname = `${base.pathname.replace(/\/+$/, "")}/`;
    url = new URL(url, base).href;
  }
  const candidate = {
    name,
    type: single ? "skill-md" : "archive",
    description: skill.description,
    url,
    digest,
    version,
    ...(servesV01 ? { files: files.map((f) => f.rel) } : {}),
  };
  // The rules a pull enforces, for both generations of readers.
  const v2 = parseManifest({ $schema: SCHEMA_V0_2, skills: [candidate] });
  if (!v2.manifest.skills[0])
    throw cannot(v2.skipped[0]?.code ?? "INVALID_FIELD", v2.skipped[0]?.reason ?? "refused");
  if (servesV01) {
    const v1 = parseManifest({ skills: [candidate] });
    if (!v1.manifest.skills[0])
      throw cannot(v1.skipped[0]?.code ?? "UNSAFE_PATH", v1.skipped[0]?.reason ?? "refused");
  }
  const extra: Diagnostic[] = [];
  if (found.rel.includes("/")) {
    extra.push({
      code: "nested-skill",
      severity: "warning",
      message: `Skill ${quote(name)} is nested at ${found.rel}/${outer === undefined ? "" : `, inside the skill folder ${outer}/ (its files are packed with it, not with ${outer}/)`}; v0.1 clients cannot fetch it (only its v0.2 ${single ? "SKILL.md" : "archive"} lists it)`,
      path: skillPath,
    });
  }
  return {
    entry: Object.freeze(candidate) as RemoteSkillEntry,
    diagnostics: [...findings, ...extra],
    ...(archive ? { archive } : {}),
  };
}

/**
 * Builds the index of a folder of skills. The skills are the folders `options.skills` names
 * (what a crawl such as discovery's `scanSkillFiles(dir)` found), else every folder below `dir`
 * holding a `SKILL.md` that core's walker lists; one deeper than `<dir>/<name>/` is listed with a
 * `nested-skill` warning, and a skill inside another skill's folder is its own skill, not files
 * of the outer one. Names come from the frontmatter (a folder named otherwise is reported as
 * `name-mismatch`). By default the index is the hybrid both generations read: v0.2 `$schema`,
 * per skill `name`, `description`, `type`, `url`, `digest` (`skill-md` for a lone SKILL.md,
 * `archive` for a skill with bundled files, whose deterministic `.tar.gz` is returned in
 * `archives`), plus `files` and `version` for v0.1 clients. `archives: false` builds a
 * v0.1-only index. Skills core cannot parse, or that a pull would refuse, are reported in
 * `failed` instead of listed.
 *
 * A skill's files are `skillFiles(folder)` of core and are read with `readInside`: nothing
 * outside the skill folder is ever read or packed. A symbolic link whose target stays inside
 * is packed as a copy of that file; one that leaves the folder (or leads into a nested skill)
 * or has no target is left out with a `link-outside` or `link-dangling` warning naming it. A
 * skill folder reached through a link that leaves `dir` is left out with `link-outside`.
 *
 * @throws SkillError `NOT_FOUND` or `READ_ERROR` when `dir` cannot be read
 */
export async function buildManifest(
  dir: string,
  options: BuildManifestOptions = {},
): Promise<BuildManifestResult> {
  const root = resolve(dir);
  const entries: RemoteSkillEntry[] = [];
  const failed: { path: string; error: SkillError }[] = [];
  const diagnostics: Diagnostic[] = [];
  const archives: PackedArchive[] = [];
  const names = new Map<string, string>();
  const skills = await findSkills(root, options, failed, diagnostics);
  for (const f of failed) options.logger?.warn(f.error.message, { code: f.error.code, path: f.path });
  const rels = new Set(skills.map((s) => s.rel));
  for (const found of skills) {
    const parts = found.rel.split("/");
    const outer = parts
      .slice(0, -1)
      .map((_, i) => parts.slice(0, i + 1).join("/"))
      .findLast((rel) => rels.has(rel));
    try {
      const described = await describeSkill(root, found, outer, options);
      const key = described.entry.name.normalize("NFC").toLowerCase();
      const earlier = names.get(key);
      if (earlier !== undefined) {
        throw new SkillError(
          "DUPLICATE_NAME",
          `Skill folder ${found.abs} cannot be listed: the skill ${quote(described.entry.name)} is already listed from ${earlier}`,
          { path: found.abs },
        );
      }
      names.set(key, found.abs);
      entries.push(described.entry);
      diagnostics.push(...described.diagnostics);
      if (described.archive) archives.push(described.archive);
    } catch (error) {
      if (error instanceof OutsidePack) {
        diagnostics.push({
          code: "link-outside",
          severity: "warning",
          message: `Not packed: the skill folder ${found.abs} is reached through a symbolic link leading out of the pack folder ${root}; copy it in to publish it`,
          path: found.abs,
        });
        continue;
      }
      const e = SkillError.isInstance(error)
        ? error
        : new SkillError("READ_ERROR", `Failed to read skill folder ${found.abs} (${errorText(error)})`, {
            path: found.abs,
            cause: error,
          });
      failed.push({ path: found.abs, error: e });
      options.logger?.warn(e.message, { code: e.code, path: found.abs });
    }
  }
  for (const d of diagnostics) {
    if (LOGGED.has(d.code))
      options.logger?.warn(d.message, { code: d.code, ...(d.path ? { path: d.path } : {}) });
  }
  const manifest: RemoteSkillManifest =
    options.archives === false ? { skills: entries } : { schema: SCHEMA_V0_2, skills: entries };
  return { manifest, failed, diagnostics, archives };
}

/** The index as it is written: `$schema` first, for a v0.2 manifest. */
export function manifestJson(manifest: RemoteSkillManifest): string {
  const { schema, skills } = manifest;
  return `${JSON.stringify(schema === undefined ? { skills } : { $schema: schema, skills }, null, 2)}\n`;
}

/**
 * {@link buildManifest}, then writes the archives and `<dir>/index.json` (each to a temporary
 * file first, renamed into place only when all were written). When any skill failed, nothing is
 * written (`written: false`): a pack is published whole or not at all — unless `skipInvalid`,
 * which writes the rest (and nothing when no skill is left).
 *
 * @throws SkillError `WRITE_ERROR` when a file cannot be written (what was written is removed)
 */
export async function writeManifest(
  dir: string,
  options: BuildManifestOptions = {},
): Promise<BuildManifestResult & { readonly path: string; readonly written: boolean }> {
  const result = await buildManifest(dir, options);
  const root = resolve(dir);
  const path = join(root, "index.json");
  const refused = result.failed.length > 0 && (!options.skipInvalid || result.manifest.skills.length === 0);
  if (refused) return { ...result, path, written: false };
  const tag = randomBytes(4).toString("hex");
  const writes = [
    ...result.archives.map((a) => ({
      target: join(root, ...a.path.split("/")),
      bytes: a.bytes as Uint8Array | string,
    })),
    { target: path, bytes: manifestJson(result.manifest) as Uint8Array | string },
  ].map((w) => ({ ...w, temp: `${w.target}.${tag}.tmp` }));
  let current = path;
  try {
    for (const w of writes) {
      current = w.target;
      await writeFile(w.temp, w.bytes, { flag: "wx" });
    }
    for (const w of writes) {
      current = w.target;
      await rename(w.temp, w.target);
    }
  } catch (error) {
    await Promise.all(writes.map((w) => rm(w.temp, { force: true }).catch(() => {})));
    throw new SkillError("WRITE_ERROR", `Failed to write ${current} (${errorText(error)})`, {
      path: current,
      cause: error,
    });
  }
  return { ...result, path, written: true };
}
