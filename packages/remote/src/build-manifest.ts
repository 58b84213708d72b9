import { dirname, join, resolve } from "node:path";
import { checkInside, type Diagnostic, quote, SkillError, writeInside } from "@skill/core";
import { type RemoteSkillEntry, type RemoteSkillManifest, SCHEMA_V0_2 } from "./manifest.js";
import { findSkills } from "./pack-folders.js";
import type { BuildManifestOptions, BuildManifestResult, PackedArchive } from "./pack-options.js";
import { describeSkill, OutsidePack } from "./packed-skill.js";
import { errorText, observing } from "./text.js";

/** Diagnostics a pack author should see, also sent to the logger. */
const LOGGED = new Set([
  "nested-skill",
  "name-mismatch",
  "link-outside",
  "link-dangling",
  "skill-at-pack-root",
]);

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
  const tell = observing(options.onProgress);
  for (const [done, found] of skills.entries()) {
    tell({ skill: found.rel, done, total: skills.length });
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

/** A failed write of `target`, said as `skill pack` says it; a refusal of core's writer (`UNSAFE_PATH`) as it is. */
function writeError(target: string, error: unknown): SkillError {
  if (SkillError.isInstance(error) && error.code !== "WRITE_ERROR") return error;
  const cause = SkillError.isInstance(error) && error.cause !== undefined ? error.cause : error;
  return new SkillError("WRITE_ERROR", `Failed to write ${target} (${errorText(cause)})`, {
    path: target,
    cause,
  });
}

/**
 * {@link buildManifest}, then writes the archives, then `<dir>/index.json`, each through core's
 * `writeInside`: a new file renamed into place, so each is old or new, never half; a link at an
 * output's path is replaced, never written through; and every output's folder must stay inside
 * `dir` by real path, checked for all of them before the first is written. When any skill
 * failed, nothing is written (`written: false`): a pack is published whole or not at all —
 * unless `skipInvalid`, which writes the rest (and nothing when no skill is left).
 *
 * @throws SkillError `WRITE_ERROR` when a file cannot be written, `UNSAFE_PATH` when a folder
 *   on the way is a link leading out of `dir` (nothing is written then)
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
  // The index last: it never names an archive that is not written yet.
  const writes = [
    ...result.archives.map((a) => ({ rel: a.path, bytes: a.bytes })),
    { rel: "index.json", bytes: Buffer.from(manifestJson(result.manifest)) as Uint8Array },
  ].map((w) => ({ ...w, target: join(root, ...w.rel.split("/")) }));
  for (const w of writes) {
    await checkInside(dirname(w.target), { within: root }).catch((error: unknown) => {
      throw writeError(w.target, error);
    });
  }
  for (const w of writes) {
    await writeInside(root, w.rel, w.bytes).catch((error: unknown) => {
      throw writeError(w.target, error);
    });
  }
  return { ...result, path, written: true };
}
