import { statSync } from "node:fs";
import { basename, dirname, isAbsolute } from "node:path";
import {
  type AgentInfo,
  type DigestMemo,
  type FileDigest,
  type FileDigestOptions,
  type FileKey,
  fileKey,
  type LogFields,
  type Logger,
  resolveInside,
  SkillError,
  type SkillMetadata,
  type SkillService,
  sameFileKey,
} from "@skill/core";
import { type Known, type Shared, servedTo, type View, viewOf } from "./catalog-cache.js";
import type { Catalog, Refusal, ServedFile } from "./handlers.js";
import {
  decodeSegment,
  encodePath,
  SKILL_FILE,
  SKILL_LIMITS,
  SKILL_SCHEME,
  type SkillEntry,
  type SkillResourceRef,
} from "./protocol.js";

/** What a catalog serves and how: the checked options of `registerSkills`. */
export interface CatalogSettings {
  readonly prefix: string;
  readonly maxFiles: number;
  readonly maxFileBytes: number;
  /** How long a check of a skill's files answers for, in ms. */
  readonly recheckMs: number;
  readonly agent: AgentInfo | undefined;
  readonly logger: Logger | undefined;
  /** The digests of served files, shared with every server of the service (or the caller's). */
  readonly memo: DigestMemo;
}

const UNREADABLE: Refusal = { reason: "the server cannot read it now" };

/** The state of a file or folder now, as core keys it; `undefined` when it is gone. */
function stampOf(path: string): FileKey | undefined {
  try {
    const stats = statSync(path, { throwIfNoEntry: false });
    return stats && fileKey(path, stats);
  } catch {
    return undefined;
  }
}

function stillHolds(stamp: FileKey): boolean {
  const now = stampOf(stamp.path);
  return now !== undefined && sameFileKey(stamp, now);
}

/** Whether a file that could not be read is there but no longer a regular file (words for a refusal). */
function notAFile(path: string): boolean {
  try {
    const stats = statSync(path, { throwIfNoEntry: false });
    return stats !== undefined && !stats.isFile();
  } catch {
    return false;
  }
}

/** Whether the digests an entry was built from are still those of its files, in order. */
function sameDigests(held: readonly FileDigest[], now: readonly { info: FileDigest }[]): boolean {
  return (
    held.length === now.length &&
    held.every((d, i) => d.digest === now[i]?.info.digest && d.size === now[i]?.info.size)
  );
}

/**
 * The skills a server of `service` serves and what it knows of their files (see
 * `registerSkills`). File lists and entries are kept in what every server of the service and
 * listing shape shares, for every agent alike; digests come from core's digest memo.
 */
export class SkillCatalog implements Catalog {
  readonly #service: SkillService;
  readonly #settings: CatalogSettings;
  readonly #shared: Shared;
  readonly #view: View;
  readonly #base: string;
  readonly #tooLarge: Refusal;
  /** Each warning once per skill and state: a listing is asked for again and again. */
  readonly #warned = new Set<string>();

  constructor(service: SkillService, shared: Shared, settings: CatalogSettings) {
    const { prefix, maxFiles, maxFileBytes } = settings;
    this.#service = service;
    this.#settings = settings;
    this.#shared = shared;
    this.#view = viewOf(shared, JSON.stringify([prefix, maxFiles, maxFileBytes]));
    this.#base = prefix === "" ? SKILL_SCHEME : `${SKILL_SCHEME}${prefix}/`;
    this.#tooLarge = { reason: `it is larger than the ${maxFileBytes} bytes this server serves` };
  }

  servable(): readonly SkillMetadata[] {
    return servedTo(this.#shared, this.#service, this.#settings.agent);
  }

  skillOf(uri: string): SkillMetadata | undefined {
    if (!uri.startsWith(this.#base)) return undefined;
    const name = decodeSegment(uri.slice(this.#base.length).split("/")[0] ?? "");
    const skill = this.#service.get(name, this.#settings.agent);
    if (!skill || !isAbsolute(skill.location)) return undefined;
    const folder = this.folderUri(skill.name);
    return uri === folder || uri.startsWith(`${folder}/`) ? skill : undefined;
  }

  folderUri(name: string): string {
    return `${this.#base}${encodeURIComponent(name)}`;
  }

  skillUri(skill: SkillMetadata): string {
    return `${this.folderUri(skill.name)}/${SKILL_FILE}`;
  }

  skillFile(skill: SkillMetadata): ServedFile {
    return { uri: this.skillUri(skill), rel: basename(skill.location), skillFile: true };
  }

  async filesOf(skill: SkillMetadata, asOf = performance.now()): Promise<readonly ServedFile[]> {
    return (this.#checkedSince(skill, asOf) ?? (await this.#knownOf(skill))).files;
  }

  checkedEntry(skill: SkillMetadata, asOf: number): SkillEntry | undefined {
    return this.#checkedSince(skill, asOf)?.entry;
  }

  /**
   * The entry `skills/list` and `skills/get` give for a skill, for a request that arrived at
   * `asOf` (`performance.now()`): taken as it is when a check that began since found it true
   * (requests in flight at once share one), else checked now; one build for every request
   * that arrived before it began.
   */
  async entryOf(skill: SkillMetadata, asOf = performance.now()): Promise<SkillEntry | undefined> {
    const checked = this.#checkedSince(skill, asOf);
    if (checked) return checked.entry;
    const building = this.#view.building;
    const pending = building.get(skill.location);
    if (pending?.skill === skill && pending.startedAt >= asOf) return pending.entry;
    const startedAt = performance.now();
    const entry = this.#buildEntry(skill, startedAt);
    building.set(skill.location, { skill, entry, startedAt });
    try {
      return await entry;
    } finally {
      if (building.get(skill.location)?.entry === entry) building.delete(skill.location);
    }
  }

  /**
   * Every servable file of a skill with its digest, SKILL.md first; `undefined` when SKILL.md
   * itself cannot be served (changed, gone, refused).
   */
  async describedFiles(
    skill: SkillMetadata,
    files?: readonly ServedFile[],
  ): Promise<{ file: ServedFile; info: FileDigest }[] | undefined> {
    const out: { file: ServedFile; info: FileDigest }[] = [];
    for (const file of files ?? (await this.filesOf(skill))) {
      const info = await this.#describe(skill, file);
      if (info) out.push({ file, info });
      else if (file.skillFile) return undefined;
    }
    return out.length === 0 ? undefined : out;
  }

  /** A file's bytes read through core now, their digest remembered; why not, or `undefined` when it is gone. */
  async serve(
    skill: SkillMetadata,
    file: ServedFile,
  ): Promise<{ bytes: Uint8Array; described: FileDigest } | Refusal | undefined> {
    try {
      const { bytes, digest } = await this.#settings.memo.read(
        dirname(skill.location),
        file.rel,
        this.#readOptions(skill, file),
      );
      this.#servedAs(skill, file, digest);
      return { bytes, described: digest };
    } catch (error) {
      // Gone, refused or changed: the next listing walks the skill again instead of listing what it knew.
      this.#view.known.delete(skill.location);
      return this.#refusal(error, skill, file);
    }
  }

  /** Bytes served that differ from what the entry lists: the next listing checks the skill again. */
  #servedAs(skill: SkillMetadata, file: ServedFile, served: FileDigest): void {
    const known = this.#view.known.get(skill.location);
    const at = known?.files.findIndex((f) => f.uri === file.uri) ?? -1;
    if (known?.digests && known.digests[at]?.digest !== served.digest)
      known.checkedAt = Number.NEGATIVE_INFINITY;
  }

  /**
   * How core reads a file for the memo: the bytes `service.readFile` gives, so permissions
   * hold and SKILL.md is served only while it is still the registered skill.
   */
  #readOptions(skill: SkillMetadata, file: ServedFile): FileDigestOptions {
    const path = file.skillFile ? SKILL_FILE : file.rel;
    return {
      maxBytes: this.#settings.maxFileBytes,
      read: () => this.#service.readFile(skill.name, path, this.#settings.agent),
    };
  }

  /** Why core refused to read a file, in words that name no path on the server; `undefined` when it is not there. */
  #refusal(error: unknown, skill: SkillMetadata, file: ServedFile): Refusal | undefined {
    switch (SkillError.isInstance(error) ? error.code : undefined) {
      case "NOT_FOUND":
        return undefined;
      case "LIMIT_EXCEEDED":
        return this.#tooLarge;
      case "INTEGRITY_ERROR":
        return { reason: "it changed since the skill was loaded" };
      case "READ_ERROR":
        return notAFile(resolveInside(dirname(skill.location), file.rel))
          ? { reason: "it is not a file now" }
          : UNREADABLE;
      default:
        return UNREADABLE;
    }
  }

  /** A file's digest from core's memo (hashed once while it keeps its state); `undefined` when it cannot be served. */
  async #describe(skill: SkillMetadata, file: ServedFile): Promise<FileDigest | undefined> {
    try {
      return await this.#settings.memo.digest(
        dirname(skill.location),
        file.rel,
        this.#readOptions(skill, file),
      );
    } catch {
      this.#view.known.delete(skill.location);
      return undefined;
    }
  }

  /**
   * What is known of a skill when a check that began at or after `asOf` (less `recheckMs`)
   * found its entry true.
   */
  #checkedSince(skill: SkillMetadata, asOf: number): (Known & { entry: SkillEntry }) | undefined {
    if (this.#view.version !== this.#service.version) return undefined;
    const known = this.#view.known.get(skill.location);
    return known?.skill === skill &&
      known.entry &&
      (known.checkedAt ?? Number.NEGATIVE_INFINITY) >= asOf - this.#settings.recheckMs
      ? (known as Known & { entry: SkillEntry })
      : undefined;
  }

  async #buildEntry(skill: SkillMetadata, startedAt: number): Promise<SkillEntry | undefined> {
    const had = await this.#knownOf(skill);
    const files = await this.describedFiles(skill, had.files);
    if (!files) return undefined;
    // Unchanged digests keep the entry already built: one copy, however often it is listed.
    if (had.entry && had.digests && sameDigests(had.digests, files)) {
      had.checkedAt = Math.max(had.checkedAt ?? Number.NEGATIVE_INFINITY, startedAt);
      return had.entry;
    }
    const resources: SkillResourceRef[] = files.map(({ file, info }) => ({
      uri: file.uri,
      digest: info.digest,
      size: info.size,
    }));
    const bytes = files.reduce((sum, { info }) => sum + info.size, 0);
    if (bytes > SKILL_LIMITS.bytes) {
      this.#warn(
        `bytes:${skill.location}:${bytes}`,
        `Skill ${skill.name} serves ${bytes} bytes, more than the ${SKILL_LIMITS.bytes} SEP-2640 hosts must accept per skill`,
        { code: "mcp-skill-too-large", path: skill.location },
      );
    }
    const entry: SkillEntry = { uri: this.skillUri(skill), frontmatter: skill.frontmatter, resources };
    // Kept only whole: a file that could not be described (gone, too large) is tried again.
    // A check that began earlier than the one kept does not replace it.
    if (files.length === had.files.length && startedAt >= (had.checkedAt ?? Number.NEGATIVE_INFINITY)) {
      had.entry = entry;
      had.digests = files.map(({ info }) => info);
      had.checkedAt = startedAt;
    }
    return entry;
  }

  /**
   * What is known of a skill's files while the registry is the same and its stamps hold, else
   * a new walk. Stamps are the folders holding its files: a file added, removed or renamed over
   * changes its folder's; a file edited in place is caught by its digest, through the memo.
   */
  async #knownOf(skill: SkillMetadata): Promise<Known> {
    const view = this.#view;
    const version = this.#service.version;
    if (view.version !== version) {
      view.known.clear();
      view.version = version;
    }
    const had = view.known.get(skill.location);
    if (had?.skill === skill && had.stamps.every(stillHolds)) return had;
    const files = await this.#walk(skill);
    const stamps = files && this.#stamps(skill, files);
    if (!files || !stamps || this.#service.version !== version) {
      view.known.delete(skill.location);
      return { skill, files: files ?? [], stamps: [] };
    }
    const fresh: Known = { skill, files, stamps };
    view.known.set(skill.location, fresh);
    return fresh;
  }

  /** SKILL.md and the bundled files `service.files` lists, at most `maxFiles`: core's walk, now. */
  async #walk(skill: SkillMetadata): Promise<ServedFile[] | undefined> {
    const { maxFiles, agent } = this.#settings;
    let rels: string[];
    try {
      rels = await this.#service.files(skill.name, agent, { limit: maxFiles + 1 });
    } catch {
      return undefined; // the skill went away or became hidden since it was listed
    }
    if (rels.length > maxFiles) {
      rels = rels.slice(0, maxFiles);
      this.#warn(
        `files:${skill.location}`,
        `Skill ${skill.name} has more than ${maxFiles + 1} files: only SKILL.md and the first ${maxFiles} are served (SEP-2640 hosts accept ${SKILL_LIMITS.files} resources per skill)`,
        { code: "mcp-skill-too-many-files", path: skill.location },
      );
    }
    const folder = this.folderUri(skill.name);
    return [
      this.skillFile(skill),
      ...rels.map((rel) => ({ uri: `${folder}/${encodePath(rel)}`, rel, skillFile: false })),
    ];
  }

  /**
   * Every folder that holds a listed file, with its state now: a file added, removed or renamed
   * in one of them (SKILL.md replaced, a nested SKILL.md too) changes its folder's; a file
   * edited in place is the digest memo's to see. `undefined` when one is gone.
   */
  #stamps(skill: SkillMetadata, files: readonly ServedFile[]): FileKey[] | undefined {
    const root = dirname(skill.location);
    const paths = new Set<string>([root]);
    for (const file of files) {
      const at = file.rel.lastIndexOf("/");
      if (!file.skillFile && at !== -1) paths.add(`${root}/${file.rel.slice(0, at)}`);
    }
    const stamps: FileKey[] = [];
    for (const path of paths) {
      const stamp = stampOf(path);
      if (stamp === undefined) return undefined;
      stamps.push(stamp);
    }
    return stamps;
  }

  #warn(key: string, message: string, fields: LogFields): void {
    const logger = this.#settings.logger;
    if (!logger || this.#warned.has(key)) return;
    this.#warned.add(key);
    logger.warn(message, fields);
  }
}
