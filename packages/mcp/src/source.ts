import {
  abortError,
  compareCodeUnits,
  type Diagnostic,
  errorMessage,
  isDigest,
  originLabel,
  parseSkill,
  printable,
  quote,
  type ScanContext,
  SkillError,
  type SkillHead,
  type SkillSource,
  type SourceEntry,
  sha256Digest,
} from "@skill/core";
import { wholeOption } from "./options.js";
import {
  anyResult,
  decodeSegment,
  METHOD_NOT_FOUND,
  REQUEST_TIMEOUT,
  SKILL_FILE,
  SKILL_LIMITS,
  SKILL_SCHEME,
  SKILLS_EXTENSION_ID,
} from "./protocol.js";

/**
 * What `mcpSource` needs of an MCP client: the SDK's `Client` (`@modelcontextprotocol/client`,
 * 2.x) fits, and so does anything that sends a JSON-RPC request and resolves with its result.
 * `resultSchema` is a loose zod object schema (the SDK validates against it); answers are
 * checked here.
 */
export interface McpClientLike {
  request(
    request: { method: string; params?: Record<string, unknown> },
    resultSchema: unknown,
    options?: { signal?: AbortSignal; timeout?: number },
  ): Promise<unknown>;
}

/** Options of {@link mcpSource}. */
export interface McpSourceOptions {
  /** Source id in reports and diagnostics (default `mcp`). */
  readonly id?: string;
  /** Cancels every request of this source (as `ctx.signal` does for one scan or read). */
  readonly signal?: AbortSignal;
  /**
   * One deadline for the whole server, in ms (default 30,000): the listing and every read a
   * load needs share it, however many pages and skills there are. What was listed before it
   * passed is kept, with a warning. A later `read` or `readFile` gets as long again.
   */
  readonly timeoutMs?: number;
  /** Most `skills/list` pages followed (default 100); a longer listing is cut with a warning. */
  readonly maxPages?: number;
  /**
   * Most skills taken from the server (default 10,000); the rest of the listing is left out
   * with a warning. (512 is SEP-2640's cap on the resources of one skill, not on skills.)
   */
  readonly maxSkills?: number;
  /**
   * Take `allowed-tools` from this server's skills (default `false`: the field is checked
   * against the listing like every field, then left out of the skill, with a `field-ignored`
   * warning — a server should not grant its skills tools the harness did not choose to give).
   */
  readonly trustAllowedTools?: boolean;
}

/** Default deadline for one server, in ms. */
export const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_PAGES = 100;
/** Default most skills taken from one server. */
export const DEFAULT_MAX_SKILLS = 10_000;

/** A resource as listed: what its bytes must be. */
interface ListedResource {
  readonly uri: string;
  readonly digest?: string;
  /** Bytes, when the listing gave a whole number >= 0. */
  readonly size?: number;
}

interface Listed {
  readonly uri: string;
  /** Why the skill fails when it is loaded, found in the listing alone. */
  readonly refused?: SkillError;
  /** `resources: "dynamic"`: the server lists no files to verify against. */
  readonly dynamic?: boolean;
  /** The folder URI: the skill URI without `/SKILL.md`. */
  readonly folder: string;
  /** The decoded last path segment before SKILL.md: what the frontmatter name must be. */
  readonly segment: string;
  /** The listed frontmatter, when it is a mapping: the skill registers from it without a read. */
  readonly frontmatter?: Readonly<Record<string, unknown>>;
  readonly resources?: readonly ListedResource[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function errorCode(error: unknown): number | undefined {
  const code = isRecord(error) || error instanceof Error ? (error as { code?: unknown }).code : undefined;
  // The SDK's v2 line reports its own timeout as an SdkError with a string code.
  if (code === "REQUEST_TIMEOUT") return REQUEST_TIMEOUT;
  return typeof code === "number" ? code : undefined;
}

/**
 * The numeric options of a source, checked: `fn` names the function given them in the
 * `INVALID_FIELD` error for one that is not a whole number >= 1.
 */
export function sourceLimits(options: McpSourceOptions, fn: string) {
  return {
    timeout: wholeOption(fn, "timeoutMs", options.timeoutMs, DEFAULT_TIMEOUT_MS, 1),
    maxPages: wholeOption(fn, "maxPages", options.maxPages, DEFAULT_MAX_PAGES, 1),
    maxSkills: wholeOption(fn, "maxSkills", options.maxSkills, DEFAULT_MAX_SKILLS, 1),
  };
}

/** Thrown inside a scan when the server's deadline passed. */
class DeadlinePassed extends Error {}

function combine(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  if (!a) return b;
  if (!b) return a;
  return AbortSignal.any([a, b]);
}

/**
 * A {@link SkillSource} over a connected MCP client: the skills the server lists with
 * `skills/list` (SEP-2640). Nothing is read ahead of need: each entry carries a `head` from
 * the listing (frontmatter, and the digest and size of SKILL.md), so loading the registry
 * costs the listing alone; `SkillService.read` fetches SKILL.md with `resources/read` and
 * `SkillService.readFile` a listed file, each checked against what the listing said.
 *
 * - Every entry has `origin: "mcp:<label>"`, the label of the source id (`mcp:docs` → `docs`).
 * - `allowed-tools` is left out of the skills (a `field-ignored` warning) unless `trustAllowedTools`.
 * - Bytes that do not match the listed digest or size, or SKILL.md whose frontmatter differs
 *   from the listed one, reject `INTEGRITY_ERROR` when read; the registry keeps the skill.
 * - The last URI path segment before `SKILL.md` must equal the frontmatter `name`, else the
 *   skill fails with `INVALID_FIELD`. A one-segment URI (`skill://pdf/SKILL.md`) is valid.
 * - A skill listed without a frontmatter mapping is read when the registry loads (its name
 *   is not known otherwise); one listed without `resources` loads with a warning (nothing to
 *   verify, no files).
 * - Nested skills: a `SKILL.md` among another skill's resources is never loaded from that
 *   listing, and the files of its folder are not the parent's files; a nested skill the
 *   server lists itself loads as its own skill.
 * - A server without the extension, an answer that is not a listing, a timeout: a
 *   diagnostic of the scan, no skills, no crash. An abort rejects `ABORTED`.
 *
 * @example
 * const client = new Client({ name: "my-agent", version: "1.0.0" });
 * await client.connect(new StdioClientTransport({ command: "my-mcp-server" }));
 * const service = new SkillService({ sources: [...discoverySources({ cwd }), mcpSource(client, { id: "mcp:docs" })] });
 *
 * @throws SkillError `INVALID_FIELD` for a `timeoutMs`, `maxPages` or `maxSkills` that is not a
 *   whole number >= 1
 */
export function mcpSource(client: McpClientLike, options: McpSourceOptions = {}): SkillSource {
  const id = options.id ?? "mcp";
  const { timeout, maxPages, maxSkills } = sourceLimits(options, "mcpSource");
  const origin = `mcp:${originLabel(id)}`;
  const ignoreFields: readonly string[] = options.trustAllowedTools ? [] : ["allowed-tools"];

  /**
   * One request, answered before `deadline` (ms since the epoch) or failed as a timeout,
   * whether or not the client honours its own timeout and signal.
   */
  async function call(
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal | undefined,
    deadline: number = Date.now() + timeout,
  ): Promise<Record<string, unknown>> {
    if (signal?.aborted) throw abortError(signal, `${method} on ${id} was aborted`);
    const left = deadline - Date.now();
    if (left <= 0) throw new DeadlinePassed();
    const expiry = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        expiry.abort();
        reject(new DeadlinePassed());
      }, left);
    });
    // AbortSignal.any, not a listener on `signal` per request: many reads in flight on one
    // signal would otherwise trip Node's MaxListenersExceededWarning.
    const both = signal ? AbortSignal.any([signal, expiry.signal]) : expiry.signal;
    const cancelled = signal
      ? new Promise<never>((_, reject) => {
          both.addEventListener("abort", () => reject(abortError(signal, `${method} on ${id} was aborted`)), {
            once: true,
          });
        })
      : undefined;
    // Raced below; once the race is over, a later abort must not be an unhandled rejection.
    cancelled?.catch(() => undefined);
    expired.catch(() => undefined);
    try {
      const result: unknown = await Promise.race([
        client.request({ method, params }, anyResult, { timeout: left, signal: both }),
        expired,
        ...(cancelled ? [cancelled] : []),
      ]);
      if (!isRecord(result)) {
        throw new SkillError(
          "REMOTE_ERROR",
          `Remote fetch failed: ${method} on ${id} answered ${quote(result)}`,
        );
      }
      return result;
    } catch (error) {
      if (signal?.aborted) throw abortError(signal, `${method} on ${id} was aborted`);
      if (expiry.signal.aborted || errorCode(error) === REQUEST_TIMEOUT) throw new DeadlinePassed();
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  // Warnings, as for an unavailable remote pack: what the source could not use never stops
  // the skills it did find (or the other sources) from loading.
  function diagnostic(code: string, message: string, path = id): Diagnostic {
    return { code, severity: "warning", message, path, source: id };
  }

  async function list(
    signal: AbortSignal | undefined,
    deadline: number,
    diagnostics: Diagnostic[],
  ): Promise<Listed[]> {
    const found = new Map<string, Listed>();
    const seen = new Set<string>();
    let cursor: string | undefined;
    listing: for (let page = 0; ; page++) {
      if (page === maxPages) {
        diagnostics.push(
          diagnostic(
            "mcp-page-limit",
            `${id}: skills/list still had more pages after ${maxPages}; the rest of the listing was left out`,
          ),
        );
        break;
      }
      let result: Record<string, unknown>;
      try {
        result = await call("skills/list", cursor === undefined ? {} : { cursor }, signal, deadline);
      } catch (error) {
        if (SkillError.isInstance(error) && error.code === "ABORTED") throw error;
        const code = errorCode(error);
        if (error instanceof DeadlinePassed) {
          diagnostics.push(
            diagnostic(
              "mcp-timeout",
              `${id}: skills/list got no answer within the ${timeout} ms deadline${found.size > 0 ? `; the ${found.size} skills listed before it are kept` : ""}`,
            ),
          );
        } else if (code === METHOD_NOT_FOUND) {
          diagnostics.push(
            diagnostic(
              "mcp-no-skills",
              `${id}: the server does not offer skills (skills/list: method not found; it does not implement ${quote(SKILLS_EXTENSION_ID)})`,
            ),
          );
        } else {
          diagnostics.push(
            diagnostic("mcp-error", `${id}: skills/list failed: ${printable(errorMessage(error))}`),
          );
        }
        break;
      }
      const skills = result.skills;
      if (!Array.isArray(skills)) {
        diagnostics.push(
          diagnostic(
            "mcp-invalid-response",
            `${id}: skills/list answered without a \`skills\` list (found ${quote(result)})`,
          ),
        );
        break;
      }
      for (const raw of skills) {
        const entry = checkEntry(raw, diagnostics);
        if (!entry) continue;
        if (found.size >= maxSkills && !found.has(entry.uri)) {
          diagnostics.push(
            diagnostic(
              "mcp-skill-limit",
              `${id}: skills/list holds more than ${maxSkills} skills (maxSkills); the rest of the listing was left out`,
            ),
          );
          break listing;
        }
        found.set(entry.uri, entry);
      }
      const next = result.nextCursor;
      if (next === undefined || next === null || next === "") break;
      if (typeof next !== "string" || seen.has(next)) {
        diagnostics.push(
          diagnostic(
            "mcp-invalid-response",
            `${id}: skills/list gave ${typeof next === "string" ? "a cursor it had already given" : "a nextCursor that is not a string"} (${quote(next)}); the listing stops there`,
          ),
        );
        break;
      }
      seen.add(next);
      cursor = next;
    }
    return [...found.values()];
  }

  function checkEntry(raw: unknown, diagnostics: Diagnostic[]): Listed | undefined {
    const uri = isRecord(raw) ? raw.uri : undefined;
    if (
      typeof uri !== "string" ||
      !uri.startsWith(SKILL_SCHEME) ||
      !uri.endsWith(`/${SKILL_FILE}`) ||
      uri.includes("?") ||
      uri.includes("#")
    ) {
      diagnostics.push(
        diagnostic(
          "mcp-invalid-entry",
          `${id}: skills/list holds an entry without a skill://…/SKILL.md uri (found ${quote(raw)}); it was skipped`,
        ),
      );
      return undefined;
    }
    const folder = uri.slice(0, -`/${SKILL_FILE}`.length);
    const segments = folder.slice(SKILL_SCHEME.length).split("/");
    const last = segments[segments.length - 1] ?? "";
    if (segments.some((s) => s === "" || s === "." || s === "..")) {
      diagnostics.push(
        diagnostic(
          "mcp-invalid-entry",
          `${id}: skill URI ${quote(uri)} has no skill folder (expected skill://<name>/SKILL.md or skill://<prefix>/<name>/SKILL.md); it was skipped`,
          uri,
        ),
      );
      return undefined;
    }
    const record = raw as Record<string, unknown>;
    const listed = {
      uri,
      folder,
      segment: decodeSegment(last),
      ...(isRecord(record.frontmatter) ? { frontmatter: record.frontmatter } : {}),
    };
    if (record.resources === "dynamic") return { ...listed, dynamic: true };
    if (!Array.isArray(record.resources)) {
      diagnostics.push(
        diagnostic(
          "mcp-no-resources",
          `${id}: ${uri} is listed without resources: its SKILL.md cannot be checked against a digest and it has no bundled files`,
          uri,
        ),
      );
      return listed;
    }
    const resources: ListedResource[] = [];
    let bytes = 0;
    for (const r of record.resources) {
      if (isRecord(r) && typeof r.size === "number" && Number.isSafeInteger(r.size) && r.size >= 0) {
        bytes += r.size;
      }
      if (!isRecord(r) || typeof r.uri !== "string") continue;
      resources.push({
        uri: r.uri,
        ...(typeof r.digest === "string" ? { digest: r.digest } : {}),
        ...(typeof r.size === "number" && Number.isSafeInteger(r.size) && r.size >= 0
          ? { size: r.size }
          : {}),
      });
    }
    // A host accepts skills up to SEP-2640's limits; past them the skill fails alone.
    const over =
      record.resources.length > SKILL_LIMITS.files
        ? `${record.resources.length} resources (at most ${SKILL_LIMITS.files} are accepted)`
        : bytes > SKILL_LIMITS.bytes
          ? `${bytes} bytes of resources (at most ${SKILL_LIMITS.bytes} are accepted)`
          : undefined;
    if (over !== undefined) {
      const refused = new SkillError("LIMIT_EXCEEDED", `${id}: ${uri} lists ${over}`, { path: uri });
      return { ...listed, resources, refused };
    }
    return { ...listed, resources };
  }

  /**
   * The files a listing gives a skill, by path: its resources under its folder, without
   * SKILL.md and without those of other skills inside it (listed skills, and SKILL.md files
   * among the resources), whose files belong to them, never to this skill.
   */
  function ownFiles(skill: Listed, folders: ReadonlySet<string>): Map<string, ListedResource> {
    const prefix = `${skill.folder}/`;
    const inner = new Set<string>();
    for (const r of skill.resources ?? []) {
      if (r.uri !== skill.uri && r.uri.startsWith(prefix) && r.uri.endsWith(`/${SKILL_FILE}`)) {
        inner.add(r.uri.slice(0, -`/${SKILL_FILE}`.length));
      }
    }
    const nested = (uri: string) => {
      for (let at = uri.lastIndexOf("/"); at > skill.folder.length; at = uri.lastIndexOf("/", at - 1)) {
        const folder = uri.slice(0, at);
        if (folders.has(folder) || inner.has(folder)) return true;
      }
      return false;
    };
    const files = new Map<string, ListedResource>();
    for (const r of skill.resources ?? []) {
      if (r.uri === skill.uri || !r.uri.startsWith(prefix) || nested(r.uri)) continue;
      files.set(r.uri.slice(prefix.length).split("/").map(decodeSegment).join("/"), r);
    }
    return files;
  }

  /** `loadDeadline`: the scan's deadline, which the first read of a skill listed without a head shares. */
  function toEntry(skill: Listed, folders: ReadonlySet<string>, loadDeadline: number): SourceEntry {
    let firstRead: number | undefined = loadDeadline;
    const own = skill.resources?.find((r) => r.uri === skill.uri);
    // The skill's own files, worked out when they are first asked for: a load asks for none.
    let files: Map<string, ListedResource> | undefined;
    const filesOf = () => (files ??= ownFiles(skill, folders));

    if (skill.refused) {
      const error = skill.refused;
      return {
        location: skill.uri,
        origin,
        read: async () => {
          throw error;
        },
      };
    }
    if (skill.frontmatter) {
      const named = skill.frontmatter.name;
      if (typeof named === "string" && named.trim() !== skill.segment) {
        // Fails this skill alone when the registry loads it, without asking the server anything.
        const error = nameMismatch(skill, named.trim());
        return {
          location: skill.uri,
          origin,
          read: async () => {
            throw error;
          },
        };
      }
    }
    const head: SkillHead | undefined = skill.frontmatter && {
      frontmatter: skill.frontmatter,
      ...(isDigest(own?.digest) ? { digest: own.digest } : {}),
      ...(own?.size === undefined ? {} : { size: own.size }),
    };
    return {
      location: skill.uri,
      origin,
      ...(ignoreFields.length > 0 ? { ignoreFields } : {}),
      ...(head ? { head } : {}),
      read: async (ctx: ScanContext) => {
        // Only a skill listed without a head is read while the registry loads: that read
        // shares the server's deadline; every later read gets a deadline of its own.
        const deadline = head ? undefined : firstRead;
        firstRead = undefined;
        const bytes = await readResource(skill.uri, combine(options.signal, ctx.signal), deadline);
        // Without resources (or with "dynamic" ones) the listing promised no bytes to check;
        // the frontmatter is still checked against the head.
        if (skill.resources) verify(skill.uri, bytes, own, ctx);
        // With a head, core checks every frontmatter field against the listing (whose name
        // was checked at scan): a name that differs is then the INTEGRITY_ERROR it is.
        if (!head) checkName(skill, bytes);
        return bytes;
      },
      listFiles: async () => [...filesOf().keys()],
      readFile: async (path: string, ctx: ScanContext) => {
        const listed = filesOf().get(path);
        if (!listed) {
          throw new SkillError("NOT_FOUND", `${id}: ${skill.uri} lists no file ${quote(path)}`, { path });
        }
        const bytes = await readResource(listed.uri, combine(options.signal, ctx.signal));
        verify(listed.uri, bytes, listed, ctx);
        return bytes;
      },
    };
  }

  /** Bytes a server served, against what it listed for them: size, then digest. */
  function verify(
    uri: string,
    bytes: Uint8Array,
    listed: ListedResource | undefined,
    ctx: ScanContext,
  ): void {
    if (listed?.size !== undefined && bytes.byteLength !== listed.size) {
      throw new SkillError(
        "INTEGRITY_ERROR",
        `Size mismatch for ${uri}: ${id} listed ${listed.size} bytes, it served ${bytes.byteLength}`,
        { path: uri },
      );
    }
    const digest = listed?.digest;
    if (digest === undefined) {
      ctx.logger?.warn(`${id}: ${uri} is listed without a digest; it was read unchecked`, {
        code: "mcp-no-digest",
        path: uri,
        source: id,
      });
      return;
    }
    const actual = sha256Digest(bytes);
    if (!isDigest(digest) || actual !== digest) {
      throw new SkillError(
        "INTEGRITY_ERROR",
        `Digest mismatch for ${uri}: ${id} listed ${quote(digest, 80)}, the bytes it served hash to ${actual}`,
        { path: uri },
      );
    }
  }

  function nameMismatch(skill: Listed, name: string): SkillError {
    return new SkillError(
      "INVALID_FIELD",
      `Skill ${skill.uri} names itself ${quote(name)}: the last URI path segment before SKILL.md (${quote(skill.segment)}) must equal the frontmatter name`,
      { path: skill.uri, field: "name" },
    );
  }

  function checkName(skill: Listed, bytes: Uint8Array): void {
    let name: string;
    try {
      name = parseSkill(new TextDecoder().decode(bytes), skill.uri, {
        maxBytes: Number.POSITIVE_INFINITY,
      }).skill.name;
    } catch {
      return; // the registry reports a file that does not parse, with its own rules
    }
    if (name !== skill.segment) throw nameMismatch(skill, name);
  }

  async function readResource(
    uri: string,
    signal: AbortSignal | undefined,
    deadline?: number,
  ): Promise<Uint8Array> {
    let result: Record<string, unknown>;
    try {
      result = await call("resources/read", { uri }, signal, deadline);
    } catch (error) {
      if (SkillError.isInstance(error)) throw error;
      const reason =
        error instanceof DeadlinePassed || errorCode(error) === REQUEST_TIMEOUT
          ? `no answer within ${timeout} ms`
          : printable(errorMessage(error));
      throw new SkillError("REMOTE_ERROR", `Remote fetch failed: resources/read ${uri} on ${id}: ${reason}`, {
        path: uri,
        cause: error,
      });
    }
    const contents = Array.isArray(result.contents) ? result.contents.filter(isRecord) : [];
    const content = contents.find((c) => c.uri === uri) ?? (contents.length === 1 ? contents[0] : undefined);
    if (content && typeof content.text === "string") return new TextEncoder().encode(content.text);
    if (content && typeof content.blob === "string")
      return new Uint8Array(Buffer.from(content.blob, "base64"));
    throw new SkillError(
      "REMOTE_ERROR",
      `Remote fetch failed: resources/read ${uri} on ${id} answered without text or blob contents for it (found ${quote(result)})`,
      { path: uri },
    );
  }

  return {
    id,
    async scan(ctx: ScanContext) {
      const signal = combine(options.signal, ctx.signal);
      if (signal?.aborted) throw abortError(signal, `Listing the skills of ${id} was aborted`);
      const diagnostics: Diagnostic[] = [];
      const deadline = Date.now() + timeout;
      const listed = await list(signal, deadline, diagnostics);
      const folders = new Set(listed.map((s) => s.folder));
      const entries = listed
        .sort((a, b) => compareCodeUnits(a.uri, b.uri))
        .map((skill) => toEntry(skill, folders, deadline));
      return { entries, dirs: [], diagnostics };
    },
  };
}
