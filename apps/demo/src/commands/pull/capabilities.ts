// What each skill of a pack could do before a pull, and what the pull changed: remembered in a
// snapshot beside the cache, so that a warm pull audits only the skills it changed.
import { readFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { auditSkill, type Capabilities, type CapabilityDiff, diffCapabilities } from "@skill/audit";
import { compareCodeUnits, writeInside } from "@skill/core";
import { scanSkillFiles } from "@skill/discovery";
import { type PullResult, urlToDirName } from "@skill/remote";
import type { Context } from "../../context.js";

/** What a skill the pull added or changed gained and lost. */
export interface CapabilityChange {
  readonly name: string;
  readonly added: boolean;
  readonly diff: CapabilityDiff;
}

const NO_CAPABILITIES: Capabilities = {
  tools: [],
  executables: [],
  commands: [],
  hosts: [],
  env: [],
  hooks: false,
};

/**
 * Where the CLI keeps what each cached skill of a pack could do at its last pull: a dot-file
 * of the cache's own (remote leaves dot-entries of the cache folder alone), so a warm pull
 * audits only the skills it changed instead of every cached one.
 */
export function snapshotFile(ctx: Context, url: string): string | undefined {
  try {
    return join(ctx.cacheDir, ".capabilities", `${urlToDirName(url)}.json`);
  } catch {
    return undefined; // an invalid URL has no cache; the pull says why
  }
}

export async function readSnapshot(file: string | undefined): Promise<Map<string, Capabilities> | undefined> {
  if (!file) return undefined;
  try {
    const value = JSON.parse(await readFile(file, "utf8")) as { version?: unknown; skills?: unknown };
    if (value.version !== 1 || typeof value.skills !== "object" || value.skills === null) return undefined;
    return new Map(Object.entries(value.skills as Record<string, Capabilities>));
  } catch {
    return undefined; // none yet, or unreadable: audit the cache once instead
  }
}

export async function writeSnapshot(
  file: string | undefined,
  skills: ReadonlyMap<string, Capabilities>,
): Promise<void> {
  if (!file) return;
  const sorted = Object.fromEntries([...skills].sort(([a], [b]) => compareCodeUnits(a, b)));
  const text = `${JSON.stringify({ version: 1, skills: sorted })}\n`;
  try {
    await writeInside(dirname(file), basename(file), Buffer.from(text, "utf8"));
  } catch {
    // A missing snapshot costs one full audit next time.
  }
}

/** What each skill cached for `url` can do now, by skill name: the "before" of a pull. */
export async function cachedCapabilities(ctx: Context, url: string): Promise<Map<string, Capabilities>> {
  const before = new Map<string, Capabilities>();
  let packDir: string;
  try {
    packDir = join(ctx.cacheDir, urlToDirName(url));
  } catch {
    return before; // an invalid URL has no cache; the pull says why
  }
  // The cache holds one folder per skill (`<pack>/<name>/SKILL.md`), beside dot-folders of its own.
  const files = await scanSkillFiles(packDir, {
    maxDepth: 1,
    skipDotDirs: true,
    followSymlinks: false,
  }).catch(() => []);
  for (const file of files) {
    const dir = dirname(file);
    if (resolve(dir) === resolve(packDir)) continue; // a SKILL.md at the top is no cached skill
    const audit = await auditSkill(dir).catch(() => undefined);
    if (audit) before.set(basename(dir), audit.capabilities);
  }
  return before;
}

/** The capability diff of every skill a pull added or changed, by name (sorted, unchanged ones left out). */
export async function capabilityChanges(
  result: PullResult,
  before: ReadonlyMap<string, Capabilities>,
  now: Map<string, Capabilities>,
): Promise<CapabilityChange[]> {
  const out: CapabilityChange[] = [];
  for (const change of result.changed) {
    if (change.after === undefined) {
      now.delete(change.name);
      continue;
    }
    const audit = await auditSkill(dirname(change.after)).catch(() => undefined);
    if (!audit) {
      now.delete(change.name);
      continue;
    }
    now.set(change.name, audit.capabilities);
    const cachedName = change.before === undefined ? undefined : dirname(change.before).split(/[\\/]/).pop();
    const previous = before.get(change.name) ?? (cachedName ? before.get(cachedName) : undefined);
    const diff = diffCapabilities(previous ?? NO_CAPABILITIES, audit.capabilities);
    if (diff.changed) out.push({ name: change.name, added: previous === undefined, diff });
  }
  return out.sort((a, b) => compareCodeUnits(a.name, b.name));
}
