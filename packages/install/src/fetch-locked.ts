import { realpath, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { isInside, printable, resolveInside, SkillError } from "@skill/core";
import { findSkills, realInSource } from "./find.js";
import { gitBinary } from "./git.js";
import { hostedRepoUrl } from "./hosted.js";
import type { LockedSkill } from "./lock-store.js";
import type { ScopeLayout } from "./scope.js";
import { cloneTemp, isUrl, tempFolder } from "./source.js";
import type { GitPort, SitePort } from "./types.js";

type Env = Readonly<Record<string, string | undefined>>;

/** A locked skill's source as it is now (or, for a restore, at the lock's pin). */
export interface Fetched {
  /** The skill folder, ready to hash and copy (inside the fetched source by real path). */
  readonly dir: string;
  /** git: the commit the lock's ref (or the default branch) resolves to. */
  readonly commit?: string;
  /** well-known: the digest the site's index gives the skill now. */
  readonly digest?: string;
}

/** What fetching locked skills may use. */
export interface FetchPorts {
  readonly env: Env;
  readonly home: string;
  readonly git?: GitPort;
  readonly fetchSite?: SitePort;
  readonly signal?: AbortSignal;
}

/** The ports a restore, check or update fetches with: the scope's, and the options'. */
export function portsOf(
  layout: ScopeLayout,
  options: { readonly git?: GitPort; readonly fetchSite?: SitePort; readonly signal?: AbortSignal },
): FetchPorts {
  return {
    env: layout.env,
    home: layout.home,
    ...(options.git ? { git: options.git } : {}),
    ...(options.fetchSite ? { fetchSite: options.fetchSite } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
}

/**
 * The checkouts and pulls of one command: a repository at one ref, or a site, is fetched once
 * however many of its skills are locked; `close` removes them all.
 */
export class FetchSession {
  readonly #cleanups: (() => Promise<void>)[] = [];
  readonly #fetched = new Map<string, Promise<unknown>>();

  /** `make` once per `key`; its cleanup runs at `close`. */
  once<T>(key: string, make: () => Promise<{ value: T; cleanup: () => Promise<void> }>): Promise<T> {
    let found = this.#fetched.get(key) as Promise<T> | undefined;
    if (found === undefined) {
      found = make().then(({ value, cleanup }) => {
        this.#cleanups.push(cleanup);
        return value;
      });
      this.#fetched.set(key, found);
    }
    return found;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.#fetched.values()]);
    for (const end of this.#cleanups.splice(0)) await end();
  }
}

/**
 * The skill folder of `skill` inside the fetched source `root`: where its `skillPath` says
 * (core's path rule, then its real path must stay in the source: a lock cannot climb out of
 * the clone), or, without one (a lock Vercel's `skills` wrote for a local folder), the skill of
 * that name found in the source.
 */
async function skillFolderIn(
  root: string,
  skill: LockedSkill,
  home: string,
  signal?: AbortSignal,
): Promise<string> {
  const realRoot = await realpath(root).catch((error: unknown) => {
    throw new SkillError("NOT_FOUND", `Source folder not found: ${root}`, { path: root, cause: error });
  });
  if (skill.skillPath !== undefined) {
    const file = resolveInside(realRoot, skill.skillPath);
    const names = { shown: skill.skillPath, source: skill.source, at: file };
    const dir = await realInSource(realRoot, dirname(file), names);
    if (dir === undefined) {
      throw new SkillError(
        "NOT_FOUND",
        `${printable(skill.skillPath)} is not in ${printable(skill.source)}`,
        { path: file },
      );
    }
    return dir;
  }
  const { skills } = await findSkills(realRoot, { home, ...(signal ? { signal } : {}) });
  const found = skills.find((s) => s.name === skill.name);
  if (found === undefined) {
    throw new SkillError(
      "NOT_FOUND",
      `No skill named ${JSON.stringify(printable(skill.name))} in ${printable(skill.source)}`,
    );
  }
  return found.dir;
}

/** Where a lock's local path (a folder, or a local repository) is: relative to the lock's folder. */
function localPath(lockFile: string, path: string): string {
  return isAbsolute(path) ? path : resolve(dirname(lockFile), path);
}

/** An npm package name (`name`, `@scope/name`): no path of its own. */
const PACKAGE_NAME = /^(?:@[a-z0-9~-][a-z0-9._~-]*\/)?[a-z0-9~-][a-z0-9._~-]*$/i;

/**
 * The installed package a `node_modules` entry (Vercel's `skills experimental_sync`: a skill a
 * dependency ships) names: `node_modules/<source>` in the lock's folder or the nearest folder
 * above it that has one, as Node resolves a package.
 */
async function installedPackage(lockFile: string, skill: LockedSkill): Promise<string> {
  if (!PACKAGE_NAME.test(skill.source)) {
    throw new SkillError(
      "INVALID_URL",
      `Cannot fetch ${JSON.stringify(printable(skill.name))}: ${JSON.stringify(printable(skill.source))} is not an npm package name`,
    );
  }
  for (let dir = dirname(lockFile); ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", skill.source);
    if ((await stat(join(candidate, "package.json")).catch(() => undefined))?.isFile()) return candidate;
    if (dirname(dir) === dir) break;
  }
  throw new SkillError(
    "NOT_FOUND",
    `Cannot fetch ${JSON.stringify(printable(skill.name))}: the package ${printable(skill.source)} is not installed (run your package manager's install first)`,
  );
}

/**
 * A git source's clone, once per URL and ref in a session: the entry's URL; else, for a `git`
 * entry, its local path (relative to the lock), for a hosted one (`github`, `gitlab`),
 * `owner/repo` on its host.
 */
async function fetchGit(
  lockFile: string,
  skill: LockedSkill,
  ports: FetchPorts,
  session: FetchSession,
): Promise<Fetched> {
  const given = skill.sourceUrl ?? skill.source;
  const url = isUrl(given)
    ? given
    : skill.sourceType === "git"
      ? localPath(lockFile, given)
      : hostedRepoUrl(skill);
  const { dir, commit } = await session.once(`git\0${url}\0${skill.ref ?? ""}`, async () => {
    const cloned = await cloneTemp(ports.git ?? gitBinary(ports.env), url, skill.ref, ports.signal);
    return { value: cloned, cleanup: cloned.cleanup };
  });
  return { dir: await skillFolderIn(dir, skill, ports.home, ports.signal), commit };
}

async function fetchSite(skill: LockedSkill, ports: FetchPorts, session: FetchSession): Promise<Fetched> {
  const url = skill.sourceUrl ?? skill.source;
  const port = ports.fetchSite;
  if (port === undefined) {
    throw new SkillError("INVALID_URL", `Cannot fetch ${printable(url)}: a site needs a fetchSite port`, {
      url,
    });
  }
  const site = await session.once(`site\0${url}`, async () => {
    const { dir, cleanup } = await tempFolder("skill-site-");
    try {
      return { value: { dir, pulled: await port.pull(url, dir, ports.signal) }, cleanup };
    } catch (error) {
      await cleanup();
      throw error;
    }
  });
  const found = site.pulled.skills.find((s) => s.name === skill.name);
  if (found === undefined) {
    const left = site.pulled.skipped?.find((s) => s.name === skill.name);
    throw new SkillError(
      "NOT_FOUND",
      `${printable(url)} ${left ? `lists ${JSON.stringify(printable(skill.name))}, but it was left out: ${printable(left.reason)}` : `no longer lists ${JSON.stringify(printable(skill.name))}`}`,
      { url },
    );
  }
  const dir = resolve(site.dir, found.folder);
  if (!isInside(site.dir, dir))
    throw new SkillError("UNSAFE_PATH", `Unsafe path: ${printable(found.folder)}`, { url });
  return { dir, ...(found.digest === undefined ? {} : { digest: found.digest }) };
}

/**
 * Fetches the source a lock entry names: a local folder (relative to the lock), a git
 * repository cloned at the entry's `ref` (a local one relative to the lock; `github` and
 * `gitlab` entries, as Vercel's `skills` writes them, from `owner/repo` on that host), a
 * package a `node_modules` entry names (installed by the package manager), or a site pulled
 * through `fetchSite`, each once per `session`.
 *
 * @throws SkillError `NOT_FOUND`, `UNSAFE_PATH` (a `skillPath` out of the source), `INVALID_URL`
 *   (a URL or ref starting with `-`, an unknown source type), `REMOTE_ERROR`.
 */
export async function fetchLocked(
  lockFile: string,
  skill: LockedSkill,
  ports: FetchPorts,
  session: FetchSession,
): Promise<Fetched> {
  if (skill.sourceType === "local") {
    return { dir: await skillFolderIn(localPath(lockFile, skill.source), skill, ports.home, ports.signal) };
  }
  if (skill.sourceType === "node_modules") {
    return {
      dir: await skillFolderIn(await installedPackage(lockFile, skill), skill, ports.home, ports.signal),
    };
  }
  if (skill.sourceType === "git" || skill.sourceType === "github" || skill.sourceType === "gitlab")
    return fetchGit(lockFile, skill, ports, session);
  if (skill.sourceType === "well-known") return fetchSite(skill, ports, session);
  throw new SkillError(
    "INVALID_URL",
    `Cannot fetch ${JSON.stringify(printable(skill.name))}: source type ${JSON.stringify(printable(skill.sourceType))} is not one skill reads (local, git, github, gitlab, node_modules, well-known)`,
  );
}
