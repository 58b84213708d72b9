/** Version of the SKILL.md contract this package implements. */
export const SKILL_SPEC_VERSION = 2 as const;

/**
 * Every failure @skill/* reports has one of these codes. They are stable: match on `code`,
 * never on the message text.
 */
export type SkillErrorCode =
  | "NOT_FOUND"
  | "READ_ERROR"
  | "PARSE_ERROR"
  | "MISSING_FIELD"
  | "INVALID_FIELD"
  | "DUPLICATE_NAME"
  | "HTTP_ERROR"
  | "INVALID_URL"
  | "REMOTE_ERROR"
  | "UNSAFE_PATH"
  | "INTEGRITY_ERROR"
  | "LIMIT_EXCEEDED"
  | "ABORTED"
  | "WRITE_ERROR";

/**
 * What a registry holds for a skill: everything but its body. A plain frozen object with no
 * getters, so spreading, `JSON.stringify` and `structuredClone` never touch a disk.
 */
export interface SkillMetadata {
  /** The `name` frontmatter field, surrounding whitespace trimmed. Unique in a registry. */
  readonly name: string;
  /** The `description` frontmatter field, surrounding whitespace trimmed. */
  readonly description: string;
  /**
   * Absolute path of the SKILL.md file as the source reached it (a symlink stays a symlink),
   * or a URI for a skill that is not a local file (`skill://server/pdf/SKILL.md`, `builtin:pdf`).
   */
  readonly location: string;
  /** Every frontmatter field, in document order, as JSON data (dates as ISO strings, `!!binary` as base64). */
  readonly frontmatter: Readonly<Record<string, unknown>>;
  /** Id of the {@link SkillSource} that found it, when loaded through one. */
  readonly source?: string;
  /**
   * Who vouches for it: `<kind>:<label>` or a bare id (see {@link originKind}). The entry's
   * `origin`, else the source id, else `"manual"` for a skill added with `load()`.
   */
  readonly origin: string;
  /** `false` when the frontmatter says `disable-model-invocation: true`: keep it out of the model's catalog. */
  readonly modelInvocable: boolean;
  /** `false` when the frontmatter says `user-invocable: false`: no slash command for people. */
  readonly userInvocable: boolean;
  /**
   * With `identity: "folder"` (Claude Code): the frontmatter `name` when it differs from the
   * key (`name`, the folder). Catalogs show `key (displayName)`, as Claude Code does.
   */
  readonly displayName?: string;
}

/** A skill with its body: what `parseSkill`, `loadSkillFile` and `SkillService.read` return. */
export interface SkillInfo extends SkillMetadata {
  /** Markdown body: everything after the closing frontmatter line, untrimmed, LF line endings. */
  readonly content: string;
}

/** One finding about a skill file or a source. */
export interface Diagnostic {
  /** Stable rule id, e.g. `name-mismatch`, `unknown-field:version`, `yaml-repaired`, `folder-unreadable`. */
  readonly code: string;
  /** `error` stops the skill from loading (or fails strict validation); `warning` does not. */
  readonly severity: "error" | "warning";
  /** A sentence for people, naming the file. */
  readonly message: string;
  /** Absolute path (or URI) of the file or folder concerned. */
  readonly path?: string;
  /** The frontmatter field concerned. */
  readonly field?: string;
  /** 1-based line in the file, where known. */
  readonly line?: number;
  /** Id of the source that reported it, for findings a source made while scanning. */
  readonly source?: string;
}

/**
 * How strictly a skill file is read. The defaults follow the Agent Skills specification;
 * agent presets set these to reproduce one agent (see `@skill/discovery`'s `agentProfile`).
 */
export interface LoadRules {
  /**
   * Repair what other agents accept (default `true`): a plain scalar holding `: ` is re-read
   * as a quoted string, with a `yaml-repaired` warning. `false` repairs nothing and refuses a
   * skill with any spec finding.
   */
  readonly lenient?: boolean;
  /** Largest SKILL.md accepted, in bytes (default 1 MiB). Larger files fail with `LIMIT_EXCEEDED`. */
  readonly maxBytes?: number;
  /**
   * `"none"` (default, as the specification): a missing `name` fails the skill with
   * `MISSING_FIELD`. `"folder"` (Claude Code, Codex): the SKILL.md folder's name is used, with a
   * `name-missing` warning.
   */
  readonly nameFallback?: "none" | "folder";
  /**
   * `true` (Copilot CLI): a name over 64 or a description over 1,024 characters fails the skill
   * with `INVALID_FIELD`. Counted trimmed, each run of whitespace one space, in code points.
   * Default `false`: a warning. (Codex 0.171 loads a 5,000-character description: not Codex.)
   */
  readonly rejectLongFields?: boolean;
  /**
   * What a skill is keyed by. `"name"` (default): its `name` field. `"folder"` (Claude Code):
   * the SKILL.md folder's name is the key, so two folders with one `name` both load; the `name`
   * field, when it differs, is {@link SkillMetadata.displayName}.
   */
  readonly identity?: "name" | "folder";
  /**
   * `true` (default): a missing or empty `description` fails the skill with `MISSING_FIELD`.
   * `false` (Claude Code, Copilot, opencode): the skill loads with a `description-missing` or
   * `description-empty` warning. `"field"` (Gemini CLI): the field must be there, it may be empty.
   */
  readonly requireDescription?: boolean | "field";
  /**
   * `"body"` (Claude Code): a missing or empty `description` is the first non-blank line of the
   * body. Default `"none"`.
   */
  readonly descriptionFallback?: "none" | "body";
  /**
   * `true` (Codex, Gemini CLI, pi): a file starting with a UTF-8 byte order mark fails with
   * `PARSE_ERROR` (rule id `bom`). Default `false`: the mark is dropped.
   */
  readonly rejectBom?: boolean;
  /**
   * `true` (default): a file without `---` delimiters fails with `PARSE_ERROR`. `false` (Claude
   * Code): it is read as a skill with no fields (a `frontmatter-missing` warning), the whole
   * text its body; with `identity: "folder"` and `descriptionFallback: "body"` it then loads.
   */
  readonly requireFrontmatter?: boolean;
  /**
   * Frontmatter YAML that does not parse. `"repair"` (default when lenient): a plain scalar
   * holding `: ` is re-read quoted (`yaml-repaired`), else `PARSE_ERROR`. `"refuse"` (Codex,
   * Copilot, pi, Amp; the default when strict): `PARSE_ERROR`. `"ignore"` (Claude Code): read as
   * no fields, with a `yaml-invalid` warning.
   */
  readonly brokenYaml?: "repair" | "refuse" | "ignore";
  /**
   * `true` (Copilot, Amp): a `name` breaking the specification's character rules
   * (`name-invalid-chars`, `name-leading-or-trailing-hyphen`, `name-consecutive-hyphens`)
   * fails the skill with `INVALID_FIELD`. Default `false`: a warning.
   */
  readonly rejectInvalidName?: boolean;
}

/** Options of {@link parseSkill} and {@link loadSkillFile}. */
export interface ParseOptions extends LoadRules {}

/** A parsed skill and what was noticed while parsing it. */
export interface ParsedSkill {
  readonly skill: SkillInfo;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Where a skill file is going, and so how it is judged: `spec` (default) the Agent Skills
 * specification; `skills-ref` its reference validator; `claude-code`, `codex` those agents'
 * loaders; `gh-publish` what `gh skill publish` accepts.
 */
export type ValidationTarget = "spec" | "skills-ref" | "claude-code" | "codex" | "gh-publish";

/** Validation options. */
export interface ValidateOptions {
  /** Report findings as errors (skills-ref parity). Default `false`: warnings. */
  readonly strict?: boolean;
  /** Judge the file as this place would (default `spec`). */
  readonly target?: ValidationTarget;
}

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

/** Where libraries publish events; see {@link SkillEvents} for the payloads. Return values are ignored. */
export interface EventBus {
  publish(topic: string, payload: unknown): unknown;
}

/** Payloads a {@link SkillService} publishes, by topic; a typed bus can use `keyof SkillEvents`. */
export interface SkillEvents {
  /** A SKILL.md (or a whole source, `path` = its id) could not be loaded. */
  "session.error": { readonly type: "skill_parse_error"; readonly path: string; readonly error: string };
  /** Two skills had the same name; the later one won. */
  "skill.shadowed": ShadowedSkill;
  /** What an `update` changed, by skill name (sorted). */
  "skill.changed": {
    readonly added: readonly string[];
    readonly changed: readonly string[];
    readonly removed: readonly string[];
  };
}

/** Structured fields of a log line: what a program filters on, instead of the wording. */
export interface LogFields {
  /** A {@link SkillErrorCode} or a {@link Diagnostic} rule id. */
  readonly code?: SkillErrorCode | (string & {});
  /** The system error code behind it: `ENOENT`, `EACCES`, `ELOOP`… */
  readonly errno?: string;
  readonly path?: string;
  readonly url?: string;
  /** The id of the source concerned. */
  readonly source?: string;
  /** The skill name concerned. */
  readonly name?: string;
}

/** Where libraries send warnings; they never print. */
export interface Logger {
  warn(message: string, fields?: LogFields): void;
  debug?(message: string, fields?: LogFields): void;
}

/** What a permission rule decides. `ask` keeps a skill listed; `deny` hides it. */
export type PermissionAction = "allow" | "deny" | "ask";

/**
 * Permission config in the opencode shape: `{ "skill": "deny" }` or
 * `{ "skill": { "*": "allow", "internal-*": "deny" } }`. Key order matters: the last match wins.
 */
export type PermissionConfig = Readonly<
  Record<string, PermissionAction | Readonly<Record<string, PermissionAction>>>
>;

/** The agent a lookup is for. */
export interface AgentInfo {
  readonly name: string;
  /** The agent's own rules; they override config and defaults. */
  readonly permission?: PermissionConfig;
}

/** Decides what an agent may do. `permission` is e.g. `skill`, `pattern` the skill name. */
export interface PermissionPolicy {
  evaluate(agent: AgentInfo, permission: string, pattern: string): PermissionAction;
}

/**
 * SKILL.md reads shared by loads that run together (see {@link sharedReads}). Opaque: pass it
 * to `SkillServiceOptions.sharedReads`.
 */
export interface SharedReads {
  readonly kind: "shared-reads";
}

/** Options of {@link SkillService}: where skills come from, who may see them, how they are read. */
export interface SkillServiceOptions extends LoadRules {
  /** Where skills come from, lowest precedence first. */
  readonly sources?: readonly SkillSource[];
  /** Decides what an agent sees; absent: every skill is visible to every agent. */
  readonly permission?: PermissionPolicy;
  /** Receives the events of {@link SkillEvents}. */
  readonly bus?: EventBus;
  /** Receives warnings (duplicate names, failed files, source findings). */
  readonly logger?: Logger;
  /** Heads of unchanged SKILL.md files, kept between runs: a warm load stats instead of reading. */
  readonly headCache?: HeadCache;
  /**
   * From `sharedReads()`: services loading together under different rules read and
   * parse each SKILL.md once between them. Each file is remembered as first seen: for services
   * that load once, not for one that is `update()`d.
   */
  readonly sharedReads?: SharedReads;
  /** Largest bundled file `readFile` returns, in bytes (default 10 MiB). */
  readonly maxFileBytes?: number;
}

/** A name collision: the skill at `kept` replaced the one at `dropped` (both locations). */
export interface ShadowedSkill {
  readonly name: string;
  readonly kept: string;
  readonly dropped: string;
}

/** One search result: a skill name, its score (higher is better) and the query terms it matched. */
export interface SkillHit {
  readonly name: string;
  readonly score: number;
  readonly terms: readonly string[];
}

/**
 * Ranked search over skills, for catalogs too big to list (`@skill/search` implements it).
 * Results are names; a caller filters them through `SkillService.get(name, agent)`.
 */
export interface SkillSearch {
  /** Best first; `[]` for an empty or unmatched query, never a throw. `limit` defaults to the implementation's. */
  search(
    query: string,
    options?: { readonly limit?: number },
  ): readonly SkillHit[] | Promise<readonly SkillHit[]>;
  /** Makes the search hold exactly these skills (a search that can follow the registry). */
  replace?(skills: readonly SkillMetadata[]): unknown;
}
