import { readlink, realpath, stat } from "node:fs/promises";
import { basename, dirname, relative, resolve, sep } from "node:path";
import {
  DEFAULT_MAX_FILE_BYTES,
  errnoOf,
  errorMessage,
  isInside,
  listSkillFiles,
  printable,
  readInside,
  resolveInside,
  SkillError,
} from "@skill/core";
import type { AuditLimits, ListedFile, Note, SkillInput } from "./analyse.js";
import type { AuditFinding } from "./types.js";

const SKILL_MD = "SKILL.md";

/** The skill folder `path` names (its real path): the folder itself, or the folder of a SKILL.md. */
async function skillRoot(path: string): Promise<string> {
  const absolute = resolve(path);
  const info = await stat(absolute).catch((error: unknown) => {
    throw new SkillError(
      "NOT_FOUND",
      `Skill folder not found: ${absolute} (${errnoOf(error) ?? errorMessage(error)})`,
      {
        path: absolute,
        cause: error,
      },
    );
  });
  const dir = info.isDirectory() ? absolute : dirname(absolute);
  if (!info.isDirectory() && basename(absolute).toLowerCase() !== "skill.md") {
    throw new SkillError("READ_ERROR", `Not a skill folder or SKILL.md: ${absolute}`, { path: absolute });
  }
  return realpath(dir);
}

/** SKILL.md, whole, through core's safe reader; a link out of the folder is refused with its target. */
async function readSkillMd(root: string, maxBytes: number, signal?: AbortSignal): Promise<Uint8Array> {
  try {
    return await readInside(root, SKILL_MD, { maxBytes, ...(signal ? { signal } : {}) });
  } catch (error) {
    if (!SkillError.isInstance(error) || error.code !== "UNSAFE_PATH") throw error;
    const path = resolveInside(root, SKILL_MD);
    const target = await realpath(path).catch(() => readlink(path).catch(() => "?"));
    throw new SkillError(
      "UNSAFE_PATH",
      `Refusing to audit ${path}: it is a symlink to ${target}, outside the skill folder`,
      { path, cause: error },
    );
  }
}

function relativeTo(root: string, path: string | undefined): string {
  if (path === undefined || !isInside(root, path)) return ".";
  return relative(root, path).split(sep).join("/") || ".";
}

/**
 * The finding for a link the walker never follows. A link out of the folder (or one with no
 * target that points out of it) is `symlink-outside`, and so is one into `.git`; a link into
 * a nested skill is that skill's business, audited with it.
 */
async function linkFinding(root: string, file: ListedFile): Promise<AuditFinding | undefined> {
  const path = resolveInside(root, file.path);
  const target = await readlink(path).catch(() => undefined);
  const real = await realpath(path).catch(() => undefined);
  const shown = printable(JSON.stringify(target ?? "?"));
  if (real !== undefined && isInside(root, real)) {
    if (!relative(root, real).split(sep).includes(".git")) return undefined;
    return {
      rule: "symlink-outside",
      severity: "warning",
      path: file.path,
      message: `a symlink to ${shown}, into the skill's .git folder (not followed)`,
    };
  }
  // No target (or a loop): judged by where its text points.
  if (real === undefined && (target === undefined || isInside(root, resolve(dirname(path), target)))) {
    return undefined;
  }
  return {
    rule: "symlink-outside",
    severity: "warning",
    path: file.path,
    message: `a symlink to ${shown}, outside the skill folder (not followed)`,
  };
}

/**
 * A skill folder as the analyser reads it: listed by core's one walker (`listSkillFiles`,
 * shallow files first, dot-files and `node_modules` included, nested skills left to
 * themselves, links that are never followed listed so they can be reported) and read by
 * core's one safe reader (`readInside`), each file whole up to the larger of `maxFileBytes`
 * and core's per-file cap. The listing reads no file, so it is not cut at `maxFiles`: only the
 * walker's own bounds on a hostile tree stop it, and then what it listed before is kept and
 * the bound is a note.
 */
export async function folderInput(dir: string, limits: AuditLimits): Promise<SkillInput> {
  const root = await skillRoot(dir);
  const { signal } = limits;
  const withSignal = signal ? { signal } : {};
  const readCap = Math.max(limits.maxFileBytes, DEFAULT_MAX_FILE_BYTES);
  const bytes = await readSkillMd(root, readCap, signal);

  const listing = await listSkillFiles(root, {
    order: "shallow-first",
    hidden: true,
    links: true,
    limit: Number.POSITIVE_INFINITY,
    maxBytes: Number.POSITIVE_INFINITY,
    ...withSignal,
  });
  const notes: Note[] = [];
  if (listing.stopped) {
    // A tree too deep or too wide to list whole: what was listed before is still audited.
    const { path, message } = listing.stopped;
    notes.push({ path: relativeTo(root, path), message: `not listed: ${printable(message)}` });
  }
  const files: ListedFile[] = listing.files
    .filter((f) => f.path !== SKILL_MD)
    .map((f) => ({
      path: f.path,
      execBit: f.executable,
      size: f.size,
      ...(f.link === undefined ? {} : { link: f.link }),
    }));
  return {
    location: resolveInside(root, SKILL_MD),
    skillMd: { bytes },
    files,
    notes,
    read: async (file) => {
      if (file.size !== undefined && file.size > readCap) {
        throw new SkillError(
          "LIMIT_EXCEEDED",
          `it is ${file.size} bytes, more than the ${readCap} bytes read of one file`,
          { path: resolveInside(root, file.path) },
        );
      }
      return readInside(root, file.path, { maxBytes: readCap, ...withSignal });
    },
    linkFinding: (file) => linkFinding(root, file),
  };
}
