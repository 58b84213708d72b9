import { dirname } from "node:path";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { SkillError } from "./errors.js";
import {
  analyzeSkill,
  DEFAULT_MAX_BYTES,
  readSkillBody,
  readSkillFile,
  readSkillFileSync,
  type SkillFileText,
} from "./parse-skill.js";
import type {
  AgentInfo,
  Diagnostic,
  EventBus,
  LoadFailure,
  LoadReport,
  Logger,
  ScanContext,
  ShadowedSkill,
  SkillInfo,
  SkillServiceOptions,
  SkillSource,
} from "./types.js";

/** Longest stretch of synchronous reading before the event loop gets a turn, in ms. */
const SLICE_MS = 10;
/** Bytes read to list a skill; the frontmatter nearly always fits, the body is read on use. */
const HEAD_BYTES = 8 * 1024;

const NO_LOGGER: Logger = { warn() {} };

interface Registry {
  readonly skills: ReadonlyMap<string, SkillInfo>;
  readonly dirs: readonly string[];
  readonly diagnostics: readonly Diagnostic[];
}

const EMPTY: Registry = { skills: new Map(), dirs: [], diagnostics: [] };

interface Candidate {
  readonly path: string;
  readonly source?: string;
}

type Outcome =
  | {
      readonly ok: true;
      readonly id: string;
      readonly skill: SkillInfo;
      readonly diagnostics: readonly Diagnostic[];
    }
  | {
      readonly ok: false;
      readonly id?: string;
      readonly error: SkillError;
      readonly diagnostics: readonly Diagnostic[];
    };

function aborted(): SkillError {
  return new SkillError("ABORTED", "Skill loading was aborted");
}

function toSkillError(error: unknown, path: string): SkillError {
  if (SkillError.isInstance(error)) return error;
  return new SkillError("READ_ERROR", `Failed to read skill file: ${path} (${String(error)})`, {
    path,
    cause: error,
  });
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Holds the skills an agent can use: loads them from sources, resolves name collisions by
 * precedence, and answers lookups. Readers never see a half-loaded registry.
 *
 * @example
 * const service = new SkillService({ sources: discoverySources({ cwd: process.cwd() }) });
 * const report = await service.discoverAndLoad();
 * service.all({ name: "build" }).map((s) => s.name);
 */
export class SkillService {
  readonly #sources: readonly SkillSource[];
  readonly #options: SkillServiceOptions;
  readonly #logger: Logger;
  #registry: Registry = EMPTY;
  #generation = 0;

  constructor(options: SkillServiceOptions = {}) {
    this.#options = options;
    this.#sources = options.sources ?? [];
    const logger = options.logger ?? NO_LOGGER;
    this.#logger = {
      warn(message, fields) {
        try {
          logger.warn(message, fields);
        } catch {
          // A logger is an observer too.
        }
      },
    };
  }

  /**
   * Scans every source, loads every SKILL.md, and swaps the new registry in whole. A file or
   * source that fails is reported, never fatal; only an aborted `ctx.signal` rejects
   * (`ABORTED`), and then the previous registry stays.
   */
  async discoverAndLoad(ctx: ScanContext = {}): Promise<LoadReport> {
    const generation = ++this.#generation;
    const signal = ctx.signal;
    if (signal?.aborted) throw aborted();
    const failed: LoadFailure[] = [];
    const sourceFailures = new Set<string>();

    const scans = await Promise.allSettled(this.#sources.map((source) => source.scan(ctx)));
    if (signal?.aborted) throw aborted();
    const candidates: Candidate[] = [];
    scans.forEach((scan, i) => {
      const source = this.#sources[i] as SkillSource;
      if (scan.status === "fulfilled") {
        for (const path of scan.value.files) candidates.push({ path, source: source.id });
      } else {
        const error = SkillError.isInstance(scan.reason)
          ? scan.reason
          : new SkillError(
              "READ_ERROR",
              `Skill source ${source.id} failed to scan: ${describe(scan.reason)}`,
              {
                path: source.id,
                cause: scan.reason,
              },
            );
        failed.push({ path: source.id, error });
        sourceFailures.add(source.id);
      }
    });

    // Small local files read fastest synchronously; slices keep the event loop responsive.
    const outcomes = new Array<Outcome>(candidates.length);
    let sliceStart = performance.now();
    for (let i = 0; i < candidates.length; i++) {
      const candidate = candidates[i] as Candidate;
      let file: SkillFileText | SkillError;
      try {
        file = readSkillFileSync(candidate.path, this.#maxBytes, HEAD_BYTES);
      } catch (error) {
        file = toSkillError(error, candidate.path);
      }
      outcomes[i] = this.#analyze(candidate, file);
      if (performance.now() - sliceStart > SLICE_MS) {
        await yieldToEventLoop();
        if (signal?.aborted) throw aborted();
        sliceStart = performance.now();
      }
    }
    if (signal?.aborted) throw aborted();

    // The same file reached twice loads once, at its highest-precedence position.
    const lastIndexOfId = new Map<string, number>();
    outcomes.forEach((o, i) => {
      if (o.id !== undefined) lastIndexOfId.set(o.id, i);
    });
    const skills = new Map<string, SkillInfo>();
    const dirs = new Set<string>();
    const diagnostics: Diagnostic[] = [];
    const shadowed: ShadowedSkill[] = [];
    outcomes.forEach((outcome, i) => {
      if (outcome.id !== undefined && lastIndexOfId.get(outcome.id) !== i) return;
      diagnostics.push(...outcome.diagnostics);
      if (!outcome.ok) {
        failed.push({ path: (candidates[i] as Candidate).path, error: outcome.error });
        return;
      }
      const skill = outcome.skill;
      dirs.add(dirname(skill.location));
      const previous = skills.get(skill.name);
      if (previous) shadowed.push({ name: skill.name, kept: skill.location, dropped: previous.location });
      skills.set(skill.name, skill);
    });

    if (signal?.aborted) throw aborted();
    if (generation !== this.#generation) {
      // A newer load started meanwhile; it owns the registry.
      return { loaded: this.#registry.skills.size, failed, shadowed };
    }
    for (const s of shadowed) diagnostics.push(this.#shadowDiagnostic(s));
    this.#registry = { skills, dirs: [...dirs].sort(byCodeUnit), diagnostics };
    for (const s of shadowed) this.#reportShadowed(s);
    for (const f of failed) this.#reportFailure(f, sourceFailures.has(f.path));
    return { loaded: skills.size, failed, shadowed };
  }

  /**
   * Parses one SKILL.md and adds it to the registry; a skill of the same name is replaced with
   * a `DUPLICATE_NAME` warning.
   *
   * @throws SkillError as {@link loadSkillFile} does
   */
  async load(path: string, sourceId?: string): Promise<SkillInfo> {
    const candidate = sourceId === undefined ? { path } : { path, source: sourceId };
    const file = await readSkillFile(path, this.#maxBytes).catch((error: unknown) =>
      toSkillError(error, path),
    );
    const outcome = this.#analyze(candidate, file);
    if (!outcome.ok) {
      this.#reportFailure({ path, error: outcome.error });
      throw outcome.error;
    }
    const current = this.#registry;
    const skill = outcome.skill;
    const skills = new Map(current.skills);
    const previous = skills.get(skill.name);
    skills.set(skill.name, skill);
    const dirs = new Set(current.dirs).add(dirname(skill.location));
    const diagnostics = [...current.diagnostics, ...outcome.diagnostics];
    const shadow =
      previous && previous.location !== skill.location
        ? { name: skill.name, kept: skill.location, dropped: previous.location }
        : undefined;
    if (shadow) diagnostics.push(this.#shadowDiagnostic(shadow));
    this.#registry = { skills, dirs: [...dirs].sort(byCodeUnit), diagnostics };
    if (shadow) this.#reportShadowed(shadow);
    return skill;
  }

  /** The skill of that name, or `undefined`. */
  get(name: string): SkillInfo | undefined {
    return this.#registry.skills.get(name);
  }

  /**
   * The skill of that name.
   *
   * @throws SkillError `NOT_FOUND`: `Skill "x" not found. Available skills: a, b` (or `none`)
   */
  require(name: string): SkillInfo {
    const skill = this.#registry.skills.get(name);
    if (skill) return skill;
    const names = [...this.#registry.skills.keys()].sort(byCodeUnit);
    throw new SkillError(
      "NOT_FOUND",
      `Skill "${name}" not found. Available skills: ${names.length > 0 ? names.join(", ") : "none"}`,
    );
  }

  /**
   * Every skill, sorted by name (code-unit order). With an agent and a permission policy,
   * skills whose `skill` rule is `deny` are left out; `ask` skills stay.
   */
  all(agent?: AgentInfo): SkillInfo[] {
    const policy = this.#options.permission;
    const skills = [...this.#registry.skills.values()];
    const visible =
      agent && policy ? skills.filter((s) => policy.evaluate(agent, "skill", s.name) !== "deny") : skills;
    return visible.sort((a, b) => byCodeUnit(a.name, b.name));
  }

  /** Every directory that held a loaded SKILL.md, shadowed ones too; sorted. */
  dirs(): string[] {
    return [...this.#registry.dirs];
  }

  /** Findings of the last load: spec warnings, repairs, failures and duplicate names. */
  diagnostics(): readonly Diagnostic[] {
    return this.#registry.diagnostics;
  }

  get #maxBytes(): number {
    return this.#options.maxBytes ?? DEFAULT_MAX_BYTES;
  }

  #analyze(candidate: Candidate, file: SkillFileText | SkillError): Outcome {
    const { path } = candidate;
    if (SkillError.isInstance(file))
      return { ok: false, error: file, diagnostics: [failureDiagnostic(file, path)] };
    const lenient = this.#options.lenient ?? true;
    const id = file.id;
    const analysis = analyzeSkill(file.text, path, { lenient, invalidUtf8: file.invalidUtf8 });
    if (analysis.error || !analysis.skill) {
      const error = analysis.error ?? toSkillError(undefined, path);
      const diagnostics = analysis.diagnostics.some((d) => d.severity === "error")
        ? analysis.diagnostics
        : [...analysis.diagnostics, failureDiagnostic(error, path)];
      return { ok: false, id, error, diagnostics };
    }
    if (!lenient) {
      const errors = analysis.diagnostics.filter((d) => d.severity === "error");
      if (errors.length > 0) {
        const error = new SkillError(
          "INVALID_FIELD",
          `Skill ${path} breaks the Agent Skills rules: ${errors.map((d) => d.code).join(", ")}`,
          { path, ...(errors[0]?.field === undefined ? {} : { field: errors[0].field }) },
        );
        return { ok: false, id, error, diagnostics: analysis.diagnostics };
      }
    }
    const skill = registrySkill(analysis.skill, candidate.source, this.#maxBytes);
    return { ok: true, id, skill, diagnostics: analysis.diagnostics };
  }

  #shadowDiagnostic(s: ShadowedSkill): Diagnostic {
    return {
      code: "duplicate-name",
      severity: "warning",
      message: `Duplicate skill name: ${s.name} (${s.kept} replaces ${s.dropped})`,
      path: s.dropped,
      field: "name",
    };
  }

  #reportShadowed(s: ShadowedSkill): void {
    const error = new SkillError(
      "DUPLICATE_NAME",
      `Duplicate skill name: ${s.name} (${s.kept} replaces ${s.dropped})`,
      {
        path: s.dropped,
      },
    );
    this.#logger.warn(error.message, { code: error.code, name: s.name, kept: s.kept, dropped: s.dropped });
    publish(this.#options.bus, "skill.shadowed", { name: s.name, kept: s.kept, dropped: s.dropped });
  }

  #reportFailure(f: LoadFailure, wholeSource = false): void {
    this.#logger.warn(f.error.message, { code: f.error.code, path: f.path });
    const type = wholeSource ? "skill_source_error" : "skill_parse_error";
    publish(this.#options.bus, "session.error", { type, path: f.path, error: f.error.message });
  }
}

/**
 * The registry's copy of a skill. Its `content` is read from disk on first access and then
 * kept (progressive disclosure: listing needs names and descriptions, an agent reads the
 * body of the few skills it loads), so a registry of thousands of skills holds no bodies.
 */
function registrySkill(parsed: SkillInfo, source: string | undefined, maxBytes: number): SkillInfo {
  // The getter must not capture `parsed`: its content is a slice that would pin the whole file text.
  const location = parsed.location;
  let body: string | undefined;
  const skill = { name: parsed.name, description: parsed.description, location };
  Object.defineProperty(skill, "content", {
    enumerable: true,
    get: () => {
      body ??= readSkillBody(location, maxBytes);
      return body;
    },
  });
  return Object.freeze(
    Object.assign(
      skill,
      source === undefined
        ? { frontmatter: parsed.frontmatter }
        : { frontmatter: parsed.frontmatter, source },
    ),
  ) as SkillInfo;
}

function failureDiagnostic(error: SkillError, path: string): Diagnostic {
  return {
    code: error.code.toLowerCase().replace(/_/g, "-"),
    severity: "error",
    message: error.message,
    path,
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Publishes without letting a failing bus break a load. */
function publish(bus: EventBus | undefined, topic: string, payload: unknown): void {
  if (!bus) return;
  try {
    const result = bus.publish(topic, payload);
    if (result && typeof (result as Promise<unknown>).catch === "function")
      (result as Promise<unknown>).catch(() => {});
  } catch {
    // A bus is an observer: its failure must not change what loads.
  }
}
