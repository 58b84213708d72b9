import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { Stats } from "node:fs";
import {
  lstat,
  mkdir,
  mkdtemp,
  readlink,
  realpath,
  rename,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { promisify } from "node:util";
import { isInside, loadSkillFile, printable, readInside, SKILL_FILE } from "@skill/core";
import { scanSkillFiles } from "@skill/discovery";
import {
  computedHash,
  type GlobalLock,
  type GlobalLockEntry,
  globalLockPath,
  type HashedFile,
  hashedFiles,
  PROJECT_LOCK_FILE,
  type ProjectLock,
  type ProjectLockEntry,
  readGlobalLock,
  readProjectLock,
  skillFolderName,
  writeGlobalLock,
  writeProjectLock,
} from "@skill/lock";
import { AGENT_TARGETS, type AgentTarget } from "./agent-targets.js";
import { UserError } from "./errors.js";
import { inOrder } from "./in-order.js";

type Env = Readonly<Record<string, string | undefined>>;

/** Where skills are installed: a project, or the home (`-g`). */
export interface Scope {
  readonly global: boolean;
  /** The project folder, or the home folder. */
  readonly root: string;
  readonly home: string;
  readonly env: Env;
}

/** The canonical copies: `<scope>/.agents/skills`. */
export function canonicalRoot(scope: Scope): string {
  return join(scope.root, ".agents", "skills");
}

/** The folder an agent reads skills from in this scope. */
export function agentDir(agent: AgentTarget, scope: Scope): string {
  return scope.global ? agent.globalDir(scope.home, scope.env) : join(scope.root, agent.projectDir);
}

/** Whether the agent reads the canonical copy itself (no link needed). */
export function readsCanonical(agent: AgentTarget, scope: Scope): boolean {
  return resolve(agentDir(agent, scope)) === resolve(canonicalRoot(scope));
}

/**
 * The agents installed for by default, as `skills` picks them: every agent that reads
 * `.agents/skills`, and each other one whose folder (`.claude`, `.goose`…) exists here.
 */
export async function detectedAgents(scope: Scope): Promise<AgentTarget[]> {
  const found: AgentTarget[] = [];
  for (const agent of AGENT_TARGETS) {
    if (readsCanonical(agent, scope)) {
      found.push(agent);
      continue;
    }
    const top = scope.global
      ? dirname(agentDir(agent, scope))
      : join(scope.root, agent.projectDir.split("/")[0] as string);
    if (await exists(top)) found.push(agent);
  }
  return found;
}

async function exists(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined)) !== undefined;
}

// ---------------------------------------------------------------------------------------
// The lock of a scope: skills-lock.json for a project, the global lock for the home.

/** What the lock says of one installed skill, whichever lock it is. */
export interface LockedSkill {
  readonly name: string;
  readonly source: string;
  readonly sourceType: string;
  readonly sourceUrl?: string;
  readonly ref?: string;
  readonly skillPath?: string;
  /** The hash the installed bytes must have; undefined when the lock holds none we can check. */
  readonly hash?: string;
  /** well-known sources: the index's digest of the skill when it was installed (`sha256:…`). */
  readonly wellKnownDigest?: string;
}

const PROJECT_KNOWN = [
  "source",
  "sourceUrl",
  "ref",
  "sourceType",
  "skillPath",
  "computedHash",
  "wellKnownDigest",
];
const GLOBAL_KNOWN = [
  "source",
  "sourceType",
  "sourceUrl",
  "ref",
  "skillPath",
  "skillFolderHash",
  "wellKnownDigest",
  "installedAt",
  "updatedAt",
];

function unknownFields(entry: Readonly<Record<string, unknown>> | undefined, known: readonly string[]) {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entry ?? {})) if (!known.includes(key)) out[key] = value;
  return out;
}

/** The lock of a scope, read once, changed in memory, written atomically by `save`. */
export class ScopeLock {
  private constructor(
    readonly file: string,
    readonly global: boolean,
    private project: ProjectLock,
    private globalLock: GlobalLock,
    /** The text on disk when read (undefined: no file). */
    readonly original: string | undefined,
  ) {}

  static async load(scope: Scope): Promise<ScopeLock> {
    const { readFile } = await import("node:fs/promises");
    if (scope.global) {
      const file = globalLockPath({ home: scope.home, env: scope.env });
      const lock = (await readGlobalLock(file)) ?? { version: 3, skills: {}, dismissed: {} };
      const text = await readFile(file, "utf8").catch(() => undefined);
      return new ScopeLock(file, true, { version: 1, skills: {} }, lock, text);
    }
    const file = join(scope.root, PROJECT_LOCK_FILE);
    const lock = (await readProjectLock(file)) ?? { version: 1, skills: {} };
    const text = await readFile(file, "utf8").catch(() => undefined);
    return new ScopeLock(file, false, lock, { version: 3, skills: {} }, text);
  }

  names(): string[] {
    return Object.keys(this.global ? this.globalLock.skills : this.project.skills);
  }

  get(name: string): LockedSkill | undefined {
    if (this.global) {
      const e = this.globalLock.skills[name];
      if (e === undefined) return undefined;
      // `skills` records a GitHub tree SHA for github sources: not a hash of the bytes.
      const hash = e.sourceType === "github" ? undefined : e.skillFolderHash;
      return { name, ...pick(e), ...(hash === undefined ? {} : { hash }) };
    }
    const e = this.project.skills[name];
    if (e === undefined) return undefined;
    return { name, ...pick(e), hash: e.computedHash };
  }

  /** The locked skill installed in folder `folder` (`skillFolderName` of its name). */
  byFolder(folder: string): LockedSkill | undefined {
    const name = this.names().find((n) => skillFolderName(n) === folder);
    return name === undefined ? undefined : this.get(name);
  }

  set(skill: LockedSkill & { readonly hash: string }, now: string): void {
    const optional = (key: string, value: string | undefined) =>
      value === undefined ? {} : { [key]: value };
    if (this.global) {
      const prev = this.globalLock.skills[skill.name];
      const entry: GlobalLockEntry = {
        source: skill.source,
        sourceType: skill.sourceType,
        sourceUrl: skill.sourceUrl ?? skill.source,
        ...optional("ref", skill.ref),
        ...optional("skillPath", skill.skillPath),
        skillFolderHash: skill.hash,
        ...optional("wellKnownDigest", skill.wellKnownDigest),
        installedAt: prev?.installedAt ?? now,
        updatedAt: now,
        ...unknownFields(prev, GLOBAL_KNOWN),
      };
      this.globalLock = { ...this.globalLock, skills: { ...this.globalLock.skills, [skill.name]: entry } };
      return;
    }
    const prev = this.project.skills[skill.name];
    const entry: ProjectLockEntry = {
      source: skill.source,
      ...optional("sourceUrl", skill.sourceUrl),
      ...optional("ref", skill.ref),
      sourceType: skill.sourceType,
      ...optional("skillPath", skill.skillPath),
      computedHash: skill.hash,
      ...optional("wellKnownDigest", skill.wellKnownDigest),
      ...unknownFields(prev, PROJECT_KNOWN),
    };
    this.project = { ...this.project, skills: { ...this.project.skills, [skill.name]: entry } };
  }

  delete(name: string): void {
    if (this.global) {
      const { [name]: _gone, ...skills } = this.globalLock.skills;
      this.globalLock = { ...this.globalLock, skills };
    } else {
      const { [name]: _gone, ...skills } = this.project.skills;
      this.project = { ...this.project, skills };
    }
  }

  async save(): Promise<void> {
    if (this.global) await writeGlobalLock(this.file, this.globalLock);
    else await writeProjectLock(this.file, this.project);
  }

  /** The text `save` would write. */
  async text(): Promise<string> {
    if (this.global) return JSON.stringify(this.globalLock, null, 2);
    const { formatProjectLock } = await import("@skill/lock");
    return formatProjectLock(this.project, dirname(this.file));
  }
}

function pick(e: Readonly<Record<string, unknown>>) {
  const out: {
    source: string;
    sourceType: string;
    sourceUrl?: string;
    ref?: string;
    skillPath?: string;
    wellKnownDigest?: string;
  } = {
    source: e.source as string,
    sourceType: e.sourceType as string,
  };
  for (const key of ["sourceUrl", "ref", "skillPath", "wellKnownDigest"] as const) {
    if (typeof e[key] === "string") out[key] = e[key] as string;
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Sources: a local folder, or a git repository at a ref.

/** A source made ready to copy from. */
export interface ReadySource {
  readonly sourceType: "local" | "git" | "well-known";
  /** The folder the skills are looked for in (the folder, or the checkout). */
  readonly dir: string;
  /** For the lock: the path (local, made relative on write) or the repository. */
  readonly source: string;
  readonly sourceUrl?: string;
  readonly ref?: string;
  readonly cleanup: () => Promise<void>;
}

const GIT_URL = /^(?:[a-z][a-z0-9+.-]*:\/\/|git@)/i;

/** Whether `spec` names a git repository: a URL, a `.git` path, or anything with `#ref`. */
export function isGitSpec(spec: string): boolean {
  return GIT_URL.test(spec) || spec.includes("#") || /\.git\/?$/.test(spec);
}

const run = promisify(execFile);

async function git(args: readonly string[], env: Env, cwd?: string): Promise<string> {
  try {
    const { stdout } = await run("git", args as string[], {
      cwd,
      env: { PATH: env.PATH, HOME: env.HOME, GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" },
      maxBuffer: 16 * 1024 * 1024,
      timeout: 120_000,
    });
    return stdout;
  } catch (error) {
    const stderr = String((error as { stderr?: string }).stderr ?? (error as Error).message).trim();
    throw new UserError(`git ${args.join(" ")} failed: ${printable(stderr.split("\n").slice(-3).join(" "))}`);
  }
}

/** Clones `repo` at `ref` into a temporary folder. */
export async function checkout(repo: string, ref: string | undefined, env: Env): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "skill-git-"));
  try {
    await git(["clone", "--quiet", "--no-checkout", "--", repo, dir], env);
    await git(["checkout", "--quiet", "--detach", ref ?? "HEAD", "--"], env, dir);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return dir;
}

/** The commit a checkout is at. */
export async function gitCommit(dir: string, env: Env): Promise<string> {
  return (await git(["rev-parse", "HEAD"], env, dir)).trim();
}

/** Makes `spec` (a folder, or `repo#ref`) ready; paths are relative to `here`. */
export async function readySource(spec: string, here: string, env: Env): Promise<ReadySource> {
  if (!isGitSpec(spec)) {
    const dir = resolve(here, spec);
    const info = await stat(dir).catch(() => undefined);
    if (!info?.isDirectory()) {
      throw new UserError(
        `Cannot add ${printable(spec)}: ${info ? "not a folder" : `no such folder (${dir})`}`,
      );
    }
    return { sourceType: "local", dir, source: dir, cleanup: async () => {} };
  }
  const at = spec.lastIndexOf("#");
  const repoSpec = at >= 0 ? spec.slice(0, at) : spec;
  const ref = at >= 0 ? spec.slice(at + 1) : undefined;
  if (ref !== undefined && (ref === "" || ref.startsWith("-"))) {
    throw new UserError(`Cannot add ${printable(spec)}: expected a branch, tag or commit after '#'`);
  }
  const repo = GIT_URL.test(repoSpec) ? repoSpec : resolve(here, repoSpec);
  const dir = await checkout(repo, ref, env);
  return {
    sourceType: "git",
    dir,
    source: repo,
    sourceUrl: repo,
    ...(ref === undefined ? {} : { ref }),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** A skill found in a source. */
export interface FoundSkill {
  readonly name: string;
  /** The skill folder. */
  readonly dir: string;
  /** Its SKILL.md relative to the source, `/`-separated. */
  readonly skillPath: string;
  /** well-known sources: the index's digest of the skill, as the pull verified it. */
  readonly digest?: string;
}

/** The skills of a source: its own SKILL.md, or every SKILL.md below it. */
export async function findSkills(dir: string): Promise<FoundSkill[]> {
  const own = join(dir, SKILL_FILE);
  const files = (await exists(own)) ? [own] : await scanSkillFiles(dir);
  return inOrder(files, 8, async (file) => {
    const { skill } = await loadSkillFile(file);
    return {
      name: skill.name,
      dir: dirname(file),
      skillPath: relative(dir, file).split(sep).join("/"),
    };
  });
}

// ---------------------------------------------------------------------------------------
// Copies and links.

/**
 * Copies the files `computedHash` covers (regular files; no links, `.git` or
 * `node_modules`), permission bits kept, so the copy hashes as the source does. Written
 * beside `to` and renamed into place: a failed copy leaves the old folder whole. Given
 * `files` (what `hashFolder` of `from` read), it writes those bytes rather than reading again.
 */
export async function copySkill(from: string, to: string, files?: readonly HashedFile[]): Promise<void> {
  const temp = join(dirname(to), `.${basename(to)}.tmp-${randomBytes(4).toString("hex")}`);
  await mkdir(dirname(to), { recursive: true });
  try {
    await mkdir(temp);
    const paths = files?.map((f) => f.path) ?? (await hashedFiles(from));
    // Each folder made once, a parent before its children, then the files a few at a time.
    const folders = new Set<string>();
    for (const path of paths) {
      const parts = path.split("/").slice(0, -1);
      for (let i = 1; i <= parts.length; i++) folders.add(parts.slice(0, i).join("/"));
    }
    for (const folder of folders) await mkdir(join(temp, ...folder.split("/")), { recursive: true });
    await inOrder(paths, 8, async (path, i) => {
      const target = join(temp, ...path.split("/"));
      const [info, bytes] = await Promise.all([
        lstat(join(from, ...path.split("/"))),
        files?.[i]?.bytes ?? readInside(from, path, { maxBytes: Number.POSITIVE_INFINITY }),
      ]);
      await writeFile(target, bytes, { mode: info.mode & 0o777 });
    });
    await replaceWith(temp, to);
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    throw error;
  }
}

/** Puts `temp` at `to`, moving whatever was there aside first and deleting it after. */
async function replaceWith(temp: string, to: string): Promise<void> {
  const old = `${temp}.old`;
  const had = await exists(to);
  if (had) await rename(to, old);
  try {
    await rename(temp, to);
  } catch (error) {
    if (had) await rename(old, to).catch(() => {});
    throw error;
  }
  if (had) await rm(old, { recursive: true, force: true });
}

/** What is at an agent's path for a skill. */
export type AtPath =
  | { readonly kind: "absent" }
  | { readonly kind: "link-to-canonical" }
  | { readonly kind: "copy"; readonly hash: string | undefined }
  | { readonly kind: "other"; readonly what: string };

export async function whatIsAt(path: string, canonical: string): Promise<AtPath> {
  let info: Stats;
  try {
    info = await lstat(path);
  } catch {
    return { kind: "absent" };
  }
  if (info.isSymbolicLink()) {
    const [a, b] = await Promise.all([
      realpath(path).catch(() => undefined),
      realpath(canonical).catch(() => undefined),
    ]);
    if (a !== undefined && a === b) return { kind: "link-to-canonical" };
    const target = await readlink(path).catch(() => "?");
    // A link left dangling by a deleted canonical copy (a fresh checkout) still points at it.
    const parent = await realpath(dirname(path)).catch(() => dirname(path));
    const home = await realpath(dirname(canonical)).catch(() => dirname(canonical));
    if (a === undefined && resolve(parent, target) === join(home, basename(canonical))) {
      return { kind: "link-to-canonical" };
    }
    return { kind: "other", what: `a link to ${target}` };
  }
  if (info.isDirectory()) {
    const hash = await computedHash(path).catch(() => undefined);
    return { kind: "copy", hash };
  }
  return { kind: "other", what: "a file" };
}

/**
 * Makes `link` a relative symbolic link to `canonical` (both inside `scopeRoot`), replacing
 * what `replace` allows. Returns the link's target text.
 */
export async function linkSkill(link: string, canonical: string): Promise<string> {
  await mkdir(dirname(link), { recursive: true });
  const target = relative(await realpath(dirname(link)), await realpath(canonical));
  if (isAbsolute(target))
    throw new UserError(`Cannot link ${link} to ${canonical}: no relative path between them`);
  const temp = join(dirname(link), `.${basename(link)}.link-${randomBytes(4).toString("hex")}`);
  await symlink(target, temp);
  try {
    const info = await lstat(link).catch(() => undefined);
    if (info?.isDirectory()) await rm(link, { recursive: true, force: true });
    await rename(temp, link);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  return target;
}

/** Whether a link at `link` to `canonical` stays inside the scope, real paths considered. */
export async function linkStaysInside(scopeRoot: string, link: string, canonical: string): Promise<boolean> {
  const real = await realpath(scopeRoot).catch(() => resolve(scopeRoot));
  const linkParent = await realpath(dirname(link)).catch(() => resolve(dirname(link)));
  const target = await realpath(canonical).catch(() => resolve(canonical));
  return isInside(real, linkParent) && isInside(real, target);
}
