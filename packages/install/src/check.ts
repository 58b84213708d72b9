import { join } from "node:path";
import { compareCodeUnits, errorMessage, printable, SkillError } from "@skill/core";
import { computedHash, skillFolderName } from "@skill/lock";
import { type FileChanges, fileChanges } from "./changes.js";
import { type Fetched, type FetchPorts, FetchSession, fetchLocked, portsOf } from "./fetch-locked.js";
import { type LockedSkill, ScopeLock } from "./lock-store.js";
import { layoutOf, type ScopeLayout } from "./scope.js";
import type { GitPort, InstallScope, SitePort } from "./types.js";

/** The installed copy against the lock. */
export type InstalledState =
  | { readonly status: "ok" }
  | { readonly status: "missing" }
  /** The lock holds no hash of the bytes (a github entry of the global lock). */
  | { readonly status: "unknown" }
  | {
      readonly status: "edited";
      readonly hash: string;
      /** Which files differ from the locked version, when that version could be had to compare. */
      readonly files?: FileChanges;
    };

/** The source now against the lock. */
export type UpstreamState =
  | { readonly status: "current"; readonly commit?: string }
  | { readonly status: "outdated"; readonly hash: string; readonly commit?: string; readonly digest?: string }
  | { readonly status: "error"; readonly message: string };

/** One locked skill: where it is, how the installed copy and the source compare with the lock. */
export interface SkillCheck {
  readonly name: string;
  readonly skill: LockedSkill;
  /** The canonical copy, `<scope>/.agents/skills/<folder>`. */
  readonly path: string;
  readonly installed: InstalledState;
  readonly upstream: UpstreamState;
  /** The source's skill folder now (while the plan or check is open), with its hash. */
  readonly fetched?: Fetched & { readonly hash: string };
}

/** What {@link checkInstalled} found. */
export interface CheckReport {
  /** The lock file read. */
  readonly lock: string;
  /** Every locked skill, sorted by name. */
  readonly skills: readonly SkillCheck[];
}

/** Options of {@link checkInstalled}. */
export interface CheckOptions extends InstallScope {
  readonly git?: GitPort;
  readonly fetchSite?: SitePort;
}

async function installedHash(path: string): Promise<string | undefined> {
  try {
    return await computedHash(path);
  } catch (error) {
    if (SkillError.isInstance(error) && error.code === "NOT_FOUND") return undefined;
    throw error;
  }
}

async function upstreamOf(
  lockFile: string,
  skill: LockedSkill,
  ports: FetchPorts,
  session: FetchSession,
): Promise<{ upstream: UpstreamState; fetched?: Fetched & { hash: string } }> {
  try {
    const got = await fetchLocked(lockFile, skill, ports, session);
    const fetched = { ...got, hash: await computedHash(got.dir) };
    const commit = got.commit === undefined ? {} : { commit: got.commit };
    const sameDigest =
      skill.wellKnownDigest === undefined || got.digest === undefined || got.digest === skill.wellKnownDigest;
    const upstream: UpstreamState =
      fetched.hash === skill.hash && sameDigest
        ? { status: "current", ...commit }
        : {
            status: "outdated",
            hash: fetched.hash,
            ...commit,
            ...(got.digest === undefined ? {} : { digest: got.digest }),
          };
    return { upstream, fetched };
  } catch (error) {
    if (SkillError.isInstance(error) && error.code === "ABORTED") throw error;
    return { upstream: { status: "error", message: printable(errorMessage(error)) } };
  }
}

/** Compares one locked skill with what is installed and with its source now; writes nothing but `session`'s fetches. */
export async function checkSkill(
  layout: ScopeLayout,
  lockFile: string,
  skill: LockedSkill,
  ports: FetchPorts,
  session: FetchSession,
): Promise<SkillCheck> {
  const path = join(layout.canonicalRoot, skillFolderName(skill.name));
  const now = await installedHash(path);
  const { upstream, fetched } = await upstreamOf(lockFile, skill, ports, session);
  let installed: InstalledState;
  if (now === undefined) installed = { status: "missing" };
  else if (skill.hash === undefined) installed = { status: "unknown" };
  else if (now === skill.hash) installed = { status: "ok" };
  else {
    // Which files differ can be said when the source still holds the locked version.
    const base = fetched !== undefined && fetched.hash === skill.hash ? fetched.dir : undefined;
    installed = {
      status: "edited",
      hash: now,
      ...(base === undefined ? {} : { files: await fileChanges(base, path) }),
    };
  }
  return {
    name: skill.name,
    skill,
    path,
    installed,
    upstream,
    ...(fetched === undefined ? {} : { fetched }),
  };
}

/**
 * For every skill of the scope's lock: whether the installed copy still hashes to the lock
 * (edited locally: which files), and whether its source holds something newer. Read-only:
 * sources are fetched into temporary folders, removed before it returns.
 *
 * @throws SkillError `NOT_FOUND` when there is no lock; a broken lock's `PARSE_ERROR`/`INVALID_FIELD`.
 */
export async function checkInstalled(options: CheckOptions): Promise<CheckReport> {
  const layout = layoutOf(options);
  const lock = await ScopeLock.existing(layout, "check");
  const session = new FetchSession();
  const ports = portsOf(layout, options);
  try {
    const skills: SkillCheck[] = [];
    for (const name of lock.names().sort(compareCodeUnits)) {
      const { fetched: _gone, ...check } = await checkSkill(
        layout,
        lock.file,
        lock.get(name) as LockedSkill,
        ports,
        session,
      );
      skills.push(check);
    }
    return { lock: lock.file, skills };
  } finally {
    await session.close();
  }
}
