import type { Logger } from "./logging.js";
import type { Diagnostic } from "./types.js";

/** What a scan or a read may be cancelled with, and where a source may log. */
export interface ScanContext {
  /** Aborting it rejects the work with `ABORTED`. */
  readonly signal?: AbortSignal;
  /** Receives debug lines and warnings that are not findings (a `SkillService` passes its own). */
  readonly logger?: Logger;
}

/**
 * One skill a source found.
 *
 * - Without `read`, `location` is an absolute path and core reads it from disk (size-capped,
 *   never blocking on a FIFO), de-duplicating files reached twice by device and inode.
 * - With `read`, `location` may be any URI (`skill://server/pdf/SKILL.md`, `builtin:pdf`); it
 *   names the skill in every message and identifies it (the same URI twice loads once).
 */
export interface SourceEntry {
  /** Absolute SKILL.md path, or a URI when `read` is given. */
  readonly location: string;
  /**
   * The SKILL.md bytes (or text), read now. Called when the registry is loaded and again by
   * `SkillService.read`. Reject with a `SkillError` (`NOT_FOUND`, `INTEGRITY_ERROR`…) to fail
   * this skill alone; reject `ABORTED` when `ctx.signal` aborts.
   */
  read?(ctx: ScanContext): Promise<string | Uint8Array>;
  /**
   * Files bundled with the skill, relative to the SKILL.md folder, `/`-separated. Without it,
   * `SkillService.files` walks the SKILL.md folder (for file locations).
   */
  listFiles?(ctx: ScanContext): Promise<readonly string[]>;
  /** Who vouches for it (`mcp:<label>`, `remote:<index url>`, `builtin`…); default the source id. */
  readonly origin?: string;
  /**
   * Metadata known without reading SKILL.md (an MCP listing). The skill is registered from it
   * and nothing is read until `SkillService.read`, which verifies the bytes against it.
   */
  readonly head?: SkillHead;
  /**
   * Frontmatter fields the registry does not take from this entry: checked against the head
   * like every field, then left out of the skill's `frontmatter` (with a `field-ignored`
   * warning). For fields a source cannot vouch for, e.g. `allowed-tools` of a skill from an MCP
   * server the harness has not chosen to trust.
   */
  readonly ignoreFields?: readonly string[];
  /**
   * One bundled file, `path` as `listFiles` gives it. Without it, file entries are read from
   * the SKILL.md folder through core's safe reader; other entries have no readable files.
   */
  readFile?(path: string, ctx: ScanContext): Promise<Uint8Array>;
}

/** What is known of a SKILL.md without reading it. */
export interface SkillHead {
  /** Every frontmatter field, as parsed from SKILL.md (JSON-normalised: dates as ISO strings). */
  readonly frontmatter: Readonly<Record<string, unknown>>;
  /** `"sha256:<64 lowercase hex>"` of the SKILL.md bytes, when known. */
  readonly digest?: string;
  /** Bytes of SKILL.md, when known. */
  readonly size?: number;
  /** What the body says the skill is for (see `bodySummary`), when known; at most 500 characters. */
  readonly summary?: string;
}

/** What identifies one state of a file on disk: a cached head is valid while all of it holds. */
export interface FileKey {
  readonly path: string;
  readonly dev: number;
  readonly ino: number;
  /** Bytes. */
  readonly size: number;
  /** Modification time, milliseconds since the epoch. */
  readonly mtimeMs: number;
  /**
   * Status change time, milliseconds since the epoch, when known (`fileKey` takes it from a
   * stat). No tool sets it back: a file replaced by one of the same inode, size and mtime (an
   * archive's fixed times on a reused inode, `touch -r`, `cp -p`) or whose mode changed has a
   * new one. Keys that have it match only keys with the same.
   */
  readonly ctimeMs?: number;
}

/**
 * Persistent heads of SKILL.md files, for warm starts: a file whose {@link FileKey} is cached
 * is registered without being opened. See `fileHeadCache`.
 */
export interface HeadCache {
  /** The head stored for exactly this key, if any. */
  get(key: FileKey): SkillHead | undefined;
  set(key: FileKey, head: SkillHead): void;
  /** Drops what is stored for `path` (the file no longer matches its head). */
  delete?(path: string): void;
  /**
   * Whether anything is stored for `path`, in whatever state. Optional: told no, a loader does
   * not `stat` the file to look it up, and stores the head under the state its read saw.
   */
  has?(path: string): boolean;
  /** Writes what changed; called once at the end of `discoverAndLoad` and `update`. */
  flush(): Promise<void>;
}

/** One file of a skill folder, as {@link skillFiles} lists it. */
export interface SkillFile {
  /** Relative to the skill folder, `/`-separated. */
  readonly path: string;
  /** Bytes (of the target, for a link). */
  readonly size: number;
  /** Has an execute bit. */
  readonly executable: boolean;
  /**
   * Set when the path is, or passes through, a symbolic link: `inside` (the file itself or a
   * folder on its way is a link, and the real path stays in the skill folder), `outside`
   * (it leaves the folder, or leads into a nested skill or `.git`: never read, never
   * published) or `dangling` (no target, or a loop of links). `outside` and `dangling`
   * entries (size 0) are listed only when `links: true` is asked for.
   */
  readonly link?: "inside" | "outside" | "dangling";
}

/** Something a scan passed over on purpose, and why: what `compareAgents` explains cells with. */
export interface SkippedPath {
  /** Absolute path of the file or folder. */
  readonly path: string;
  /** `too-deep`, `dot-folder`, `symlinked-file`, `node-modules`, `leaf`, `dangling-symlink`, `max-dirs`… */
  readonly reason: string;
}

/**
 * What one scan of a source found. The port's rules:
 * - `entries` are sorted (code-unit order of `location`), locations absolute or URIs;
 *   inside one source, a later entry wins a name collision;
 * - a scan rejects `ABORTED` when `ctx.signal` aborts, and otherwise reports what it could
 *   not use in `diagnostics` instead of rejecting, so the skills it did find still load.
 */
export interface SourceScan {
  /** The skills found, sorted; later entries take precedence over earlier ones. */
  readonly entries: readonly SourceEntry[];
  /** The root directories the source looked in (existing or not), for watchers and `update`. */
  readonly dirs: readonly string[];
  /** Source-level findings: an unreadable folder, a pack served from cache, an entry a pack skipped. */
  readonly diagnostics?: readonly Diagnostic[];
  /** What the scan passed over on purpose (too deep, a dot-folder, a symlinked file…). */
  readonly skipped?: readonly SkippedPath[];
}

/** A place skills come from: a folder tree, a remote pack, an MCP server, memory… */
export interface SkillSource {
  /** Readable, unique id, e.g. `global:.claude` or `project:/abs/dir/.agents`. */
  readonly id: string;
  /**
   * Which skill wins a name collision inside this source: `last-wins` (default) the later
   * entry, `first-wins` the earlier one (agents that keep the first match: Copilot, pi, Amp).
   */
  readonly precedence?: "last-wins" | "first-wins";
  scan(ctx: ScanContext): Promise<SourceScan>;
}
