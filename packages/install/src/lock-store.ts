import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { printable, SkillError } from "@skill/core";
import {
  formatProjectLock,
  type GlobalLock,
  type GlobalLockEntry,
  type ProjectLock,
  type ProjectLockEntry,
  readGlobalLock,
  readProjectLock,
  skillFolderName,
  writeGlobalLock,
  writeProjectLock,
} from "@skill/lock";
import type { ScopeLayout } from "./scope.js";
import { shower } from "./show.js";

/** What the lock says of one installed skill, whichever lock it is. */
export interface LockedSkill {
  readonly name: string;
  readonly source: string;
  readonly sourceType: string;
  readonly sourceUrl?: string;
  readonly ref?: string;
  readonly skillPath?: string;
  /** The hash the installed bytes must have; undefined when the lock holds none that can be checked. */
  readonly hash?: string;
  /** well-known sources: the index's digest of the skill when it was installed (`sha256:…`). */
  readonly wellKnownDigest?: string;
}

const PROJECT_KNOWN = new Set([
  "source",
  "sourceUrl",
  "ref",
  "sourceType",
  "skillPath",
  "computedHash",
  "wellKnownDigest",
]);
const GLOBAL_KNOWN = new Set([
  "source",
  "sourceType",
  "sourceUrl",
  "ref",
  "skillPath",
  "skillFolderHash",
  "wellKnownDigest",
  "installedAt",
  "updatedAt",
]);

/** A locked skill's source as messages show it: `source#ref`. */
export function sourceText(skill: LockedSkill): string {
  return `${printable(skill.source)}${skill.ref ? `#${printable(skill.ref)}` : ""}`;
}

/** A map without a prototype: every key is an own key, `__proto__` included. */
function plainMap<T>(entries: Iterable<readonly [string, T]> = []): Record<string, T> {
  const out: Record<string, T> = Object.create(null);
  for (const [key, value] of entries) out[key] = value;
  return out;
}

function unknownFields(entry: Readonly<Record<string, unknown>> | undefined, known: ReadonlySet<string>) {
  return plainMap(Object.entries(entry ?? {}).filter(([key]) => !known.has(key)));
}

function optional(key: string, value: string | undefined): Record<string, string> {
  return value === undefined ? {} : { [key]: value };
}

function pick(name: string, e: Readonly<Record<string, unknown>>): LockedSkill {
  const text = (key: string) => (typeof e[key] === "string" ? (e[key] as string) : undefined);
  return {
    name,
    source: e.source as string,
    sourceType: e.sourceType as string,
    ...optional("sourceUrl", text("sourceUrl")),
    ...optional("ref", text("ref")),
    ...optional("skillPath", text("skillPath")),
    ...optional("wellKnownDigest", text("wellKnownDigest")),
  };
}

/**
 * The lock of a scope (the project's `skills-lock.json` or the global lock), read once,
 * changed in memory, written by `save`. Every lookup by name is an own-property lookup.
 */
export class ScopeLock {
  #changed = false;

  private constructor(
    readonly file: string,
    readonly global: boolean,
    /** The whole lock, its fields in their order; `skills` is a map without a prototype. */
    private readonly lock: Record<string, unknown>,
    private readonly skills: Record<string, Readonly<Record<string, unknown>>>,
    /** The text on disk when read (undefined: no file). */
    readonly original: string | undefined,
  ) {}

  static async load(layout: ScopeLayout): Promise<ScopeLock> {
    const file = layout.lockFile;
    const read: ProjectLock | GlobalLock | undefined = layout.global
      ? await readGlobalLock(file)
      : await readProjectLock(file);
    const text = read === undefined ? undefined : await readFile(file, "utf8").catch(() => undefined);
    const fresh = layout.global ? { version: 3, skills: {}, dismissed: {} } : { version: 1, skills: {} };
    const lock = plainMap(Object.entries(read ?? fresh));
    const skills = plainMap(Object.entries((lock.skills ?? {}) as Record<string, Record<string, unknown>>));
    lock.skills = skills;
    return new ScopeLock(file, layout.global, lock, skills, text);
  }

  /**
   * The scope's lock, for a command that works from one (`verb`: what it would do, as in
   * "Nothing to install").
   *
   * @throws SkillError `NOT_FOUND` when there is no lock file.
   */
  static async existing(layout: ScopeLayout, verb: string): Promise<ScopeLock> {
    const lock = await ScopeLock.load(layout);
    if (lock.original === undefined) {
      throw new SkillError(
        "NOT_FOUND",
        `Nothing to ${verb}: ${shower(layout)(lock.file)} does not exist (an add writes it)`,
        { path: lock.file },
      );
    }
    return lock;
  }

  /** Whether `save` would write anything: a change was made, or there was no lock file. */
  get changed(): boolean {
    return this.#changed;
  }

  names(): string[] {
    return Object.keys(this.skills);
  }

  has(name: string): boolean {
    return Object.hasOwn(this.skills, name);
  }

  get(name: string): LockedSkill | undefined {
    if (!this.has(name)) return undefined;
    const e = this.skills[name] as Readonly<Record<string, unknown>>;
    if (this.global) {
      // `skills` records a tree SHA (40 hex digits) for github sources: not a hash of the bytes.
      const hash =
        typeof e.skillFolderHash === "string" && /^[0-9a-f]{64}$/.test(e.skillFolderHash)
          ? e.skillFolderHash
          : undefined;
      return { ...pick(name, e), ...(hash === undefined ? {} : { hash }) };
    }
    return { ...pick(name, e), hash: e.computedHash as string };
  }

  /** The locked skill whose folder is `folder` (`skillFolderName` of its name). */
  byFolder(folder: string): LockedSkill | undefined {
    const name = this.names().find((n) => skillFolderName(n) === folder);
    return name === undefined ? undefined : this.get(name);
  }

  set(skill: LockedSkill & { readonly hash: string }, now: string): void {
    const prev = this.has(skill.name) ? this.skills[skill.name] : undefined;
    const entry = this.global
      ? ({
          source: skill.source,
          sourceType: skill.sourceType,
          sourceUrl: skill.sourceUrl ?? skill.source,
          ...optional("ref", skill.ref),
          ...optional("skillPath", skill.skillPath),
          skillFolderHash: skill.hash,
          ...optional("wellKnownDigest", skill.wellKnownDigest),
          installedAt: (prev?.installedAt as string | undefined) ?? now,
          updatedAt: now,
          ...unknownFields(prev, GLOBAL_KNOWN),
        } satisfies GlobalLockEntry)
      : ({
          source: skill.source,
          ...optional("sourceUrl", skill.sourceUrl),
          ...optional("ref", skill.ref),
          sourceType: skill.sourceType,
          ...optional("skillPath", skill.skillPath),
          computedHash: skill.hash,
          ...optional("wellKnownDigest", skill.wellKnownDigest),
          ...unknownFields(prev, PROJECT_KNOWN),
        } satisfies ProjectLockEntry);
    this.skills[skill.name] = entry;
    this.#changed = true;
  }

  delete(name: string): void {
    if (!this.has(name)) return;
    delete this.skills[name];
    this.#changed = true;
  }

  /** Writes the lock (atomically, as `@skill/lock` does). */
  async save(): Promise<void> {
    if (this.global) await writeGlobalLock(this.file, this.lock as unknown as GlobalLock);
    else await writeProjectLock(this.file, this.lock as unknown as ProjectLock);
  }

  /** The text `save` would write. */
  text(): string {
    const lock = this.lock;
    if (this.global) return JSON.stringify({ ...lock, version: 3 }, null, 2);
    return formatProjectLock(lock as unknown as ProjectLock, dirname(this.file));
  }
}
