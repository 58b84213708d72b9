import { mkdtemp, realpath, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { printable, SkillError, withoutCredentials } from "@skill/core";
import { portableSource } from "@skill/lock";
import { checkGitArgument, gitBinary } from "./git.js";
import { githubShorthand, type HostedSpec, hostedSource } from "./hosted.js";
import type { GitPort, SitePort } from "./types.js";

type Env = Readonly<Record<string, string | undefined>>;

/** How a lock names a source (DESIGN §12.3 rule 6: a local path relative to the lock's folder). */
export interface LockedSource {
  readonly source: string;
  readonly sourceType: "local" | "git" | "github" | "gitlab" | "well-known";
  readonly sourceUrl?: string;
  readonly ref?: string;
}

/** A source made ready to read skills from. */
export interface OpenedSource {
  /** As the user named it. */
  readonly spec: string;
  /** The folder skills are found in: the folder itself, a clone, or a pull. */
  readonly root: string;
  readonly lock: LockedSource;
  readonly commit?: string;
  /** A site's skills, as the pull gave them (folders below `root`). */
  readonly site?: Awaited<ReturnType<SitePort["pull"]>>;
  /** GitHub's `owner/repo/sub/path`: the folder of `root` its skills are taken from, `/`-separated. */
  readonly subpath?: string;
  /** GitHub's `owner/repo@skill`: the one skill asked for. */
  readonly skill?: string;
  cleanup(): Promise<void>;
}

const GIT_URL = /^(?:[a-z][a-z0-9+.-]*:\/\/|git@)/i;
// Hosts whose URLs name git repositories, not skill sites.
const GIT_HOSTS = new Set(["github.com", "gitlab.com", "bitbucket.org", "codeberg.org"]);

/** Whether `spec` is a URL (`https://…`, `ssh://…`, `git@host:…`), not a local path. */
export function isUrl(spec: string): boolean {
  return GIT_URL.test(spec);
}

/** Whether `spec` names a git repository: a URL, a `.git` path, or anything with `#ref`. */
export function isGitSpec(spec: string): boolean {
  return GIT_URL.test(spec) || spec.includes("#") || /\.git\/?$/.test(spec);
}

/** Whether `spec` names a skill site or pack: an http(s) URL that is not a git repository. */
export function isSiteSpec(spec: string): boolean {
  if (!/^https?:\/\//i.test(spec) || spec.includes("#") || /\.git\/?$/i.test(spec)) return false;
  try {
    return !GIT_HOSTS.has(new URL(spec).hostname.toLowerCase());
  } catch {
    return false;
  }
}

/** `repo#ref` split; a ref must be a branch, tag or commit that cannot be read as an option. */
export function splitRef(spec: string): { repo: string; ref?: string } {
  const at = spec.lastIndexOf("#");
  if (at < 0) return { repo: spec };
  const ref = spec.slice(at + 1);
  checkGitArgument(ref, "ref");
  return { repo: spec.slice(0, at), ref };
}

/** A fresh temporary folder; removed by the returned cleanup. */
export async function tempFolder(prefix: string): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Clones `url` at `ref` into a temporary folder with `git`; the folder is removed on failure. */
export async function cloneTemp(
  git: GitPort,
  url: string,
  ref: string | undefined,
  signal: AbortSignal | undefined,
): Promise<{ dir: string; commit: string; cleanup: () => Promise<void> }> {
  checkGitArgument(url, "repository");
  if (ref !== undefined) checkGitArgument(ref, "ref");
  const { dir, cleanup } = await tempFolder("skill-git-");
  try {
    const { commit } = await git.clone(url, ref, dir, signal);
    return { dir, commit, cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/** Options of {@link openSource}. */
export interface OpenOptions {
  /** Relative paths are resolved against it. */
  readonly cwd: string;
  /** The folder of the lock the source will be written to (local paths are locked relative to it). */
  readonly lockDir: string;
  readonly env: Env;
  readonly git?: GitPort;
  readonly fetchSite?: SitePort;
  readonly signal?: AbortSignal;
}

async function openSite(spec: string, options: OpenOptions): Promise<OpenedSource> {
  if (options.fetchSite === undefined) {
    throw new SkillError(
      "INVALID_URL",
      `Cannot add from ${printable(spec)}: a site needs a fetchSite port (the skill CLI gives @skill/remote's pull)`,
      { url: spec },
    );
  }
  const { dir, cleanup } = await tempFolder("skill-site-");
  try {
    const site = await options.fetchSite.pull(spec, dir, options.signal);
    return {
      spec,
      root: dir,
      lock: { source: spec, sourceType: "well-known", sourceUrl: site.indexUrl ?? spec },
      site,
      cleanup,
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/**
 * A GitHub or GitLab repository cloned at its ref, locked as Vercel's `skills` locks it
 * (GitHub: `owner/repo`; GitLab: its URL, as `source` and `sourceUrl`).
 */
async function openHosted(spec: string, hosted: HostedSpec, options: OpenOptions): Promise<OpenedSource> {
  const git = options.git ?? gitBinary(options.env);
  const cloned = await cloneTemp(git, hosted.url, hosted.ref, options.signal);
  return {
    spec,
    root: cloned.dir,
    lock: {
      source: withoutCredentials(hosted.source),
      ...(hosted.host === "gitlab" ? { sourceUrl: withoutCredentials(hosted.url) } : {}),
      sourceType: hosted.host,
      ...(hosted.ref === undefined ? {} : { ref: hosted.ref }),
    },
    commit: cloned.commit,
    cleanup: cloned.cleanup,
    ...(hosted.subpath === undefined ? {} : { subpath: hosted.subpath }),
    ...(hosted.skill === undefined ? {} : { skill: hosted.skill }),
  };
}

/**
 * Makes `spec` ready: a GitHub repository (`github:owner/repo`, a github.com URL, or
 * `owner/repo[/path|@skill][#ref]` when no local folder has that name; locked as `owner/repo`)
 * or a GitLab one (`gitlab:…`, a gitlab.com URL, a `…/-/tree/<ref>/<path>`), a site (through
 * `fetchSite`), a git repository cloned at its `#ref` (a URL locked as given; a
 * local repository by a path relative to the lock's folder), or a local folder (locked relative
 * to the lock's folder).
 *
 * @throws SkillError `INVALID_URL` (a URL or ref starting with `-`, a site without a port),
 *   `NOT_FOUND` (no such folder), `REMOTE_ERROR` (git failed).
 */
export async function openSource(spec: string, options: OpenOptions): Promise<OpenedSource> {
  const hosted = hostedSource(spec);
  if (hosted) return openHosted(spec, hosted, options);
  if (isSiteSpec(spec)) return openSite(spec, options);
  if (!isUrl(spec)) {
    const path = resolve(options.cwd, splitRef(spec).repo);
    const shorthand = (await stat(path).catch(() => undefined)) ? undefined : githubShorthand(spec);
    if (shorthand) {
      return openHosted(spec, shorthand, options).catch((error: unknown) => {
        // A mistyped folder reads as owner/repo too: say both readings.
        if (!SkillError.isInstance(error) || error.code !== "REMOTE_ERROR") throw error;
        throw new SkillError(
          "REMOTE_ERROR",
          `Cannot add ${printable(spec)}: no folder ${path} here, and as GitHub's ${shorthand.source}: ${error.message}`,
          { cause: error },
        );
      });
    }
  }
  if (!isGitSpec(spec)) {
    const dir = resolve(options.cwd, spec);
    const info = await stat(dir).catch(() => undefined);
    if (!info?.isDirectory()) {
      throw new SkillError(
        "NOT_FOUND",
        `Cannot add ${printable(spec)}: ${info ? "not a folder" : `no such folder (${dir})`}`,
        { path: dir },
      );
    }
    return {
      spec,
      root: await realpath(dir),
      lock: { source: portableSource(dir, options.lockDir), sourceType: "local" },
      cleanup: async () => {},
    };
  }
  const { repo, ref } = splitRef(spec);
  const remote = isUrl(repo);
  const url = remote ? repo : resolve(options.cwd, repo);
  const cloned = await cloneTemp(options.git ?? gitBinary(options.env), url, ref, options.signal);
  // The lock is committed: a credential in the URL is left to git's credential helper.
  const locked = remote ? withoutCredentials(repo) : portableSource(url, options.lockDir);
  return {
    spec,
    root: cloned.dir,
    lock: { source: locked, sourceType: "git", sourceUrl: locked, ...(ref === undefined ? {} : { ref }) },
    commit: cloned.commit,
    cleanup: cloned.cleanup,
  };
}

/** The folder of a lock file, which local sources are relative to. */
export function lockDirOf(lockFile: string): string {
  return dirname(lockFile);
}
