import { execFile } from "node:child_process";
import { lstat, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { loadSkillFile, printable, readInside } from "@skill/core";
import { hashedFiles } from "@skill/lock";
import type { PullLimits } from "./context.js";
import { UserError } from "./errors.js";
import { checkout, type FoundSkill, gitCommit, type LockedSkill } from "./install.js";

type Env = Readonly<Record<string, string | undefined>>;

/** How remote packs are fetched: the CLI's `--timeout`, `--offline` and pull limits. */
export interface RemoteUse {
  readonly timeoutMs?: number;
  readonly offline?: boolean;
  readonly limits?: PullLimits;
}

// Hosts whose URLs name git repositories, not skill sites.
const GIT_HOSTS = new Set(["github.com", "gitlab.com", "bitbucket.org", "codeberg.org"]);

/**
 * Whether `spec` names a skill site or pack (`@skill/remote`): an http(s) URL that is not a
 * git repository (no `.git` ending, no `#ref`, not on a git host).
 */
export function isSiteSpec(spec: string): boolean {
  if (!/^https?:\/\//i.test(spec) || spec.includes("#") || /\.git\/?$/i.test(spec)) return false;
  try {
    return !GIT_HOSTS.has(new URL(spec).hostname.toLowerCase());
  } catch {
    return false;
  }
}

/** A site or pack pulled into a temporary cache: its skills, each with its index digest. */
export interface PulledSite {
  /** The index the pull read (after well-known resolution). */
  readonly indexUrl: string;
  readonly skills: readonly (FoundSkill & { readonly digest?: string })[];
  /** Entries the pull left out, with why (a wrong digest, an unsafe archive path…). */
  readonly skipped: readonly { readonly name: string; readonly reason: string }[];
  readonly cleanup: () => Promise<void>;
}

/**
 * Pulls `url` with `@skill/remote` into a fresh temporary cache (digests and archives are
 * checked there, as `skill pull` checks them) and lists the skills it holds. The digest of
 * each v0.2 entry is the one the pull verified, read from the pack's state file.
 */
export async function pullSite(url: string, remote: RemoteUse): Promise<PulledSite> {
  const cacheDir = await mkdtemp(join(tmpdir(), "skill-site-"));
  const cleanup = () => rm(cacheDir, { recursive: true, force: true });
  try {
    // Loaded here, not at start: a local or git source never needs the remote client.
    const { pull } = await import("@skill/remote");
    const result = await pull(url, {
      cacheDir,
      ...(remote.timeoutMs === undefined ? {} : { timeoutMs: remote.timeoutMs }),
      ...(remote.offline ? { offline: true } : {}),
      ...remote.limits,
    });
    const digests = await stateDigests(result.dir);
    const skills: (FoundSkill & { digest?: string })[] = [];
    for (const file of result.files) {
      const dir = dirname(file);
      const entry = dir.slice(result.dir.length + 1);
      const { skill } = await loadSkillFile(file);
      const digest = digests.get(entry);
      skills.push({ name: skill.name, dir, skillPath: "SKILL.md", ...(digest ? { digest } : {}) });
    }
    return {
      indexUrl: result.indexUrl,
      skills,
      skipped: result.skipped.map((s) => ({ name: s.name, reason: s.reason })),
      cleanup,
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/** The digests a pull verified, by entry name, from `<pack>/.state.json` (`@skill/remote`'s cache state). */
async function stateDigests(packDir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  try {
    const state = JSON.parse(await readFile(join(packDir, ".state.json"), "utf8")) as {
      skills?: Record<string, { digest?: unknown }>;
    };
    for (const [name, s] of Object.entries(state.skills ?? {})) {
      if (typeof s?.digest === "string") out.set(name, s.digest);
    }
  } catch {
    // No state (a pull that served nothing): no digests.
  }
  return out;
}

/** A locked skill's source as it is now (or, for `install`, at the lock's pin). */
export interface Fetched {
  /** The skill folder, ready to hash and copy. */
  readonly dir: string;
  /** git: the commit the lock's ref (or HEAD) resolves to. */
  readonly commit?: string;
  /** well-known: the digest the site's index gives the skill now. */
  readonly digest?: string;
}

/**
 * The checkouts and pulls of one command: a repository at one ref, or a site, is fetched
 * once however many of its skills are locked; `close` removes them all.
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
 * Fetches the source a lock entry names: a local folder (relative to the lock), a git
 * repository cloned at the entry's `ref` (HEAD without one), or a site pulled into a
 * temporary cache, each once per `session`.
 */
export async function fetchLocked(
  lockFile: string,
  global: boolean,
  skill: LockedSkill,
  env: Env,
  remote: RemoteUse,
  session: FetchSession,
): Promise<Fetched> {
  const inSource = dirname(skill.skillPath ?? "SKILL.md");
  if (skill.sourceType === "local") {
    const base = global ? resolve(skill.source) : resolve(dirname(lockFile), skill.source);
    return { dir: join(base, inSource) };
  }
  if (skill.sourceType === "git") {
    const repo = skill.sourceUrl ?? skill.source;
    const { dir, commit } = await session.once(`git\0${repo}\0${skill.ref ?? ""}`, async () => {
      const dir = await checkout(repo, skill.ref, env);
      const cleanup = () => rm(dir, { recursive: true, force: true });
      try {
        return { value: { dir, commit: await gitCommit(dir, env) }, cleanup };
      } catch (error) {
        await cleanup();
        throw error;
      }
    });
    return { dir: join(dir, inSource), commit };
  }
  if (skill.sourceType === "well-known") {
    const url = skill.sourceUrl ?? skill.source;
    const site = await session.once(`site\0${url}`, async () => {
      const pulled = await pullSite(url, remote);
      return { value: pulled, cleanup: pulled.cleanup };
    });
    const found = site.skills.find((s) => s.name === skill.name);
    if (found === undefined) {
      const skipped = site.skipped.find((s) => s.name === skill.name);
      throw new UserError(
        `${printable(skill.sourceUrl ?? skill.source)} ${skipped ? `lists ${JSON.stringify(printable(skill.name))}, but it was left out: ${printable(skipped.reason)}` : `no longer lists ${JSON.stringify(printable(skill.name))}`}`,
      );
    }
    return { dir: found.dir, ...(found.digest === undefined ? {} : { digest: found.digest }) };
  }
  throw new UserError(
    `Cannot fetch ${JSON.stringify(printable(skill.name))}: source type ${JSON.stringify(printable(skill.sourceType))} is not one skill reads (local, git, well-known)`,
  );
}

/** The files of two skill folders (those `computedHash` covers) that were added, removed or changed. */
export interface FileChanges {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** Different bytes, or an exec bit gained or lost. */
  readonly changed: readonly string[];
}

export async function fileChanges(before: string, after: string): Promise<FileChanges> {
  const [a, b] = await Promise.all([hashedFiles(before), hashedFiles(after)]);
  const inA = new Set(a);
  const inB = new Set(b);
  const changed: string[] = [];
  for (const path of a) {
    if (!inB.has(path)) continue;
    const [x, y] = await Promise.all([read(before, path), read(after, path)]);
    if (!x.bytes.equals(y.bytes) || x.exec !== y.exec) changed.push(path);
  }
  return {
    added: b.filter((p) => !inA.has(p)),
    removed: a.filter((p) => !inB.has(p)),
    changed,
  };
}

async function read(dir: string, path: string): Promise<{ bytes: Buffer; exec: boolean }> {
  const bytes = Buffer.from(await readInside(dir, path, { maxBytes: Number.POSITIVE_INFINITY }));
  const mode = (await lstat(join(dir, ...path.split("/")))).mode;
  return { bytes, exec: (mode & 0o111) !== 0 };
}

const run = promisify(execFile);

/**
 * A unified diff of two files (`git diff --no-index`, 3 lines of context), headers naming
 * `a/<label>` and `b/<label>`, cut to `max` lines; empty when they are equal or git is missing.
 */
export async function unifiedDiff(
  before: string,
  after: string,
  label: string,
  env: Env,
  max = 40,
): Promise<string[]> {
  let text: string;
  try {
    await run("git", ["diff", "--no-index", "--no-color", "--unified=3", "--", before, after], {
      env: { PATH: env.PATH, HOME: env.HOME, LC_ALL: "C", GIT_CONFIG_NOSYSTEM: "1" },
      maxBuffer: 16 * 1024 * 1024,
    });
    return []; // exit 0: no difference
  } catch (error) {
    const e = error as { code?: unknown; stdout?: string };
    if (e.code !== 1 || typeof e.stdout !== "string") return [];
    text = e.stdout;
  }
  const lines = text.split("\n");
  const start = lines.findIndex((l) => l.startsWith("@@"));
  if (start < 0) return [];
  const body = lines.slice(start).filter((l, i, all) => !(i === all.length - 1 && l === ""));
  const out = [`--- a/${label}`, `+++ b/${label}`, ...body.slice(0, max)];
  if (body.length > max) out.push(`… ${body.length - max} more lines`);
  return out;
}
