import { dirname } from "node:path";
import { type AuditFinding, auditSkill, type Capabilities } from "@skill/audit";
import { errorMessage, loadSkillFile, printable, type SkillMetadata, skillFiles } from "@skill/core";
import type { RemoteSkillManifest } from "@skill/remote";
import type { Progress } from "../../progress.js";

/** The placeholder the install commands hold when the pack was written without `--base-url`: the folder's URL. */
export const URL_PLACEHOLDER = "<pack-url>";

/** One skill as the pack's page shows it. */
export interface PageSkill {
  readonly name: string;
  readonly description: string;
  /** Relative, `/`-separated, as the index lists them (or as core lists the folder). */
  readonly files: readonly string[];
  /** What the skill can do, read by `@skill/audit`; a message when the audit failed. */
  readonly capabilities: Capabilities | { readonly error: string };
  /** What the audit found that a reader should know before installing it (none when it failed). */
  readonly findings: readonly AuditFinding[];
  /** The commands that install it: `skill add …`, then `npx skills add …`. */
  readonly install: readonly string[];
  /** What the page's search indexes. */
  readonly metadata: SkillMetadata;
}

/**
 * The URL of the pack's index as people install from it: `index.json` below `--base-url`
 * (the folder the pack is served from), or below {@link URL_PLACEHOLDER} without one.
 */
export function indexUrl(baseUrl: string | undefined): string {
  if (baseUrl === undefined) return `${URL_PLACEHOLDER}/index.json`;
  const base = new URL(baseUrl);
  base.pathname = `${base.pathname.replace(/\/+$/, "")}/`;
  return new URL("index.json", base).href;
}

/** The folders a site serves its skills index from, as Vercel's `skills` looks for them. */
const WELL_KNOWN = /\/\.well-known\/(?:agent-skills|skills)\/index\.json$/;

/**
 * Vercel's `npx skills add` of one skill: from the site, when the pack is its well-known
 * index (`skills` looks there, and only there, for an index); else the skill's own artifact
 * (its archive, or its lone SKILL.md), which `skills` downloads directly. `undefined` for a
 * v0.1 entry of several files served elsewhere: `skills` has no way to it.
 */
function vercelCommand(index: string, name: string, artifact: string | undefined): string | undefined {
  if (WELL_KNOWN.test(index))
    return `npx skills add ${shellWord(index.replace(WELL_KNOWN, ""))} --skill ${shellWord(name)}`;
  if (artifact === undefined) return undefined;
  // Without `--base-url` the index's artifact URLs are relative to its folder.
  if (index.startsWith(URL_PLACEHOLDER)) return `npx skills add ${URL_PLACEHOLDER}/${shellWord(artifact)}`;
  return `npx skills add ${shellWord(new URL(artifact, index).href)}`;
}

/** A word for a POSIX shell: as it is when it holds nothing the shell reads, else single-quoted. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The commands that install `name` from the pack whose index is at `index`: this CLI's (from
 * the index), then Vercel's `skills` (see {@link vercelCommand}); `artifact` is the skill's
 * `url` in the index.
 */
export function installCommands(index: string, name: string, artifact?: string): string[] {
  const at = index.startsWith(URL_PLACEHOLDER) ? index : shellWord(index);
  const vercel = vercelCommand(index, name, artifact);
  return [`skill add ${at} ${shellWord(name)}`, ...(vercel === undefined ? [] : [vercel])];
}

/** Each listed skill's SKILL.md and metadata, by name (the first of a name counts). */
async function loadByName(skillPaths: readonly string[]): Promise<Map<string, SkillMetadata>> {
  const byName = new Map<string, SkillMetadata>();
  for (const path of skillPaths) {
    try {
      const { skill } = await loadSkillFile(path);
      if (!byName.has(skill.name)) byName.set(skill.name, skill);
    } catch {
      // A skill that does not load is not in the index either: the pack said why.
    }
  }
  return byName;
}

/** The skill's capabilities and findings, by `@skill/audit`; its error as the capabilities when it fails. */
async function auditOf(folder: string): Promise<Pick<PageSkill, "capabilities" | "findings">> {
  try {
    const { capabilities, findings } = await auditSkill(folder);
    return { capabilities, findings };
  } catch (error) {
    return { capabilities: { error: errorMessage(error) }, findings: [] };
  }
}

/**
 * The skills of a written index, in its order, with what the page shows of each: `skillPaths`
 * are the SKILL.md files the pack read (`scanSkillFiles`), matched to the index by name.
 */
export async function pageSkills(
  manifest: RemoteSkillManifest,
  skillPaths: readonly string[],
  baseUrl: string | undefined,
  progress?: Progress,
): Promise<PageSkill[]> {
  const loaded = await loadByName(skillPaths);
  const url = indexUrl(baseUrl);
  const out: PageSkill[] = [];
  progress?.total(manifest.skills.length);
  for (const [i, entry] of manifest.skills.entries()) {
    progress?.update(i, { detail: `page: ${printable(entry.name).slice(0, 54)}` });
    const metadata = loaded.get(entry.name);
    if (metadata === undefined) continue;
    const folder = dirname(metadata.location);
    const files = entry.files ?? (await skillFiles(folder)).map((f) => f.path);
    out.push({
      name: entry.name,
      description: entry.description ?? metadata.description,
      files,
      ...(await auditOf(folder)),
      install: installCommands(url, entry.name, entry.url),
      metadata,
    });
  }
  return out;
}
