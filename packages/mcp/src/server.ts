import { isUtf8 } from "node:buffer";
import { statSync } from "node:fs";
import { basename, dirname, isAbsolute } from "node:path";
import { type McpServer, Server, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import {
  type AgentInfo,
  errnoOf,
  type Logger,
  resolveInside,
  SkillError,
  type SkillMetadata,
  type SkillService,
  sha256Digest,
} from "@skill/core";
import {
  answerSkills,
  type Catalog,
  type Described,
  METHODS,
  type Refusal,
  type ServedFile,
} from "./handlers.js";
import { invalidOption, wholeOption } from "./options.js";
import {
  decodeSegment,
  encodePath,
  SKILL_FILE,
  SKILL_LIMITS,
  SKILL_SCHEME,
  SKILLS_EXTENSION_ID,
  type SkillCacheScope,
  type SkillEntry,
  type SkillResourceRef,
} from "./protocol.js";

/** The SDK's (v2, `@modelcontextprotocol/server`) `McpServer`, or the low-level `Server` under it (`mcpServer.server`). */
export type McpServerLike = Server | McpServer;

/** Options of {@link registerSkills}. */
export interface RegisterSkillsOptions {
  /** The agent whose permissions apply: only what `service.all(agent)` shows is served. */
  readonly agent?: AgentInfo;
  /**
   * First URI segments, `skill://<prefix>/<name>/<file>` (default `skills`); `""` serves
   * one-segment URIs, `skill://<name>/<file>`.
   */
  readonly prefix?: string;
  /** Entries per page of `skills/list`, `resources/list` and `resources/directory/read` (default 50). */
  readonly pageSize?: number;
  /** Bundled files served per skill, at most (default 511: with SKILL.md, SEP-2640's 512 resources). */
  readonly maxFiles?: number;
  /** Largest file served, in bytes (default 10 MiB); larger files are left out. */
  readonly maxFileBytes?: number;
  /**
   * How long a host may keep a `skills/list`, `skills/get` or `resources/directory/read`
   * answer, in ms (default 0: ask again each time). Sent as `ttlMs`.
   */
  readonly ttlMs?: number;
  /** Who may share a cached answer (default `"public"`: it does not depend on who asks). Sent as `cacheScope`. */
  readonly cacheScope?: SkillCacheScope;
  /**
   * Where a skill past SEP-2640's limits (512 resources, 16 MiB) is reported, as a warning
   * (`mcp-skill-too-many-files`, `mcp-skill-too-large`). The skill is still served, cut to `maxFiles`.
   */
  readonly logger?: Logger;
}

const DEFAULT_PREFIX = "skills";
const DEFAULT_PAGE_SIZE = 50;
const DEFAULT_MAX_FILES = SKILL_LIMITS.files - 1;
const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;
const PREFIX_PATTERN = /^([A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*)?$/;
/** A path and its stat key when it was looked at. */
interface Stamp {
  readonly path: string;
  readonly key: string;
}

/** What the server knows of one skill: its files and, once a listing built it, its entry. */
interface Known {
  readonly skill: SkillMetadata;
  readonly files: readonly ServedFile[];
  /** SKILL.md and the folders holding its files, as they were when `files` was walked. */
  readonly stamps: readonly Stamp[];
  /** The entry listed for it, once built with every one of `files` described. */
  entry?: SkillEntry;
  /** Each of `files` with the stat key its listed digest was taken at. */
  entryKeys?: readonly Stamp[];
}

/** What servers of one service and listing shape (agent, prefix, limits) know of its skills. */
interface View {
  /** Each skill's files and entry, by location, for the registry of `version`. */
  readonly known: Map<string, Known>;
  version: number;
  /** The skills served, for the registry of `servedVersion`: every page of a listing pages them. */
  served: readonly SkillMetadata[];
  servedVersion: number;
}

/**
 * What every server of one service shares, whichever connection or request it answers: the
 * SDK's HTTP entry makes a server per request, and none of them should walk or hash again.
 */
interface Shared {
  /** Digests by absolute path: a file is hashed once while its stat key holds. */
  readonly digests: Map<string, Described>;
  /** Views by the agent object given (weakly), then by prefix and limits. */
  readonly byAgent: WeakMap<AgentInfo, Map<string, View>>;
  readonly anyAgent: Map<string, View>;
}

const sharedByService = new WeakMap<SkillService, Shared>();

function viewOf(
  service: SkillService,
  agent: AgentInfo | undefined,
  shape: string,
): { shared: Shared; view: View } {
  let shared = sharedByService.get(service);
  if (!shared) {
    shared = { digests: new Map(), byAgent: new WeakMap(), anyAgent: new Map() };
    sharedByService.set(service, shared);
  }
  let views = agent ? shared.byAgent.get(agent) : shared.anyAgent;
  if (!views) {
    views = new Map();
    if (agent) shared.byAgent.set(agent, views);
  }
  let view = views.get(shape);
  if (!view) {
    view = { known: new Map(), version: -1, served: [], servedVersion: -1 };
    views.set(shape, view);
  }
  return { shared, view };
}

/** The stat key of a file or folder: device, inode, size, mtime. Stamps and digests use this one. */
function keyOf(stats: {
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
}): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}`;
}

const UNREADABLE: Refusal = { reason: "the server cannot read it now" };

/**
 * Why core refused to read a file, in words that name no path on the server; `undefined`
 * when core says it is not there (gone, or no longer the agent's to see).
 */
function refusalOf(error: unknown, tooLarge: Refusal): Refusal | undefined {
  switch (SkillError.isInstance(error) ? error.code : undefined) {
    case "NOT_FOUND":
      return undefined;
    case "LIMIT_EXCEEDED":
      return tooLarge;
    case "INTEGRITY_ERROR":
      return { reason: "it changed since the skill was loaded" };
    default:
      return UNREADABLE;
  }
}

/** A file's or folder's stat key; `undefined` when it is gone. */
function stampOf(path: string): string | undefined {
  try {
    const stats = statSync(path, { throwIfNoEntry: false });
    return stats && keyOf(stats);
  } catch {
    return undefined;
  }
}

/** The options of {@link registerSkills}, checked: `INVALID_FIELD` for one it cannot use. */
function checkOptions(options: RegisterSkillsOptions) {
  const fn = "registerSkills";
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  if (
    typeof prefix !== "string" ||
    !PREFIX_PATTERN.test(prefix) ||
    prefix.split("/").some((segment) => segment === "." || segment === "..")
  ) {
    const expected = 'URI path segments of letters, digits and . _ ~ - (not . or ..), or ""';
    throw invalidOption(fn, "prefix", expected, prefix);
  }
  const cacheScope = options.cacheScope ?? "public";
  if (cacheScope !== "public" && cacheScope !== "private") {
    throw invalidOption(fn, "cacheScope", '"public" or "private"', cacheScope);
  }
  return {
    prefix,
    pageSize: wholeOption(fn, "pageSize", options.pageSize, DEFAULT_PAGE_SIZE, 1),
    maxFiles: wholeOption(fn, "maxFiles", options.maxFiles, DEFAULT_MAX_FILES, 1),
    maxFileBytes: wholeOption(fn, "maxFileBytes", options.maxFileBytes, DEFAULT_MAX_FILE_BYTES, 1),
    caching: { ttlMs: wholeOption(fn, "ttlMs", options.ttlMs, 0, 0), cacheScope } as const,
  };
}

/**
 * Serves the skills of a {@link SkillService} over MCP (SEP-2640) on an SDK server: declares
 * `io.modelcontextprotocol/skills` under `capabilities.extensions` (with `directoryRead: true`)
 * and `resources`, and answers `skills/list`, `skills/get`, `resources/list`,
 * `resources/read` and `resources/directory/read`.
 *
 * Only what `service.all(agent)` shows is served; a skill the agent may not see answers
 * exactly as an unknown URI. Every file of a skill is a resource
 * `skill://<prefix>/<name>/<file>`; its digest is the sha256 of the bytes `resources/read`
 * serves. The files of a skill are exactly those `service.files` lists (core's walker: no
 * nested skill's folder, no link that leaves the folder or leads into a nested skill, no
 * dot-files), read with `service.readFile`; SKILL.md too, as the bytes `service.read` parses,
 * so it is served only while it is still the registered skill. Skills that are not files
 * (memory, MCP) are not served.
 *
 * A skill's file list and entry are kept between listings while the registry is the same
 * (`service.version`) and SKILL.md, the folders holding its files and the files themselves
 * keep their stat keys (device, inode, size, mtime): a file added, removed, renamed over or
 * edited is listed anew at once. Bytes are always read when served. What is
 * kept is shared by every server of the same service (lists and entries per `agent` object,
 * `prefix` and limits): a server made per request walks and hashes nothing again.
 *
 * Call it before `connect`: capabilities cannot change afterwards. It owns `resources/list`
 * and `resources/read`, so the server must not register other resources.
 *
 * @example
 * const server = new McpServer({ name: "docs", version: "1.0.0" });
 * registerSkills(server, service, { agent: { name: "build" }, prefix: "docs" });
 * await server.connect(new StdioServerTransport());
 *
 * @throws SkillError `INVALID_FIELD` for an option it cannot use (a `prefix` that is not URI
 *   segments, a `pageSize`, `maxFiles`, `maxFileBytes` or `ttlMs` that is not a whole number
 *   in range, a `cacheScope` other than `"public"` or `"private"`)
 */
export function registerSkills(
  server: McpServerLike,
  service: SkillService,
  options: RegisterSkillsOptions = {},
): void {
  const low: Server =
    "server" in server && typeof server.server === "object" ? server.server : (server as Server);
  const checked = checkOptions(options);
  for (const method of METHODS) low.assertCanSetRequestHandler(method);
  low.registerCapabilities({ resources: {}, extensions: { [SKILLS_EXTENSION_ID]: { directoryRead: true } } });
  answerSkills(low, catalogOf(service, checked, options), checked);
}

/**
 * The skills a server of `service` serves and what it knows of their files, kept (see
 * {@link registerSkills}) in what every server of the service and shape shares.
 */
function catalogOf(
  service: SkillService,
  { prefix, maxFiles, maxFileBytes }: { prefix: string; maxFiles: number; maxFileBytes: number },
  { agent, logger }: RegisterSkillsOptions,
): Catalog {
  // Each warning once per skill and state: a listing is asked for again and again.
  const warned = new Set<string>();
  function warn(key: string, message: string, fields: Record<string, unknown>): void {
    if (!logger || warned.has(key)) return;
    warned.add(key);
    logger.warn(message, fields);
  }
  const base = prefix === "" ? SKILL_SCHEME : `${SKILL_SCHEME}${prefix}/`;
  // Only what a listing says is kept (digests, file lists, entries), shared with every server
  // of this service and shape; every byte served is read through core, when it is served.
  const { shared, view } = viewOf(service, agent, JSON.stringify([prefix, maxFiles, maxFileBytes]));
  const digests = shared.digests;
  const known = view.known;

  const folderUri = (name: string) => `${base}${encodeURIComponent(name)}`;
  const skillUri = (skill: SkillMetadata) => `${folderUri(skill.name)}/${SKILL_FILE}`;

  function servable(): readonly SkillMetadata[] {
    if (view.servedVersion !== service.version) {
      view.served = service.all(agent).filter((s) => isAbsolute(s.location));
      view.servedVersion = service.version;
    }
    return view.served;
  }

  /** The skill a URI belongs to, when the agent may see it; `undefined` otherwise. */
  function skillOf(uri: string): SkillMetadata | undefined {
    if (!uri.startsWith(base)) return undefined;
    const name = decodeSegment(uri.slice(base.length).split("/")[0] ?? "");
    const skill = service.get(name, agent);
    if (!skill || !isAbsolute(skill.location)) return undefined;
    const folder = folderUri(skill.name);
    return uri === folder || uri.startsWith(`${folder}/`) ? skill : undefined;
  }

  function skillFile(skill: SkillMetadata): ServedFile {
    return { uri: skillUri(skill), rel: basename(skill.location), skillFile: true };
  }

  /** SKILL.md, then the bundled files `service.files` lists, at most `maxFiles`: core's walk, now. */
  async function walkFiles(skill: SkillMetadata): Promise<ServedFile[]> {
    let rels: string[];
    try {
      rels = await service.files(skill.name, agent, { limit: maxFiles + 1 });
    } catch {
      return []; // the skill went away or became hidden since it was listed
    }
    if (rels.length > maxFiles) {
      rels = rels.slice(0, maxFiles);
      warn(
        `files:${skill.location}`,
        `Skill ${skill.name} has more than ${maxFiles + 1} files: only SKILL.md and the first ${maxFiles} are served (SEP-2640 hosts accept ${SKILL_LIMITS.files} resources per skill)`,
        { code: "mcp-skill-too-many-files", path: skill.location },
      );
    }
    const folder = folderUri(skill.name);
    return [
      skillFile(skill),
      ...rels.map((rel) => ({ uri: `${folder}/${encodePath(rel)}`, rel, skillFile: false })),
    ];
  }

  /**
   * SKILL.md and every folder that holds a listed file, with their stat keys now: a file
   * added, removed or renamed in one of them (a nested SKILL.md too) changes its folder's key.
   * `undefined` when one is gone.
   */
  function stampsOf(skill: SkillMetadata, files: readonly ServedFile[]): Stamp[] | undefined {
    const root = dirname(skill.location);
    const paths = new Set<string>([skill.location, root]);
    for (const file of files) {
      const at = file.rel.lastIndexOf("/");
      if (!file.skillFile && at !== -1) paths.add(`${root}/${file.rel.slice(0, at)}`);
    }
    const stamps: Stamp[] = [];
    for (const path of paths) {
      const key = stampOf(path);
      if (key === undefined) return undefined;
      stamps.push({ path, key });
    }
    return stamps;
  }

  /**
   * What is known of a skill's files while the registry is the same and its stamps hold,
   * else a new walk. Stamps are SKILL.md and folders: a file added, removed or renamed over
   * changes its folder's; a file edited in place is caught by the entry's own keys.
   */
  async function knownOf(skill: SkillMetadata): Promise<Known> {
    const version = service.version;
    if (view.version !== version) {
      known.clear();
      view.version = version;
    }
    const had = known.get(skill.location);
    if (had?.skill === skill && had.stamps.every((s) => stampOf(s.path) === s.key)) return had;
    const files = await walkFiles(skill);
    const stamps = stampsOf(skill, files);
    if (!stamps || service.version !== version) {
      known.delete(skill.location);
      return { skill, files, stamps: [] };
    }
    const fresh: Known = { skill, files, stamps };
    known.set(skill.location, fresh);
    return fresh;
  }

  async function filesOf(skill: SkillMetadata): Promise<readonly ServedFile[]> {
    return (await knownOf(skill)).files;
  }

  const tooLarge: Refusal = { reason: `it is larger than the ${maxFileBytes} bytes this server serves` };

  /**
   * The stat key of a listed file, for the digest cache; why it cannot be served when it is
   * not a file or too large now; `undefined` when it is gone.
   */
  function statKey(
    skill: SkillMetadata,
    file: ServedFile,
  ): { path: string; key: string } | Refusal | undefined {
    try {
      const path = resolveInside(dirname(skill.location), file.rel);
      const stats = statSync(path);
      if (!stats.isFile()) return { reason: "it is not a file now" };
      if (stats.size > maxFileBytes) return tooLarge;
      return { path, key: keyOf(stats) };
    } catch (error) {
      const code = errnoOf(error);
      return code === "ENOENT" || code === "ENOTDIR" ? undefined : UNREADABLE;
    }
  }

  /** The bytes of a file, read through core now; why not, when core refuses; `undefined` when it is gone. */
  async function bytesOf(skill: SkillMetadata, file: ServedFile): Promise<Uint8Array | Refusal | undefined> {
    try {
      // For SKILL.md, core gives the bytes `read` parses, verified the same way: a file that no
      // longer parses to the registered skill (swapped for a link to a nested skill, or to
      // anything else) is refused.
      const bytes = await service.readFile(skill.name, file.skillFile ? SKILL_FILE : file.rel, agent);
      return bytes.byteLength > maxFileBytes ? tooLarge : bytes;
    } catch (error) {
      return refusalOf(error, tooLarge);
    }
  }

  /** Reads a file through core and refreshes its digest; the stat key is taken before the read. */
  async function serve(
    skill: SkillMetadata,
    file: ServedFile,
  ): Promise<{ bytes: Uint8Array; described: Described } | Refusal | undefined> {
    // Gone, refused or changed since it was last described: the next listing walks the skill
    // again instead of listing what it knew.
    const stat = statKey(skill, file);
    if (!stat || "reason" in stat) {
      known.delete(skill.location);
      return stat;
    }
    const bytes = await bytesOf(skill, file);
    if (!(bytes instanceof Uint8Array)) {
      known.delete(skill.location);
      return bytes;
    }
    const before = digests.get(stat.path);
    if (before !== undefined && before.key !== stat.key) known.delete(skill.location);
    const described: Described = {
      key: stat.key,
      digest: sha256Digest(bytes),
      size: bytes.byteLength,
      text: isUtf8(bytes),
    };
    digests.set(stat.path, described);
    return { bytes, described };
  }

  /** Digest, size and text-ness; the bytes are read only when the digest cache is stale. */
  async function describeFile(skill: SkillMetadata, file: ServedFile): Promise<Described | undefined> {
    const stat = statKey(skill, file);
    if (!stat || "reason" in stat) return undefined;
    const cached = digests.get(stat.path);
    if (cached?.key === stat.key) return cached;
    const served = await serve(skill, file);
    return served && "described" in served ? served.described : undefined;
  }

  /**
   * Every servable file of a skill with what is known of its bytes, SKILL.md first;
   * `undefined` when SKILL.md itself cannot be served (changed, gone, refused).
   */
  async function describedFiles(
    skill: SkillMetadata,
    files?: readonly ServedFile[],
  ): Promise<{ file: ServedFile; info: Described }[] | undefined> {
    const out: { file: ServedFile; info: Described }[] = [];
    for (const file of files ?? (await filesOf(skill))) {
      const info = await describeFile(skill, file);
      if (info) out.push({ file, info });
      else if (file.skillFile) return undefined;
    }
    return out.length === 0 ? undefined : out;
  }

  async function entryOf(skill: SkillMetadata): Promise<SkillEntry | undefined> {
    const had = await knownOf(skill);
    // A file edited in place keeps its folder's stamp: one stat per file says it changed.
    if (had.entry && had.entryKeys?.every((s) => stampOf(s.path) === s.key)) return had.entry;
    const files = await describedFiles(skill, had.files);
    if (!files) return undefined;
    const resources: SkillResourceRef[] = files.map(({ file, info }) => ({
      uri: file.uri,
      digest: info.digest,
      size: info.size,
    }));
    const bytes = files.reduce((sum, { info }) => sum + info.size, 0);
    if (bytes > SKILL_LIMITS.bytes) {
      warn(
        `bytes:${skill.location}:${bytes}`,
        `Skill ${skill.name} serves ${bytes} bytes, more than the ${SKILL_LIMITS.bytes} SEP-2640 hosts must accept per skill`,
        { code: "mcp-skill-too-large", path: skill.location },
      );
    }
    const entry: SkillEntry = { uri: skillUri(skill), frontmatter: skill.frontmatter, resources };
    // Kept only whole: a file that could not be described (gone, too large) is tried again.
    if (files.length === had.files.length) {
      const root = dirname(skill.location);
      had.entry = entry;
      had.entryKeys = files.map(({ file, info }) => ({
        path: file.skillFile ? skill.location : resolveInside(root, file.rel),
        key: info.key,
      }));
    }
    return entry;
  }

  return { servable, skillOf, folderUri, skillUri, skillFile, filesOf, entryOf, describedFiles, serve };
}

/** The protocol versions a server of {@link createSkillsServer} answers: 2026-07-28, and the 2025 line. */
export const PROTOCOL_VERSIONS: readonly string[] = ["2026-07-28", ...SUPPORTED_PROTOCOL_VERSIONS];

/** Options of {@link createSkillsServer}. */
export interface SkillsServerOptions extends RegisterSkillsOptions {
  /** Server name in the MCP handshake (default `skill`). */
  readonly name?: string;
  /** Server version in the MCP handshake (default `0.0.0`). */
  readonly version?: string;
}

/**
 * A new SDK v2 `Server` serving a {@link SkillService} (see {@link registerSkills}), speaking
 * protocol 2026-07-28 (`server/discover`) and the 2025 versions (`initialize`). One server is
 * one connection: hand this to the SDK's entries as the factory they call per connection
 * (`serveStdio(() => createSkillsServer(service))` of `@modelcontextprotocol/server/stdio`,
 * `createMcpHandler(() => createSkillsServer(service))` for Streamable HTTP).
 */
export function createSkillsServer(service: SkillService, options: SkillsServerOptions = {}): Server {
  const server = new Server(
    { name: options.name ?? "skill", version: options.version ?? "0.0.0" },
    { capabilities: {}, supportedProtocolVersions: [...PROTOCOL_VERSIONS] },
  );
  registerSkills(server, service, options);
  return server;
}
