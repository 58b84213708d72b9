import { stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { isInside, printable, redactUrl, resolveInside, SkillError } from "@skill/core";
import { hashFolder, skillFolderName } from "@skill/lock";
import { type FoundSkill, type FoundSkills, findSkills, realInSource } from "./find.js";
import { inOrder } from "./limit.js";
import { type LockedSkill, ScopeLock } from "./lock-store.js";
import { type PlacementPlan, planPlacement } from "./placement.js";
import { registerPlan } from "./plan-state.js";
import { layoutOf, type ScopeLayout } from "./scope.js";
import { shower } from "./show.js";
import { type OpenedSource, openSource } from "./source.js";
import { type AgentTarget, agentTargets } from "./targets.js";
import type { AddOptions, InstallPlan, PlannedSkill, RefusedSkill } from "./types.js";

/** Skills hashed and checked at once. */
const PARALLEL = 8;
/** Bytes of one skill's files kept from hashing to copying (a larger skill is read again to copy it). */
const KEEP_PER_SKILL = 4 * 1024 * 1024;
/** Bytes kept from hashing to copying, all skills together. */
const KEEP_TOTAL = 64 * 1024 * 1024;

function quoted(name: string): string {
  return JSON.stringify(printable(name));
}

/** A site's skills as found skills: each folder inside the pull. */
function siteSkills(source: OpenedSource): {
  skills: FoundSkill[];
  skipped: { path: string; reason: string }[];
} {
  const site = source.site;
  if (site === undefined) return { skills: [], skipped: [] };
  const skills: FoundSkill[] = [];
  for (const s of site.skills) {
    const dir = resolve(source.root, s.folder);
    if (!isInside(source.root, dir)) continue;
    skills.push({
      name: s.name,
      dir,
      skillPath: "SKILL.md",
      ...(s.digest === undefined ? {} : { digest: s.digest }),
    });
  }
  return { skills, skipped: (site.skipped ?? []).map((s) => ({ path: s.name, reason: s.reason })) };
}

/**
 * Rule 4 of DESIGN §12.3, one name one folder: skills whose names map to one folder (case,
 * sanitising), in this run or against a skill the lock already holds there, are refused,
 * naming both; the others go ahead.
 */
export function refuseCollisions(
  wanted: readonly FoundSkill[],
  lock: ScopeLock,
  canonicalRoot: string,
  show: (path: string) => string,
): { kept: FoundSkill[]; refused: RefusedSkill[] } {
  const byFolder = new Map<string, FoundSkill[]>();
  for (const skill of wanted) {
    const folder = skillFolderName(skill.name);
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), skill]);
  }
  const kept: FoundSkill[] = [];
  const refused: RefusedSkill[] = [];
  for (const [folder, group] of byFolder) {
    const where = show(join(canonicalRoot, folder));
    if (group.length > 1) {
      const names = group.map((s) => `${quoted(s.name)} (${printable(s.skillPath)})`).join(" and ");
      for (const skill of group) {
        refused.push({
          name: skill.name,
          code: "DUPLICATE_NAME",
          reason: `Duplicate skill name: ${names} would both be installed in ${where}; neither is installed`,
        });
      }
      continue;
    }
    const skill = group[0] as FoundSkill;
    const locked = lock.byFolder(folder);
    if (locked !== undefined && locked.name !== skill.name) {
      refused.push({
        name: skill.name,
        code: "DUPLICATE_NAME",
        reason: `Duplicate skill name: ${quoted(skill.name)} would be installed in ${where}, which holds the installed skill ${quoted(locked.name)} (${show(lock.file)})`,
      });
      continue;
    }
    kept.push(skill);
  }
  return { kept, refused };
}

/**
 * The skills of a fetched source, or of its `subpath` (GitHub's `owner/repo/sub/path`: a folder
 * of the repository by core's path rule whose real path stays in it), their paths relative to
 * the source either way, as a lock records them.
 */
async function sourceSkills(
  opened: OpenedSource,
  home: string,
  signal: AbortSignal | undefined,
): Promise<FoundSkills> {
  const options = { home, ...(signal ? { signal } : {}) };
  if (opened.subpath === undefined) return findSkills(opened.root, options);
  const dir = resolveInside(opened.root, opened.subpath);
  const names = { shown: opened.subpath, source: opened.spec, at: dir };
  const real = await realInSource(opened.root, dir, names);
  if (real === undefined || !(await stat(real)).isDirectory()) {
    throw new SkillError("NOT_FOUND", `No folder ${printable(opened.subpath)} in ${printable(opened.spec)}`, {
      path: dir,
    });
  }
  const below = (path: string) => `${opened.subpath}/${path}`;
  const found = await findSkills(real, options);
  return {
    skills: found.skills.map((s) => ({ ...s, skillPath: below(s.skillPath) })),
    skipped: found.skipped.map((s) => ({ ...s, path: below(s.path) })),
  };
}

/**
 * How the global lock names a GitHub or GitLab source: as a git URL. There `skills` keeps a
 * tree SHA under `skillFolderHash` for hosted entries, not a hash of the bytes this lock holds.
 */
function globalLock(lock: OpenedSource["lock"]): OpenedSource["lock"] {
  if (lock.sourceType !== "github" && lock.sourceType !== "gitlab") return lock;
  const url = lock.sourceType === "github" ? `https://github.com/${lock.source}.git` : lock.source;
  return { ...lock, source: url, sourceType: "git", sourceUrl: url };
}

/** The skill entry a lock gets for a skill added from `source`, as `skills` writes it. */
function lockEntry(
  source: OpenedSource,
  skill: FoundSkill,
  hash: string,
  global: boolean,
): LockedSkill & { hash: string } {
  const lock = global ? globalLock(source.lock) : source.lock;
  // A git source always names the skill's file; a local one only when it is not the folder itself.
  const withPath =
    lock.sourceType === "git" ||
    lock.sourceType === "github" ||
    lock.sourceType === "gitlab" ||
    (lock.sourceType === "local" && skill.skillPath !== "SKILL.md");
  return {
    name: skill.name,
    ...lock,
    ...(withPath ? { skillPath: skill.skillPath } : {}),
    hash,
    ...(skill.digest === undefined ? {} : { wellKnownDigest: skill.digest }),
  };
}

/** Hashes each skill (keeping its bytes within a budget) and plans where it goes. */
export async function planPlacements(
  layout: ScopeLayout,
  lock: ScopeLock,
  skills: readonly { readonly name: string; readonly dir: string }[],
  options: {
    agents: readonly AgentTarget[];
    copy: boolean;
    force: boolean;
    progress?: AddOptions["onProgress"];
  },
): Promise<PlacementPlan[]> {
  let kept = 0;
  let done = 0;
  const show = shower(layout);
  return inOrder(skills, PARALLEL, async (skill) => {
    const keepBytes = Math.max(0, Math.min(KEEP_PER_SKILL, KEEP_TOTAL - kept));
    const { hash, files } = await hashFolder(skill.dir, { keepBytes });
    for (const f of files ?? []) kept += f.bytes.length;
    options.progress?.({ step: "hash", name: skill.name, done: ++done, total: skills.length });
    const placement = {
      name: skill.name,
      from: skill.dir,
      hash,
      ...(files === undefined ? {} : { files }),
      agents: options.agents,
      copy: options.copy,
      force: options.force,
    };
    return planPlacement(layout, lock, placement, show);
  });
}

/** A planned skill, as plain data, from its placement plan. */
export function plannedSkill(plan: PlacementPlan, source: string, commit?: string): PlannedSkill {
  return {
    name: plan.placement.name,
    source,
    staged: plan.placement.from,
    folder: plan.canonical,
    computedHash: plan.placement.hash,
    agents: plan.agents,
    ...(plan.replaces === undefined ? {} : { replaces: plan.replaces }),
    ...(plan.blocked.length > 0 ? { blocked: plan.blocked } : {}),
    ...(plan.overrides.length > 0 ? { overrides: plan.overrides } : {}),
    ...(commit === undefined ? {} : { commit }),
  };
}

/** The skills of the source the options ask for; a name the source lacks is an error. */
function chosen(
  found: readonly FoundSkill[],
  names: readonly string[] | undefined,
  spec: string,
): FoundSkill[] {
  if (names === undefined) return [...found];
  const missing = names.filter((n) => !found.some((s) => s.name === n));
  if (missing.length > 0) {
    throw new SkillError(
      "NOT_FOUND",
      `No skill named ${missing.map(quoted).join(", ")} in ${printable(spec)} (found: ${found.map((s) => printable(s.name)).join(", ") || "none"})`,
    );
  }
  return found.filter((s) => names.includes(s.name));
}

/**
 * Plans installing the skills of `source` — a folder, a git repository (`url#ref`, or a local
 * repository's path), or a site (`https://…`, through `options.fetchSite`) — into the scope
 * for `options.agents`: fetched, found, hashed and checked, nothing written. Skills whose
 * folder leaves the source are `skipped` (`outside-source`); names that collide are `refused`
 * (`DUPLICATE_NAME`). Pass the plan to `applyPlan`, or to `discardPlan` to drop it.
 *
 * @throws SkillError `NOT_FOUND` (no such folder, no SKILL.md in it, a name it lacks),
 *   `INVALID_URL` (a URL or ref starting with `-`), `INVALID_FIELD` (an unknown agent),
 *   `UNSAFE_PATH` (an agent's folder or `.agents` that links out of the scope), `REMOTE_ERROR`.
 */
export async function planAdd(source: string, options: AddOptions): Promise<InstallPlan> {
  const layout = layoutOf(options);
  const agents = agentTargets(options.agents);
  const lock = await ScopeLock.load(layout);
  options.onProgress?.({ step: "fetch" });
  const opened = await openSource(source, {
    cwd: resolve(options.cwd),
    lockDir: dirname(layout.lockFile),
    env: layout.env,
    ...(options.git === undefined ? {} : { git: options.git }),
    ...(options.fetchSite === undefined ? {} : { fetchSite: options.fetchSite }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  try {
    options.onProgress?.({ step: "scan" });
    const found = opened.site ? siteSkills(opened) : await sourceSkills(opened, layout.home, options.signal);
    const leftOut = new Map(found.skipped.map((s) => [s.path, s.reason]));
    const asked = options.names?.length ? options.names : opened.skill ? [opened.skill] : [];
    const siteRefused: RefusedSkill[] = asked
      .filter((n) => opened.site !== undefined && leftOut.has(n))
      .map((n) => ({
        name: n,
        code: "REMOTE_ERROR",
        reason: `${printable(source)} lists it, but it was left out: ${printable(leftOut.get(n) ?? "")}`,
      }));
    if (found.skills.length === 0 && siteRefused.length === 0) {
      const why =
        found.skipped.length > 0
          ? ` (passed over: ${found.skipped.map((s) => `${printable(s.path)}: ${s.reason}`).join("; ")})`
          : "";
      throw new SkillError("NOT_FOUND", `No SKILL.md found in ${printable(source)}${why}`);
    }
    const wanted = chosen(
      found.skills,
      asked.length === 0 ? undefined : asked.filter((n) => !siteRefused.some((r) => r.name === n)),
      source,
    );
    const { kept, refused } = refuseCollisions(wanted, lock, layout.canonicalRoot, shower(layout));
    const placements = await planPlacements(layout, lock, kept, {
      agents,
      copy: options.copy === true,
      force: options.force === true,
      ...(options.onProgress === undefined ? {} : { progress: options.onProgress }),
    });
    const plan: InstallPlan = {
      skills: placements.map((p, i) => {
        const { description } = kept[i] as FoundSkill;
        const planned = plannedSkill(p, redactUrl(source), opened.commit);
        return description === undefined ? planned : { ...planned, description };
      }),
      refused: [...siteRefused, ...refused],
      skipped: found.skipped,
    };
    return registerPlan(plan, {
      layout,
      lock,
      placements,
      entries: placements.map((p, i) =>
        lockEntry(opened, kept[i] as FoundSkill, p.placement.hash, layout.global),
      ),
      cleanup: opened.cleanup,
    });
  } catch (error) {
    await opened.cleanup();
    throw error;
  }
}
