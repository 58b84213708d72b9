import { type McpServer, Server, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import type { AgentInfo, DigestMemo, Logger, SkillService } from "@skill/core";
import { SkillCatalog } from "./catalog.js";
import { sharedOf } from "./catalog-cache.js";
import { answerSkills, METHODS } from "./handlers.js";
import { invalidOption, wholeOption } from "./options.js";
import { SKILL_LIMITS, SKILLS_EXTENSION_ID, type SkillCacheScope } from "./protocol.js";

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
   * How long a check of a skill's files answers for, in ms (default 0). A check is a `stat` of
   * each file listed and of the folders holding them; requests that arrive while one is under
   * way share it. Above 0, `skills/list`, `skills/get` and `resources/read` take what a check
   * begun within this long found: a file added, removed or edited is listed within `recheckMs`
   * instead of at once (a file read is listed with the digest of the bytes served at once
   * still), and a server under load stats each file once per `recheckMs`, not once per listing.
   */
  readonly recheckMs?: number;
  /**
   * Where a skill past SEP-2640's limits (512 resources, 16 MiB) is reported, as a warning
   * (`mcp-skill-too-many-files`, `mcp-skill-too-large`). The skill is still served, cut to `maxFiles`.
   */
  readonly logger?: Logger;
  /**
   * Core's `digestMemo()` to take the digests of served files from (default: one per service,
   * shared by every server of it). Pass one to share it wider, or to watch its `stats()`.
   */
  readonly digests?: DigestMemo;
}

const DEFAULT_PREFIX = "skills";
const DEFAULT_PAGE_SIZE = 50;
const DEFAULT_MAX_FILES = SKILL_LIMITS.files - 1;
const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;
const PREFIX_PATTERN = /^([A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*)?$/;

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
  const digests = options.digests;
  if (
    digests !== undefined &&
    (typeof digests !== "object" || digests === null || typeof digests.digest !== "function")
  ) {
    throw invalidOption(fn, "digests", "a digestMemo() of @skill/core", digests);
  }
  return {
    prefix,
    digests,
    pageSize: wholeOption(fn, "pageSize", options.pageSize, DEFAULT_PAGE_SIZE, 1),
    maxFiles: wholeOption(fn, "maxFiles", options.maxFiles, DEFAULT_MAX_FILES, 1),
    maxFileBytes: wholeOption(fn, "maxFileBytes", options.maxFileBytes, DEFAULT_MAX_FILE_BYTES, 1),
    recheckMs: wholeOption(fn, "recheckMs", options.recheckMs, 0, 0),
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
 * (`service.version`) and the folders holding its files keep their state (core's `FileKey`:
 * device, inode, size, mtime, change time): a file added, removed or renamed over (SKILL.md
 * too) is listed anew at once. Digests come from core's digest memo (`digests`), which hashes a
 * file once while it keeps its state (an edit in place that puts size and mtime back still
 * moves the change time), however many clients ask at once, and again when it was racily
 * clean. Bytes are
 * always read when served, and a listing after a read shows the digest of the bytes served.
 * What is kept is shared by every server of the same service, whatever its agent: file lists
 * and entries by skill (and `prefix` and limits), the list of skills served by the set of names
 * an agent may see. A server made per request or per session walks and hashes nothing again,
 * and two sessions whose agents see the same skills share one copy.
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
 *   segments, a `pageSize`, `maxFiles`, `maxFileBytes`, `ttlMs` or `recheckMs` that is not a whole number
 *   in range, a `cacheScope` other than `"public"` or `"private"`, a `digests` that is not a
 *   digest memo)
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
  const shared = sharedOf(service);
  const catalog = new SkillCatalog(service, shared, {
    prefix: checked.prefix,
    maxFiles: checked.maxFiles,
    maxFileBytes: checked.maxFileBytes,
    recheckMs: checked.recheckMs,
    agent: options.agent,
    logger: options.logger,
    memo: checked.digests ?? shared.memo,
  });
  answerSkills(low, catalog, checked);
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
