import { isUtf8 } from "node:buffer";
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readFileSync,
  realpathSync,
  type Stats,
  statSync,
} from "node:fs";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { type AgentInfo, compareCodeUnits, type SkillMetadata, type SkillService } from "@skill/core";
import {
  DIRECTORY_MIME_TYPE,
  DirectoryReadRequest,
  decodeSegment,
  encodePath,
  INVALID_PARAMS,
  mimeTypeOf,
  ResourcesListRequest,
  ResourcesReadRequest,
  SKILL_FILE,
  SKILL_SCHEME,
  SKILLS_EXTENSION_ID,
  type SkillEntry,
  type SkillResourceRef,
  SkillsGetRequest,
  SkillsListRequest,
  sha256Digest,
} from "./protocol.js";

/** The SDK's `McpServer`, or the low-level `Server` under it (`mcpServer.server`). */
export type McpServerLike = Server | McpServer;

/** Options of {@link registerSkills}. */
export interface RegisterSkillsOptions {
  /** The agent whose permissions apply: only what `service.all(agent)` shows is served. */
  readonly agent?: AgentInfo;
  /** First URI segment, `skill://<prefix>/<name>/<file>` (default `skills`). */
  readonly prefix?: string;
  /** Entries per page of `skills/list`, `resources/list` and `resources/directory/read` (default 50). */
  readonly pageSize?: number;
  /** Bundled files served per skill, at most (default 1,000). */
  readonly maxFiles?: number;
  /** Largest file served, in bytes (default 10 MiB); larger files are left out. */
  readonly maxFileBytes?: number;
}

const DEFAULT_PREFIX = "skills";
const DEFAULT_PAGE_SIZE = 50;
const DEFAULT_MAX_FILES = 1_000;
const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;
const PREFIX_PATTERN = /^[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*$/;
const METHODS = [
  "skills/list",
  "skills/get",
  "resources/list",
  "resources/read",
  "resources/directory/read",
] as const;

/** One file served: its URI, the path inside the skill folder, and where it is read from. */
interface ServedFile {
  readonly uri: string;
  /** Relative to the skill folder, `/`-separated; `SKILL.md` for the skill file. */
  readonly rel: string;
  /** The real path read (symlinks resolved, checked to lie inside the skill folder). */
  readonly path: string;
}

interface Served {
  readonly bytes: Uint8Array;
  readonly digest: string;
  readonly text: boolean;
}

function invalid(message: string): McpError {
  return new McpError(INVALID_PARAMS, message);
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== "" && !rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel);
}

/** A cursor is an offset into a sorted listing, opaque to clients. */
function encodeCursor(offset: number): string {
  return Buffer.from(`o:${offset}`).toString("base64url");
}

function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const match = /^o:(\d+)$/.exec(Buffer.from(cursor, "base64url").toString());
  if (!match) throw invalid(`Invalid cursor: ${JSON.stringify(cursor.slice(0, 80))}`);
  return Number(match[1]);
}

function page<T>(items: readonly T[], cursor: string | undefined, size: number) {
  const offset = decodeCursor(cursor);
  const end = offset + size;
  return {
    items: items.slice(offset, end),
    ...(end < items.length ? { nextCursor: encodeCursor(end) } : {}),
  };
}

function checkCount(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new TypeError(`registerSkills: ${name} must be a whole number >= 1, found ${String(value)}`);
  }
  return value;
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
 * serves: SKILL.md and bundled files as they are on disk. Only files of the skill folder
 * (as `service.files` lists them, symlinks resolved and kept inside the folder) are served;
 * a nested skill's folder belongs to that skill, not to its parent. Skills that are not
 * files (memory, MCP) are not served.
 *
 * Call it before `connect`: capabilities cannot change afterwards. It owns `resources/list`
 * and `resources/read`, so the server must not register other resources.
 *
 * @example
 * const server = new McpServer({ name: "docs", version: "1.0.0" });
 * registerSkills(server, service, { agent: { name: "build" }, prefix: "docs" });
 * await server.connect(new StdioServerTransport());
 */
export function registerSkills(
  server: McpServerLike,
  service: SkillService,
  options: RegisterSkillsOptions = {},
): void {
  const low: Server =
    "server" in server && typeof server.server === "object" ? server.server : (server as Server);
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  if (!PREFIX_PATTERN.test(prefix)) {
    throw new TypeError(
      `registerSkills: prefix must be URI path segments of letters, digits and . _ ~ - (found ${JSON.stringify(prefix)})`,
    );
  }
  const agent = options.agent;
  const pageSize = checkCount(options.pageSize, DEFAULT_PAGE_SIZE, "pageSize");
  const maxFiles = checkCount(options.maxFiles, DEFAULT_MAX_FILES, "maxFiles");
  const maxFileBytes = checkCount(options.maxFileBytes, DEFAULT_MAX_FILE_BYTES, "maxFileBytes");
  const base = `${SKILL_SCHEME}${prefix}/`;
  const digests = new Map<string, { key: string; digest: string; text: boolean }>();

  for (const method of METHODS) low.assertCanSetRequestHandler(method);
  low.registerCapabilities({ resources: {}, extensions: { [SKILLS_EXTENSION_ID]: { directoryRead: true } } });

  const folderUri = (name: string) => `${base}${encodeURIComponent(name)}`;

  function servable(): SkillMetadata[] {
    return service.all(agent).filter((s) => isAbsolute(s.location));
  }

  /** The skill a URI belongs to, when the agent may see it; `undefined` otherwise. */
  function skillOf(uri: string): SkillMetadata | undefined {
    if (!uri.startsWith(base)) return undefined;
    const name = decodeSegment(uri.slice(base.length).split("/")[0] ?? "");
    const skill = service.get(name, agent);
    if (!skill || !isAbsolute(skill.location) || !uri.startsWith(`${folderUri(skill.name)}`))
      return undefined;
    return skill;
  }

  function real(path: string): string | undefined {
    try {
      return realpathSync(path);
    } catch {
      return undefined;
    }
  }

  async function filesOf(skill: SkillMetadata): Promise<ServedFile[]> {
    const dir = dirname(skill.location);
    let rels: string[];
    try {
      rels = await service.files(skill.name, agent, { limit: maxFiles });
    } catch {
      return []; // the skill went away or became hidden since it was listed
    }
    const nested = rels
      .filter((r) => r.endsWith(`/${SKILL_FILE}`))
      .map((r) => r.slice(0, -SKILL_FILE.length));
    const root = real(dir) ?? dir;
    const files: ServedFile[] = [skillFile(skill)];
    for (const rel of rels) {
      if (nested.some((n) => rel.startsWith(n))) continue;
      const path = real(join(dir, rel));
      if (path === undefined || !inside(root, path)) continue;
      files.push({ uri: `${folderUri(skill.name)}/${encodePath(rel)}`, rel, path });
    }
    return files;
  }

  function skillFile(skill: SkillMetadata): ServedFile {
    return { uri: `${folderUri(skill.name)}/${SKILL_FILE}`, rel: SKILL_FILE, path: skill.location };
  }

  function cacheKey(stats: Stats): string {
    return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}`;
  }

  // Synchronous reads: a page of skills costs thousands of tiny file operations, and one
  // thread-pool round trip each would make a listing take seconds. Handlers yield between skills.
  function serve(file: ServedFile): Served | undefined {
    let fd: number;
    try {
      // Non-blocking open: a FIFO swapped in for a file must not hang the server.
      fd = openSync(file.path, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch {
      return undefined;
    }
    try {
      const stats = fstatSync(fd);
      if (!stats.isFile() || stats.size > maxFileBytes) return undefined;
      const bytes = new Uint8Array(readFileSync(fd));
      const key = cacheKey(stats);
      const cached = digests.get(file.path);
      if (cached?.key === key) return { bytes, digest: cached.digest, text: cached.text };
      const served = { bytes, digest: sha256Digest(bytes), text: isUtf8(bytes) };
      digests.set(file.path, { key, digest: served.digest, text: served.text });
      return served;
    } catch {
      return undefined;
    } finally {
      closeSync(fd);
    }
  }

  /** Digest, size and text-ness; the bytes are read only when the digest cache is stale. */
  function describeFile(file: ServedFile): (SkillResourceRef & { text: boolean }) | undefined {
    let stats: Stats;
    try {
      stats = statSync(file.path);
    } catch {
      return undefined;
    }
    if (!stats.isFile() || stats.size > maxFileBytes) return undefined;
    const cached = digests.get(file.path);
    const info = cached?.key === cacheKey(stats) ? cached : serve(file);
    if (!info) return undefined;
    const mimeType = mimeTypeOf(file.rel, info.text);
    return { uri: file.uri, digest: info.digest, mimeType, size: stats.size, text: info.text };
  }

  async function entryOf(skill: SkillMetadata): Promise<SkillEntry> {
    const resources: SkillResourceRef[] = [];
    for (const file of await filesOf(skill)) {
      const ref = describeFile(file);
      if (!ref) continue;
      const { text: _text, ...plain } = ref;
      resources.push(plain);
    }
    return { uri: `${folderUri(skill.name)}/${SKILL_FILE}`, frontmatter: skill.frontmatter, resources };
  }

  low.setRequestHandler(SkillsListRequest, async (request) => {
    const { items, ...rest } = page(servable(), request.params?.cursor, pageSize);
    const skills: SkillEntry[] = [];
    for (const skill of items) {
      skills.push(await entryOf(skill));
      await yieldToEventLoop();
    }
    return { skills, ...rest };
  });

  low.setRequestHandler(SkillsGetRequest, async (request) => {
    const uri = request.params.uri;
    const skill = skillOf(uri);
    if (!skill || uri !== `${folderUri(skill.name)}/${SKILL_FILE}`) throw invalid(`Unknown skill: ${uri}`);
    return { skill: await entryOf(skill) };
  });

  low.setRequestHandler(ResourcesListRequest, async (request) => {
    const all: { uri: string; name: string; mimeType: string; size: number; description?: string }[] = [];
    for (const skill of servable()) {
      await yieldToEventLoop();
      for (const file of await filesOf(skill)) {
        const ref = describeFile(file);
        if (!ref) continue;
        all.push({
          uri: ref.uri,
          name: file.rel === SKILL_FILE ? skill.name : `${skill.name}/${file.rel}`,
          mimeType: ref.mimeType ?? "application/octet-stream",
          size: ref.size ?? 0,
          ...(file.rel === SKILL_FILE ? { description: skill.description } : {}),
        });
      }
    }
    const { items, ...rest } = page(all, request.params?.cursor, pageSize);
    return { resources: items, ...rest };
  });

  low.setRequestHandler(ResourcesReadRequest, async (request) => {
    const uri = request.params.uri;
    const skill = skillOf(uri);
    const file = !skill
      ? undefined
      : uri === skillFile(skill).uri
        ? skillFile(skill)
        : (await filesOf(skill)).find((f) => f.uri === uri);
    const served = file ? serve(file) : undefined;
    if (!file || !served) throw invalid(`Unknown resource: ${uri}`);
    const mimeType = mimeTypeOf(file.rel, served.text);
    return {
      contents: [
        served.text
          ? { uri, mimeType, text: Buffer.from(served.bytes).toString("utf8") }
          : { uri, mimeType, blob: Buffer.from(served.bytes).toString("base64") },
      ],
    };
  });

  low.setRequestHandler(DirectoryReadRequest, async (request) => {
    const uri = request.params.uri.replace(/\/$/, "");
    const skill = skillOf(uri);
    if (!skill) throw invalid(`Unknown directory: ${request.params.uri}`);
    const folder = folderUri(skill.name);
    const dir = uri === folder ? "" : uri.startsWith(`${folder}/`) ? uri.slice(folder.length + 1) : undefined;
    if (dir === undefined) throw invalid(`Unknown directory: ${request.params.uri}`);
    const rel = dir === "" ? "" : `${dir.split("/").map(decodeSegment).join("/")}/`;
    const children = new Map<string, { uri: string; name: string; mimeType: string }>();
    for (const file of await filesOf(skill)) {
      if (!file.rel.startsWith(rel)) continue;
      const rest = file.rel.slice(rel.length);
      const slash = rest.indexOf("/");
      const name = slash === -1 ? rest : rest.slice(0, slash);
      if (children.has(name)) continue;
      const child = `${folder}/${encodePath(rel + name)}`;
      children.set(name, {
        uri: child,
        name,
        mimeType: slash === -1 ? mimeTypeOf(file.rel, true) : DIRECTORY_MIME_TYPE,
      });
    }
    if (children.size === 0) throw invalid(`Unknown directory: ${request.params.uri}`);
    const sorted = [...children.values()].sort((a, b) => compareCodeUnits(a.name, b.name));
    const { items, ...rest } = page(sorted, request.params.cursor, pageSize);
    return { resources: items, ...rest };
  });
}
