import {
  type AgentInfo,
  errorMessage,
  type ScanContext,
  SkillError,
  type SkillMetadata,
  type SkillSearch,
  type SkillService,
  similarNames,
} from "@skill/core";
import { type CatalogResult, catalogRank, formatCatalog, formatSkillContent } from "@skill/format";
import { decideTool, parseAllowedTools, type ToolDecision, type ToolRule } from "./allowed-tools.js";
import { changeNote, type Snapshot, snapshot } from "./changes.js";
import { SEARCH_TOOL, SKILL_TOOL, type ToolDefinition, toolDefinitions } from "./definitions.js";
import { fail, fileText, loadFailure, ok, quoted, readFailure, type ToolResult } from "./results.js";
import { checkInput, DEFAULT_SEARCH_LIMIT, SEARCH_INPUT, SKILL_INPUT } from "./schema.js";
import { checkOptions, DEFAULT_TOOL_BUDGET, type SkillToolOptions } from "./tool-options.js";

/** `key (displayName)`, as catalogs name a skill keyed by its folder. */
const LABEL = /^(.+) \((.+)\)$/s;

/** The catalog in the `skill` tool's description and what its budget left out (skill names). */
export type ToolCatalog = CatalogResult;

/** The tools a model calls to find and load skills; see {@link skillTools}. */
export interface SkillTools {
  /**
   * The tools to offer: `skill` always, `skill_search` when a search was given and the
   * catalog leaves some skill out or lists it without its description. Frozen when the tools
   * are made and at each {@link refresh}: the same objects, byte for byte, until then, so a
   * provider's cached prompt prefix (tools first) survives every skill the model loads.
   */
  readonly definitions: readonly ToolDefinition[];
  /** Runs a tool. Never throws: every failure is a result with `isError: true` and a sentence. */
  call(tool: string, input: unknown, ctx?: { readonly signal?: AbortSignal }): Promise<ToolResult>;
  /** The catalog in the `skill` tool's description, frozen as {@link definitions} are. */
  catalog(): ToolCatalog;
  /**
   * Lays out the catalog and the definitions again from the registry as it is now (and the
   * `usage` counts); `true` when the definitions changed, and then every {@link onChange}
   * listener is called. The harness decides when: between sessions, or when it accepts
   * losing the cached prompt prefix. `call`, the search and {@link changes} follow the
   * registry without it.
   */
  refresh(): boolean;
  /**
   * One short note for the model about skills added, changed (location, description or
   * frontmatter) or removed since the last call (or since the tools were made); `undefined`
   * when nothing changed. Only this call moves its starting point; it does not depend on
   * {@link refresh}: a new skill is loadable and findable at once, and this note says so.
   */
  changes(): string | undefined;
  /**
   * Calls `listener` when {@link refresh} changed the definitions, and only then. Returns a
   * function that stops it. What `registerSkillTools` uses to send `tools/list_changed`.
   */
  onChange(listener: () => void): () => void;
  /**
   * Whether the harness may run `tool` with `input`, by the `allowed-tools` of the skills
   * loaded through these tools (see {@link SkillToolOptions.allowedTools}): `skill` and
   * `skill_search` are always `allow`; with no loaded skill that declares the field, `ask`.
   */
  policy(tool: string, input?: unknown): ToolDecision;
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
    // Valid names, then source (project before user before remote), then use across sessions;
    // nothing this session does moves it.
    this.#rank =
      options.rank ??
      catalogRank({
        ...(options.target ? { target: options.target } : {}),
        ...(options.usage ? { usage: options.usage } : {}),
      });
    this.#follow();
    this.#layOut();
  }

  get definitions(): readonly ToolDefinition[] {
    return this.#definitions;
  }

  catalog(): ToolCatalog {
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

  refresh(): boolean {
    this.#follow();
    const changed = this.#layOut();
    if (changed) {
      for (const listener of [...this.#listeners]) {
        try {
          listener();
        } catch {
          // A listener's failure is its own; the tools go on.
        }
      }
    }
    return changed;
  }

  changes(): string | undefined {
    this.#follow();
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

  policy(tool: string, input?: unknown): ToolDecision {
    if (tool === SKILL_TOOL || tool === SEARCH_TOOL) return { decision: "allow", reason: "a skill tool" };
    this.#follow();
    const declared = new Map<string, readonly ToolRule[]>();
    for (const name of this.#loads.keys()) {
      const skill = this.#visible.find((s) => s.name === name);
      const parsed = parseAllowedTools(skill?.frontmatter["allowed-tools"]);
      if (parsed && parsed.rules.length > 0) declared.set(name, parsed.rules);
    }
    const name = this.#options.toolNames?.[tool] ?? tool;
    return decideTool(this.#options.allowedTools ?? "ignore", declared, name, input);
  }

  async call(tool: string, input: unknown, ctx: { readonly signal?: AbortSignal } = {}): Promise<ToolResult> {
    try {
      this.#follow();
      return await this.#run(tool, input, ctx.signal);
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

  /** Follows the registry: what the agent sees now, fed to the search. Never the definitions. */
  #follow(): void {
    const version = this.#service.version as number | undefined;
    if (version !== undefined && version === this.#version) return;
    this.#version = version;
    this.#visible = this.#service.all(this.#agent);
    try {
      this.#search?.replace?.(this.#visible);
    } catch {
      // A search that cannot follow keeps what it held; its hits are still filtered below.
    }
    this.#baseline ??= snapshot(this.#loadable());
  }

  /** Lays out the catalog and definitions from what {@link #follow} saw; true when they changed. */
  #layOut(): boolean {
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
    const definitions = toolDefinitions(catalog, this.#searchOffered(catalog));
    const changed =
      this.#definitions.length > 0 &&
      (definitions.length !== this.#definitions.length ||
        definitions.some(
          (d, i) =>
            d.name !== this.#definitions[i]?.name || d.description !== this.#definitions[i]?.description,
        ));
    this.#catalog = catalog;
    // Unchanged definitions stay the same objects: a harness may compare by identity.
    if (changed || this.#definitions.length === 0) this.#definitions = definitions;
    return changed;
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
      return ok(formatSkillContent(info, { files }));
    } catch (error) {
      const gone = SkillError.isInstance(error) && error.code === "NOT_FOUND" && !this.#loadableSkill(name);
      return gone ? this.#noSuchSkill(name) : loadFailure(name, error);
    }
  }

  async #file(skill: SkillMetadata, path: string, ctx: ScanContext): Promise<ToolResult> {
    const name = skill.name;
    let bytes: Uint8Array;
    try {
      bytes = await this.#service.readFile(name, path, this.#agent, ctx);
    } catch (error) {
      const code = SkillError.isInstance(error) ? error.code : undefined;
      if (code !== "NOT_FOUND") return readFailure(name, path, error);
      if (!this.#loadableSkill(name)) return this.#noSuchSkill(name);
      const listed = await this.#service
        .files(name, this.#agent, { limit: 20, ...(ctx.signal ? { signal: ctx.signal } : {}) })
        .catch(() => [] as string[]);
      const which = listed.length === 0 ? "it bundles no files" : `its files include ${listed.join(", ")}`;
      return fail(`The skill ${quoted(name)} has no file ${quoted(path)}; ${which}.`);
    }
    return fileText(name, path, bytes);
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
 * many are left out and how to reach them. The definitions hold still for the session (until
 * `refresh()`), while loading, searching and `changes()` follow the registry at once.
 * Permissions hold everywhere: a denied skill is absent from the catalog, the search results
 * and the "similar" suggestions, and loading it reads nothing.
 *
 * @example
 * const tools = skillTools(service, { agent, search: createSkillIndex([]) });
 * const request = { tools: tools.definitions, … };               // the same every model call
 * const result = await tools.call(call.name, call.input);        // { text, isError }
 * const note = tools.changes();                                  // skills added since: a message
 *
 * @throws SkillError `INVALID_FIELD` for options that cannot work (no agent, a search without
 * `search()`, a `confirm`/`rank`/`measure` that is not a function, a `usage` without `count()`, an
 * unknown style or target, or a bad budget)
 */
export function skillTools(service: SkillService, options: SkillToolOptions): SkillTools {
  return new Tools(service, options);
}
