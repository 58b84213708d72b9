import {
  abortError,
  compareCodeUnits,
  type Diagnostic,
  originLabel,
  type ScanContext,
  type SkillSource,
  type SourceScan,
} from "@skill/core";
import { toEntry } from "./listed-skill.js";
import { wholeOption } from "./options.js";
import { listSkills } from "./skill-listing.js";
import { combine, type McpClientLike, type SourceContext } from "./source-request.js";

export type { McpClientLike } from "./source-request.js";

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
  const source: SourceContext = {
    client,
    id,
    origin: `mcp:${originLabel(id)}`,
    timeout,
    maxPages,
    maxSkills,
    ignoreFields: options.trustAllowedTools ? [] : ["allowed-tools"],
    signal: options.signal,
  };
  return { id, scan: (ctx: ScanContext) => scan(source, ctx) };
}

/** One load: the listing, sorted by URI, each skill an entry that reads only when asked. */
async function scan(source: SourceContext, ctx: ScanContext): Promise<SourceScan> {
  const signal = combine(source.signal, ctx.signal);
  if (signal?.aborted) throw abortError(signal, `Listing the skills of ${source.id} was aborted`);
  const diagnostics: Diagnostic[] = [];
  const deadline = Date.now() + source.timeout;
  const listed = await listSkills(source, signal, deadline, diagnostics);
  const folders = new Set(listed.map((s) => s.folder));
  const entries = listed
    .sort((a, b) => compareCodeUnits(a.uri, b.uri))
    .map((skill) => toEntry(source, skill, folders, deadline));
  return { entries, dirs: [], diagnostics };
}
