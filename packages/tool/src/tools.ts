import { isUtf8 } from "node:buffer";
import {
  type AgentInfo,
  errorMessage,
  formatBytes,
  originRank,
  type ScanContext,
  SkillError,
  type SkillMetadata,
  type SkillSearch,
  type SkillService,
  similarNames,
} from "@skill/core";
import { type CatalogResult, formatCatalog, formatSkillContent } from "@skill/format";
import { changeNote, type Snapshot, snapshot } from "./changes.js";

/** `key (displayName)`, as catalogs name a skill keyed by its folder. */
const LABEL = /^(.+) \((.+)\)$/s;

import { checkInput, DEFAULT_SEARCH_LIMIT, type JsonSchema, SEARCH_INPUT, SKILL_INPUT } from "./schema.js";

/** The name of the tool that loads a skill. */
export const SKILL_TOOL = "skill";
/** The name of the tool that searches skills. */
export const SEARCH_TOOL = "skill_search";
/** Size of the catalog in the `skill` tool's description, in characters (or `measure` units). */
export const DEFAULT_TOOL_BUDGET = 8000;

/** Options of {@link skillTools}. */
export interface SkillToolOptions {
  /** The agent whose permissions apply: denied skills are absent from every tool. */
  readonly agent: AgentInfo;
  /**
   * A search over skills (e.g. `createSkillIndex([])` from `@skill/search`). The tools feed it
   * `service.all(agent)` through `replace()` whenever the registry changes, and offer
   * `skill_search` whenever the catalog leaves a skill out or lists it without its description.
   */
  readonly search?: SkillSearch;
  /** Size of the catalog in the `skill` tool's description. Default 8,000 characters. */
  readonly budget?: number;
  /** How `budget` counts a text (e.g. a tokenizer). Default: `text.length`. */
  readonly measure?: (text: string) => number;
  /**
   * Who keeps a description under the budget, higher first. Default: the skill's source
   * (project, then configured paths, then user, then system, remote and MCP), then how often
   * the model loaded it through these tools; equal ranks by name.
   */
  readonly rank?: (skill: SkillMetadata) => number;
  /** Skills that keep their whole description before any other skill keeps one. */
  readonly pinned?: readonly string[];
  /**
   * Asked before an `ask` skill (see `SkillService.access`) is loaded; `true` loads it, and
   * the answer holds for the session. Absent: an `ask` skill is refused, saying why.
   */
  readonly confirm?: (skill: SkillMetadata) => Promise<boolean>;
  /** Layout of the catalog and of search results. Default `xml`. */
  readonly style?: "xml" | "markdown";
}

/** A tool as a model provider receives it. */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the input. */
  readonly inputSchema: JsonSchema;
}

/** What a tool call gives back to the model. */
export interface ToolResult {
  readonly text: string;
  /** `true` when the call did not do what was asked; `text` says why, for the model. */
  readonly isError: boolean;
}

/** The catalog in the `skill` tool's description and what its budget left out (skill names). */
export type ToolCatalog = CatalogResult;

/** The tools a model calls to find and load skills; see {@link skillTools}. */
export interface SkillTools {
  /**
   * The tools to offer now: `skill` always, `skill_search` when a search was given and the
   * catalog leaves some skill out or lists it without its description. Read it before every
   * model call: it follows the registry.
   */
  readonly definitions: readonly ToolDefinition[];
  /** Runs a tool. Never throws: every failure is a result with `isError: true` and a sentence. */
  call(tool: string, input: unknown, ctx?: { readonly signal?: AbortSignal }): Promise<ToolResult>;
  /** The catalog in the `skill` tool's description. */
  catalog(): ToolCatalog;
  /**
   * One short note for the model about skills added, changed (location, description or
   * frontmatter) or removed since the last call (or since the tools were made); `undefined`
   * when nothing changed. Only this call moves its starting point.
   */
  changes(): string | undefined;
  /**
   * Calls `listener` whenever {@link definitions} change (seen on the next call, read of
   * `definitions`, `catalog()` or `changes()` after the registry or the ranking moved).
   * Returns a function that stops it. What `registerSkillTools` uses to send `tools/list_changed`.
   */
  onChange(listener: () => void): () => void;
}

const SKILL_INTRO = [
  "Load a skill: instructions for one kind of task, with the files it bundles.",
  "When a task matches a skill's description, call this tool with that skill's name before you start, then follow the instructions it returns.",
  "To read a file a loaded skill lists, call it again with the same name and `file`.",
].join(" ");

const SEARCH_DESCRIPTION = [
  'Search the available skills by what they do, in a few words from the task (e.g. "fill in a PDF form").',
  `Returns the names and descriptions of the best matches, best first; load one with the ${SKILL_TOOL} tool.`,
].join(" ");

/** A name or query quoted for a sentence: JSON-escaped, cut to a readable length. */
function quoted(text: string): string {
  const cut = text.length > 100 ? `${text.slice(0, 97)}...` : text;
  return JSON.stringify(cut);
}

function ok(text: string): ToolResult {
  return { text, isError: false };
}

function fail(text: string): ToolResult {
  return { text, isError: true };
}

function checkOptions(options: SkillToolOptions): void {
  const agent = options?.agent as unknown;
  if (typeof agent !== "object" || agent === null || typeof (agent as AgentInfo).name !== "string") {
    throw new SkillError(
      "INVALID_FIELD",
      `Invalid skill tool options: expected agent to be { name: string }, found ${JSON.stringify(agent) ?? String(agent)}`,
      { field: "agent" },
    );
  }
  const search = options.search as unknown;
  if (search !== undefined && typeof (search as SkillSearch | null)?.search !== "function") {
    throw new SkillError(
      "INVALID_FIELD",
      "Invalid skill tool options: search must have a search(query) method",
      {
        field: "search",
      },
    );
  }
  for (const field of ["confirm", "rank", "measure"] as const) {
    const value = options[field] as unknown;
    if (value !== undefined && typeof value !== "function") {
      throw new SkillError(
        "INVALID_FIELD",
        `Invalid skill tool options: ${field} must be a function, found ${typeof value}`,
        { field },
      );
    }
  }
  const style = options.style as unknown;
  if (style !== undefined && style !== "xml" && style !== "markdown") {
    throw new SkillError(
      "INVALID_FIELD",
      `Invalid skill tool options: style must be "xml" or "markdown", found ${JSON.stringify(style)}`,
      { field: "style" },
    );
  }
}

class Tools implements SkillTools {
  readonly #service: SkillService;
  readonly #agent: AgentInfo;
  readonly #search: SkillSearch | undefined;
  readonly #options: SkillToolOptions;
  readonly #rank: (skill: SkillMetadata) => number;
  readonly #loads = new Map<string, number>();
  readonly #confirmed = new Set<string>();
  readonly #listeners = new Set<() => void>();
  #version: number | undefined = Number.NaN;
  #rankMoved = false;
  #visible: SkillMetadata[] = [];
  #catalog!: CatalogResult;
  #definitions: readonly ToolDefinition[] = [];
  #baseline: Snapshot | undefined;

  constructor(service: SkillService, options: SkillToolOptions) {
    checkOptions(options);
    this.#service = service;
    this.#agent = options.agent;
    this.#search = options.search;
    this.#options = options;
    this.#rank =
      options.rank ??
      // Source first (project before user before remote), then what this session loaded.
      ((skill) => -originRank(skill.origin) * 1e9 + (this.#loads.get(skill.name) ?? 0));
    this.#refresh();
  }

  get definitions(): readonly ToolDefinition[] {
    this.#refresh();
    return this.#definitions;
  }

  catalog(): ToolCatalog {
    this.#refresh();
    const c = this.#catalog;
    return {
      text: c.text,
      included: [...c.included],
      omitted: [...c.omitted],
      truncated: [...c.truncated],
      nameOnly: [...c.nameOnly],
      hidden: [...c.hidden],
    };
  }

  changes(): string | undefined {
    this.#refresh();
    const now = snapshot(this.#loadable());
    const note = changeNote(this.#baseline ?? now, now, SKILL_TOOL);
    this.#baseline = now;
    return note;
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  async call(tool: string, input: unknown, ctx: { readonly signal?: AbortSignal } = {}): Promise<ToolResult> {
    try {
      this.#refresh();
      const result = await this.#run(tool, input, ctx.signal);
      // A load may move the ranking (and the registry may have moved meanwhile): listeners hear now.
      this.#refresh();
      return result;
    } catch (error) {
      return fail(`The ${String(tool)} tool failed: ${errorMessage(error)}`);
    }
  }

  async #run(tool: string, input: unknown, signal: AbortSignal | undefined): Promise<ToolResult> {
    if (tool === SKILL_TOOL) return this.#skill(input, signal);
    if (tool === SEARCH_TOOL && this.#search) return this.#find(this.#search, input);
    const names = this.#search ? `${SKILL_TOOL} and ${SEARCH_TOOL}` : SKILL_TOOL;
    return fail(`No tool named ${quoted(String(tool))}; the skill tools are ${names}.`);
  }

  /** Skills the model may load: visible to the agent and not `disable-model-invocation`. */
  #loadable(): SkillMetadata[] {
    return this.#visible.filter((s) => s.modelInvocable !== false);
  }

  #refresh(): void {
    const version = this.#service.version as number | undefined;
    const moved = version === undefined || version !== this.#version;
    if (!moved && !this.#rankMoved) return;
    if (moved) {
      this.#version = version;
      this.#visible = this.#service.all(this.#agent);
      try {
        this.#search?.replace?.(this.#visible);
      } catch {
        // A search that cannot follow keeps what it held; its hits are still filtered below.
      }
      this.#baseline ??= snapshot(this.#loadable());
    }
    this.#rankMoved = false;
    const catalog = formatCatalog(this.#visible, {
      style: this.#options.style ?? "xml",
      budget: this.#options.budget ?? DEFAULT_TOOL_BUDGET,
      rank: this.#rank,
      location: false,
      descriptionShare: 0.5,
      ...(this.#options.measure ? { measure: this.#options.measure } : {}),
      ...(this.#options.pinned ? { pinned: this.#options.pinned } : {}),
      ...(this.#search ? { searchHint: SEARCH_TOOL } : {}),
    });
    const definitions = this.#define(catalog);
    const changed =
      this.#definitions.length > 0 &&
      (definitions.length !== this.#definitions.length ||
        definitions.some(
          (d, i) =>
            d.name !== this.#definitions[i]?.name || d.description !== this.#definitions[i]?.description,
        ));
    this.#catalog = catalog;
    this.#definitions = definitions;
    if (changed) {
      for (const listener of [...this.#listeners]) {
        try {
          listener();
        } catch {
          // A listener's failure is its own; the tools go on.
        }
      }
    }
  }

  #define(catalog: CatalogResult): readonly ToolDefinition[] {
    const listing = catalog.text === "" ? "No skills are available right now." : catalog.text;
    const skill: ToolDefinition = {
      name: SKILL_TOOL,
      description: `${SKILL_INTRO}\n\n${listing}`,
      inputSchema: SKILL_INPUT,
    };
    if (!this.#searchOffered(catalog)) return Object.freeze([skill]);
    return Object.freeze([
      skill,
      { name: SEARCH_TOOL, description: SEARCH_DESCRIPTION, inputSchema: SEARCH_INPUT },
    ]);
  }

  #searchOffered(catalog: CatalogResult = this.#catalog): boolean {
    return this.#search !== undefined && (catalog.omitted.length > 0 || catalog.nameOnly.length > 0);
  }

  /** The skill the model may load under that name, or `undefined` (missing, denied or user-only alike). */
  #loadableSkill(name: string): SkillMetadata | undefined {
    let skill = this.#service.get(name, this.#agent);
    // A skill keyed by its folder is listed `key (displayName)`: a model may copy the whole label.
    const label = skill === undefined ? LABEL.exec(name) : null;
    if (label) {
      const keyed = this.#service.get(label[1] as string, this.#agent);
      if (keyed?.displayName === label[2]) skill = keyed;
    }
    return skill && skill.modelInvocable !== false ? skill : undefined;
  }

  /** The same words for a missing, denied or user-only name; "similar" only from what the agent may load. */
  #noSuchSkill(name: string): ToolResult {
    const loadable = this.#loadable().map((s) => s.name);
    const similar = similarNames(name, loadable);
    if (similar.length > 0) return fail(`No skill named ${quoted(name)}; similar: ${similar.join(", ")}.`);
    if (this.#searchOffered())
      return fail(`No skill named ${quoted(name)}. Use ${SEARCH_TOOL} to find one by what it does.`);
    if (loadable.length === 0) return fail(`No skill named ${quoted(name)}; no skills are available.`);
    return fail(
      `No skill named ${quoted(name)}. The skills you can load are listed in the ${SKILL_TOOL} tool's description.`,
    );
  }

  async #skill(input: unknown, signal: AbortSignal | undefined): Promise<ToolResult> {
    const checked = checkInput(SKILL_TOOL, SKILL_INPUT, input);
    if (!checked.ok) return fail(checked.error);
    const name = checked.value.name as string;
    const file = checked.value.file as string | undefined;
    const skill = this.#loadableSkill(name);
    if (!skill) return this.#noSuchSkill(name);
    // Already cancelled: read nothing (a source's read() would start before core sees the signal).
    if (signal?.aborted) {
      return fail(
        `${file === undefined ? "Loading" : `Reading ${quoted(file)} of`} the skill ${quoted(name)} was cancelled.`,
      );
    }
    const refused = await this.#permit(skill);
    if (refused) return refused;
    const ctx: ScanContext = signal ? { signal } : {};
    return file === undefined ? this.#load(skill, ctx) : this.#file(skill, file, ctx);
  }

  /** `undefined` when the agent may load the skill now; else why not. */
  async #permit(skill: SkillMetadata): Promise<ToolResult | undefined> {
    const name = skill.name;
    const access = this.#service.access(name, this.#agent);
    if (access === undefined || access === "deny") return this.#noSuchSkill(name);
    if (access === "allow") return undefined;
    const key = `${name}\u0000${skill.location}`;
    if (this.#confirmed.has(key)) return undefined;
    const confirm = this.#options.confirm;
    if (!confirm) {
      return fail(
        `The skill ${quoted(name)} may only be loaded with the user's permission, and there is no way to ask for it here. Tell the user you need the skill ${quoted(name)} and that they must allow it (a permission rule "${name}": "allow"); do not try to load it again until they have.`,
      );
    }
    let answer: unknown;
    try {
      answer = await confirm(skill);
    } catch (error) {
      return fail(
        `Asking the user to allow the skill ${quoted(name)} failed (${errorMessage(error)}); it was not loaded.`,
      );
    }
    if (answer !== true) {
      return fail(
        `The user did not allow the skill ${quoted(name)}, so it was not loaded. Go on without it, and do not ask for it again unless the user does.`,
      );
    }
    this.#confirmed.add(key);
    return undefined;
  }

  async #load(skill: SkillMetadata, ctx: ScanContext): Promise<ToolResult> {
    const name = skill.name;
    try {
      const options = ctx.signal ? { signal: ctx.signal } : {};
      const info = await this.#service.read(name, this.#agent, ctx);
      const files = await this.#service.files(name, this.#agent, options);
      this.#loads.set(name, (this.#loads.get(name) ?? 0) + 1);
      // A load moves the default ranking only where the budget made ranking matter.
      const c = this.#catalog;
      if (!this.#options.rank && (c.omitted.length > 0 || c.truncated.length > 0)) this.#rankMoved = true;
      return ok(formatSkillContent(info, { files }));
    } catch (error) {
      return this.#failed(name, error);
    }
  }

  #failed(name: string, error: unknown): ToolResult {
    const code = SkillError.isInstance(error) ? error.code : undefined;
    if (code === "ABORTED") return fail(`Loading the skill ${quoted(name)} was cancelled.`);
    if (code === "NOT_FOUND") {
      if (!this.#loadableSkill(name)) return this.#noSuchSkill(name);
      return fail(
        `The skill ${quoted(name)} changed since it was listed and was not loaded (${errorMessage(error)}). It may load once the skills are reloaded; go on without it for now.`,
      );
    }
    if (code === "INTEGRITY_ERROR") {
      return fail(
        `The skill ${quoted(name)} was not loaded: what was read does not match what its source listed (${errorMessage(error)}).`,
      );
    }
    return fail(`The skill ${quoted(name)} could not be loaded: ${errorMessage(error)}`);
  }

  async #file(skill: SkillMetadata, path: string, ctx: ScanContext): Promise<ToolResult> {
    const name = skill.name;
    let bytes: Uint8Array;
    try {
      bytes = await this.#service.readFile(name, path, this.#agent, ctx);
    } catch (error) {
      const code = SkillError.isInstance(error) ? error.code : undefined;
      if (code === "ABORTED")
        return fail(`Reading ${quoted(path)} of the skill ${quoted(name)} was cancelled.`);
      if (code === "UNSAFE_PATH") {
        return fail(
          `${quoted(path)} is not a path inside the skill ${quoted(name)}: give the file's path relative to the skill's folder, as the loaded skill lists it.`,
        );
      }
      if (code === "NOT_FOUND") {
        if (!this.#loadableSkill(name)) return this.#noSuchSkill(name);
        const listed = await this.#service
          .files(name, this.#agent, { limit: 20, ...(ctx.signal ? { signal: ctx.signal } : {}) })
          .catch(() => [] as string[]);
        const which = listed.length === 0 ? "it bundles no files" : `its files include ${listed.join(", ")}`;
        return fail(`The skill ${quoted(name)} has no file ${quoted(path)}; ${which}.`);
      }
      if (code === "LIMIT_EXCEEDED") {
        return fail(
          `${quoted(path)} of the skill ${quoted(name)} is too large to read here (${errorMessage(error)}).`,
        );
      }
      return fail(`${quoted(path)} of the skill ${quoted(name)} could not be read: ${errorMessage(error)}`);
    }
    if (!isUtf8(bytes) || bytes.includes(0)) {
      return ok(
        `${quoted(path)} of the skill ${quoted(name)} is a binary file (${formatBytes(bytes.length)}); it cannot be shown as text.`,
      );
    }
    const text = new TextDecoder().decode(bytes);
    return ok(text === "" ? `${quoted(path)} of the skill ${quoted(name)} is empty.` : text);
  }

  async #find(search: SkillSearch, input: unknown): Promise<ToolResult> {
    const checked = checkInput(SEARCH_TOOL, SEARCH_INPUT, input);
    if (!checked.ok) return fail(checked.error);
    const query = checked.value.query as string;
    const limit = (checked.value.limit as number | undefined) ?? DEFAULT_SEARCH_LIMIT;
    let hits: unknown;
    try {
      // Ask for more than shown: hits the agent may not load are dropped below.
      hits = await search.search(query, { limit: Math.min(100, limit * 3) });
    } catch (error) {
      return fail(`Searching the skills failed: ${errorMessage(error)}`);
    }
    const found: SkillMetadata[] = [];
    const seen = new Set<string>();
    for (const hit of Array.isArray(hits) ? hits : []) {
      const name = (hit as { name?: unknown } | null)?.name;
      if (typeof name !== "string" || seen.has(name)) continue;
      seen.add(name);
      const skill = this.#loadableSkill(name);
      if (skill) found.push(skill);
      if (found.length >= limit) break;
    }
    if (found.length === 0) {
      return ok(
        `No skill matches ${quoted(query)}. Try other words, or pick a skill from the ${SKILL_TOOL} tool's description.`,
      );
    }
    const list = formatCatalog(found, { style: this.#options.style ?? "xml", location: false }).text;
    const head =
      found.length === 1
        ? `1 skill matches ${quoted(query)}:`
        : `${found.length} skills match ${quoted(query)}, best first:`;
    return ok(`${head}\n${list}\nLoad one with the ${SKILL_TOOL} tool and its name.`);
  }
}

/**
 * The tools a model calls to load and find skills, over a registry: `skill` (`{ name, file? }`:
 * the `<skill_content>` block, or a bundled file's text) and, for catalogs too big to list,
 * `skill_search` (`{ query, limit? }`). The `skill` tool's description holds the catalog,
 * tiered to the budget: everything; then pinned and top-ranked skills keep descriptions and
 * the rest are named; then, when not even every name fits, pinned skills in full and ranked
 * descriptions in at most half the budget, names by rank in the rest, and a line saying how
 * many are left out. Permissions hold everywhere: a denied skill is absent from the catalog,
 * the search results and the "similar" suggestions, and loading it reads nothing.
 *
 * @example
 * const tools = skillTools(service, { agent, search: createSkillIndex([]) });
 * const request = { tools: tools.definitions, … };               // every model call
 * const result = await tools.call(call.name, call.input);        // { text, isError }
 *
 * @throws SkillError `INVALID_FIELD` for options that cannot work (no agent, a search without
 * `search()`, a `confirm`/`rank`/`measure` that is not a function, an unknown style or a bad budget)
 */
export function skillTools(service: SkillService, options: SkillToolOptions): SkillTools {
  return new Tools(service, options);
}
