import { basename, dirname, join, relative, resolve, sep } from "node:path";
import {
  compareCodeUnits,
  type Diagnostic,
  errnoOf,
  isInside,
  SKILL_FILE,
  SkillError,
  skillFiles,
} from "@skill/core";
import type { BuildManifestOptions } from "./pack-options.js";
import { errorText } from "./text.js";

/** One skill folder to pack. */
export interface Found {
  /** The folder below the pack folder, `/`-separated. */
  readonly rel: string;
  readonly abs: string;
}

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
  const missing = code === "NOT_FOUND" || code === "ENOENT";
  return new SkillError(
    missing ? "NOT_FOUND" : "READ_ERROR",
    `Cannot read the skill pack folder ${root} (${missing ? "no such folder" : errorText(error)})`,
    { path: root, cause: error },
  );
}

/**
 * The skill folders to pack, sorted: those the caller named, or every folder holding a
 * `SKILL.md` that core's walker lists under `root`. A `SKILL.md` at the root itself is
 * reported, not packed: a pack serves skills from folders below its index.
 */
export async function findSkills(
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
