import {
  closeSync,
  constants,
  type Dirent,
  existsSync,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
} from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
import {
  type AgentInfo,
  compareCodeUnits,
  DEFAULT_MAX_BYTES,
  type Diagnostic,
  type PermissionPolicy,
  parseSkill,
  SKILL_FILE,
  type SkillError,
  SkillError as SkillErrorClass,
  SPEC_LIMITS,
  splitFrontmatter,
} from "@skill/core";
import { isWithin } from "./paths.js";
import { scanRoots } from "./scan.js";
import {
  DISCOVERY_PRESETS,
  type DiscoveryOptions,
  type DiscoveryPreset,
  type DiscoveryRoot,
  discoveryRoots,
  presetRules,
} from "./sources.js";

/** Why an agent does not load a skill; when several apply, the first in this list is given. */
export type VisibilityReason =
  | "not-scanned"
  | "too-deep"
  | "dot-folder"
  | "symlinked-file"
  | "name-missing"
  | "too-long"
  | "parse-error"
  | "shadowed"
  | "dangling-symlink"
  | "git-symlink-stub"
  | "denied";

/** Reason ids in order of priority. */
export const VISIBILITY_REASONS: readonly VisibilityReason[] = Object.freeze([
  "not-scanned",
  "too-deep",
  "dot-folder",
  "symlinked-file",
  "name-missing",
  "too-long",
  "parse-error",
  "shadowed",
  "dangling-symlink",
  "git-symlink-stub",
  "denied",
] as const);

/** One agent's verdict on one skill. */
export type VisibilityCell =
  | { readonly loaded: true; readonly name: string }
  | { readonly loaded: false; readonly reason: VisibilityReason; readonly detail?: string };

/** Which agent sees which skill, and why not. */
export interface VisibilityReport {
  readonly agents: readonly DiscoveryPreset[];
  /** Sorted by name, then location. */
  readonly skills: readonly {
    readonly name: string;
    readonly location: string;
    readonly cells: Readonly<Record<string, VisibilityCell>>;
  }[];
}

/** Options of {@link compareAgents}. */
export interface CompareOptions extends Omit<DiscoveryOptions, "preset"> {
  /** The agents to compare (default: every preset). */
  readonly agents?: readonly DiscoveryPreset[];
  /** With `agent`: skills this policy denies are reported `denied`. */
  readonly permission?: PermissionPolicy;
  readonly agent?: AgentInfo;
}

/** Bytes read to judge a skill: its frontmatter nearly always fits. */
const HEAD_BYTES = 16 * 1024;

/** A git symlink stub is the link target written into a file: short, one line, a path. */
const STUB_MAX_BYTES = 1024;

interface Parsed {
  readonly ok: boolean;
  readonly name?: string;
  readonly description?: string;
  readonly error?: SkillError;
  /** The text was a path where a symlink was meant. */
  readonly stub?: boolean;
}

/** One file read once, parsed once per distinct set of rules actually needed. */
interface FileFacts {
  readonly location: string;
  /** `dev:ino`; undefined when the file cannot be opened. */
  readonly identity?: string;
  readonly symlink: boolean;
  readonly text?: string;
  readonly readError?: SkillError;
  parsed?: Parsed;
  parsedFallback?: Parsed;
}

/** A place that looked like a skill but is not one: a dangling link or a stub. */
interface Broken {
  readonly location: string;
  readonly reason: "dangling-symlink" | "git-symlink-stub";
  readonly detail: string;
}

/**
 * For every skill any of `agents` would find from `options.cwd`, and for every agent: whether
 * it loads the skill, under which name, and if not, why not (one reason id; see
 * {@link VISIBILITY_REASONS}). Each distinct folder is scanned once and each file read and
 * parsed once, whatever the number of agents.
 *
 * @example
 * const report = await compareAgents({ cwd: process.cwd(), agents: ["claude-code", "codex"] });
 * for (const s of report.skills) console.log(s.name, s.cells.codex);
 */
export async function compareAgents(options: CompareOptions): Promise<VisibilityReport> {
  const agents = [...(options.agents ?? DISCOVERY_PRESETS)];
  for (const agent of agents) {
    if (!DISCOVERY_PRESETS.includes(agent))
      throw new TypeError(`Unknown discovery preset ${JSON.stringify(agent)}`);
  }
  const { agents: _agents, permission, agent: who, ...discovery } = options;
  const rootsOf = new Map<DiscoveryPreset, DiscoveryRoot[]>();
  for (const agent of agents) rootsOf.set(agent, discoveryRoots({ ...discovery, preset: agent }));

  // Scan every distinct folder once, with no agent's limits: the limits are applied below.
  const dirs = [...new Set([...rootsOf.values()].flatMap((roots) => roots.flatMap((r) => r.dirs)))];
  const filesOf = new Map<string, string[]>();
  const broken = new Map<string, Broken>();
  for (const dir of dirs) {
    const warnings: Diagnostic[] = [];
    const files = await scanRoots([resolve(dir)], {
      ...(options.ignore === undefined ? {} : { ignore: options.ignore }),
      ...(options.followSymlinks === undefined ? {} : { followSymlinks: options.followSymlinks }),
      onWarning: (d) => warnings.push(d),
      onMissingRoot: () => {},
    });
    filesOf.set(dir, files);
    for (const w of warnings) {
      // A dangling link inside a skill folder is a broken bundled file, not a missing skill.
      if (
        w.code === "symlink-dangling" &&
        w.path !== undefined &&
        !broken.has(w.path) &&
        !insideSkill(w.path, dir)
      ) {
        broken.set(w.path, { location: w.path, reason: "dangling-symlink", detail: linkTarget(w.path) });
      }
    }
    for (const stub of stubsIn(dir)) if (!broken.has(stub.location)) broken.set(stub.location, stub);
  }

  const facts = new Map<string, FileFacts>();
  const factsOf = (location: string): FileFacts => {
    let f = facts.get(location);
    if (!f) {
      f = readFacts(location);
      facts.set(location, f);
    }
    return f;
  };
  for (const files of filesOf.values()) for (const file of files) factsOf(file);
  for (const f of facts.values()) {
    const parsed = parsedOf(f, false);
    if (parsed.stub && !broken.has(f.location)) {
      broken.set(f.location, {
        location: f.location,
        reason: "git-symlink-stub",
        detail: (f.text ?? "").trim(),
      });
    }
  }

  // Known from the one read of each file; a broken entry is looked at when asked.
  const symlinked = (path: string) => facts.get(path)?.symlink ?? isSymlink(path);

  const rows = new Map<string, Record<string, VisibilityCell>>();
  const locations = [...new Set([...facts.keys(), ...broken.keys()])];
  for (const location of locations) rows.set(location, {});

  for (const agent of agents) {
    const roots = rootsOf.get(agent) ?? [];
    const rules = presetRules(agent);
    const fallback = rules.nameFallback === "folder";
    const rejectLong = rules.rejectLongFields === true;
    const verdict = new Map<string, VisibilityCell>();
    /** Accepted files in precedence order (lowest first), each location once, at its highest position. */
    let order: { location: string; name: string; identity?: string; dead?: boolean }[] = [];
    const position = new Map<string, number>();

    const place = (location: string) => {
      let best: VisibilityReason | "ok" | undefined;
      for (const root of roots) {
        for (const dir of root.dirs) {
          if (!isWithin(location, dir) || location === dir) continue;
          const reason = limitReason(location, dir, root, symlinked);
          if (reason === undefined) return "ok" as const;
          if (best === undefined || rank(reason) < rank(best as VisibilityReason)) best = reason;
        }
      }
      return best ?? "not-scanned";
    };

    for (const root of roots) {
      for (const dir of root.dirs) {
        for (const location of filesOf.get(dir) ?? []) {
          if (limitReason(location, dir, root, symlinked) !== undefined) continue;
          const f = factsOf(location);
          const parsed = parsedOf(f, fallback);
          if (parsed.stub) continue;
          if (!parsed.ok) {
            verdict.set(location, failure(parsed.error));
            continue;
          }
          if (rejectLong && tooLong(parsed)) {
            verdict.set(location, { loaded: false, reason: "too-long", detail: longDetail(parsed) });
            continue;
          }
          const at = position.get(location);
          if (at !== undefined) (order[at] as { dead?: boolean }).dead = true;
          position.set(location, order.length);
          order.push({
            location,
            name: parsed.name as string,
            ...(f.identity ? { identity: f.identity } : {}),
          });
        }
      }
    }
    order = order.filter((o) => !o.dead);
    // The service's rule: the same file twice counts once, at its highest position; a later
    // name replaces an earlier one.
    const lastOfIdentity = new Map<string, number>();
    order.forEach((o, i) => {
      if (o.identity !== undefined) lastOfIdentity.set(o.identity, i);
    });
    const winners = new Map<string, string>();
    order.forEach((o, i) => {
      if (o.identity !== undefined && lastOfIdentity.get(o.identity) !== i) return;
      winners.set(o.name, o.location);
    });
    for (const [i, o] of order.entries()) {
      const sameFile = o.identity !== undefined ? lastOfIdentity.get(o.identity) : undefined;
      const winner =
        sameFile !== undefined && sameFile !== i
          ? (order[sameFile] as { location: string }).location
          : winners.get(o.name);
      if (winner === o.location) {
        const denied = permission && who && permission.evaluate(who, "skill", o.name) === "deny";
        verdict.set(
          o.location,
          denied
            ? { loaded: false, reason: "denied", detail: `agent ${who.name}` }
            : { loaded: true, name: o.name },
        );
      } else {
        verdict.set(o.location, { loaded: false, reason: "shadowed", ...(winner ? { detail: winner } : {}) });
      }
    }

    for (const location of locations) {
      const cells = rows.get(location) as Record<string, VisibilityCell>;
      const where = place(location);
      const known = verdict.get(location);
      if (where !== "ok") {
        cells[agent] = { loaded: false, reason: where };
      } else if (known) {
        cells[agent] = known;
      } else {
        const b = broken.get(location);
        cells[agent] = b
          ? { loaded: false, reason: b.reason, detail: b.detail }
          : { loaded: false, reason: "not-scanned" };
      }
    }
  }

  const skills = locations.map((location) => {
    const cells = rows.get(location) as Record<string, VisibilityCell>;
    return { name: rowName(location, cells, facts.get(location), broken.get(location)), location, cells };
  });
  skills.sort((a, b) => compareCodeUnits(a.name, b.name) || compareCodeUnits(a.location, b.location));
  return { agents, skills };
}

/** True when a folder between `root` (excluded) and `path` (excluded) holds a SKILL.md. */
function insideSkill(path: string, root: string): boolean {
  if (basename(path) === SKILL_FILE) return false;
  for (let dir = dirname(path); dir !== root && isWithin(dir, root); dir = dirname(dir)) {
    if (existsSync(join(dir, SKILL_FILE))) return true;
  }
  return false;
}

function rank(reason: VisibilityReason): number {
  return VISIBILITY_REASONS.indexOf(reason);
}

/** Why an agent's limits inside `root` keep it from `location` (a path below `dir`), if they do. */
function limitReason(
  location: string,
  dir: string,
  root: DiscoveryRoot,
  symlinked: (path: string) => boolean,
): VisibilityReason | undefined {
  const limits = root.limits;
  if (!limits) return undefined;
  const parts = location.slice(dir.length + (dir.endsWith(sep) ? 0 : 1)).split(sep);
  // A SKILL.md sits in its folder; anything else (a dangling link, a stub) stands for a folder.
  const folders = basename(location) === SKILL_FILE ? parts.slice(0, -1) : parts;
  if (limits.maxDepth !== undefined && folders.length > limits.maxDepth) return "too-deep";
  if (limits.skipDotDirs && folders.some((name) => name.startsWith("."))) return "dot-folder";
  if (limits.followSymlinkFiles === false && basename(location) === SKILL_FILE && symlinked(location)) {
    return "symlinked-file";
  }
  return undefined;
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function linkTarget(path: string): string {
  try {
    return `-> ${readlinkSync(path)}`;
  } catch {
    return "";
  }
}

function failure(error: SkillError | undefined): VisibilityCell {
  if (error?.code === "MISSING_FIELD" && error.field === "name") {
    return { loaded: false, reason: "name-missing", detail: error.message };
  }
  if (error?.code === "INVALID_FIELD" && /over the limit/.test(error.message)) {
    return { loaded: false, reason: "too-long", detail: error.message };
  }
  return { loaded: false, reason: "parse-error", ...(error ? { detail: error.message } : {}) };
}

function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

function tooLong(parsed: Parsed): boolean {
  return (
    codePoints(parsed.name ?? "") > SPEC_LIMITS.name ||
    codePoints(parsed.description ?? "") > SPEC_LIMITS.description
  );
}

function longDetail(parsed: Parsed): string {
  const name = codePoints(parsed.name ?? "");
  const description = codePoints(parsed.description ?? "");
  return name > SPEC_LIMITS.name
    ? `name is ${name} characters (limit ${SPEC_LIMITS.name})`
    : `description is ${description} characters (limit ${SPEC_LIMITS.description})`;
}

/** Reads a SKILL.md once: identity, whether it is a symlink, and its text (size-capped, FIFO-safe). */
function readFacts(location: string): FileFacts {
  const symlink = isSymlink(location);
  let fd: number;
  try {
    fd = openSync(location, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return { location, symlink, readError: readError(location, error) };
  }
  try {
    const stats = fstatSync(fd);
    const identity = `${stats.dev}:${stats.ino}`;
    if (!stats.isFile()) {
      return { location, symlink, identity, readError: readError(location, new Error("not a regular file")) };
    }
    if (stats.size > DEFAULT_MAX_BYTES) {
      return {
        location,
        symlink,
        identity,
        readError: new SkillErrorClass("LIMIT_EXCEEDED", `Skill file too large: ${location}`, {
          path: location,
        }),
      };
    }
    // The frontmatter is what decides; a long body is not read when the head holds it all.
    if (stats.size > HEAD_BYTES) {
      const head = readBytes(fd, HEAD_BYTES);
      const cut = head.lastIndexOf(10);
      if (cut > 0) {
        const text = head.subarray(0, cut + 1).toString("utf8");
        if (holdsFrontmatter(text)) return { location, symlink, identity, text };
      }
    }
    return { location, symlink, identity, text: readBytes(fd, stats.size).toString("utf8") };
  } catch (error) {
    return { location, symlink, readError: readError(location, error) };
  } finally {
    closeSync(fd);
  }
}

function readBytes(fd: number, size: number): Buffer {
  const buffer = Buffer.allocUnsafe(size);
  let filled = 0;
  while (filled < size) {
    const n = readSync(fd, buffer, filled, size - filled, filled);
    if (n === 0) break;
    filled += n;
  }
  return buffer.subarray(0, filled);
}

function holdsFrontmatter(text: string): boolean {
  try {
    splitFrontmatter(text);
    return true;
  } catch {
    return false;
  }
}

function readError(location: string, error: unknown): SkillError {
  return new SkillErrorClass(
    "READ_ERROR",
    `Failed to read skill file: ${location} (${error instanceof Error ? error.message : String(error)})`,
    { path: location },
  );
}

/** Parses with the specification's rules, or with the folder-name fallback (only when it matters). */
function parsedOf(f: FileFacts, fallback: boolean): Parsed {
  if (!f.parsed) f.parsed = parseWith(f, false);
  if (!fallback) return f.parsed;
  const plain = f.parsed;
  // The fallback changes the outcome only for a missing name.
  if (plain.ok || plain.error?.code !== "MISSING_FIELD" || plain.error.field !== "name") return plain;
  if (!f.parsedFallback) f.parsedFallback = parseWith(f, true);
  return f.parsedFallback;
}

function parseWith(f: FileFacts, fallback: boolean): Parsed {
  if (f.text === undefined) return { ok: false, ...(f.readError ? { error: f.readError } : {}) };
  try {
    const { skill } = parseSkill(f.text, f.location, fallback ? { nameFallback: "folder" } : {});
    return { ok: true, name: skill.name, description: skill.description };
  } catch (error) {
    if (!SkillErrorClass.isInstance(error)) throw error;
    return { ok: false, error, ...(looksLikeStub(f.text) ? { stub: true } : {}) };
  }
}

/** One short line holding a path: what git writes for a symlink when it cannot make one. */
function looksLikeStub(text: string): boolean {
  if (text.length === 0 || text.length > STUB_MAX_BYTES) return false;
  const line = text.endsWith("\n") ? text.slice(0, -1) : text;
  return !/[\n\r\0]/.test(line) && line.includes("/") && !line.startsWith("---") && !/\s{2}/.test(line);
}

/** Small files directly in a root, each holding one path: symlinked skill folders checked out as text. */
function stubsIn(dir: string): Broken[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const stubs: Broken[] = [];
  for (const entry of entries) {
    if (!entry.isFile() || entry.name === SKILL_FILE) continue;
    const path = dir.endsWith(sep) ? dir + entry.name : dir + sep + entry.name;
    const text = readSmall(path);
    if (text !== undefined && looksLikeStub(text)) {
      stubs.push({ location: path, reason: "git-symlink-stub", detail: text.trim() });
    }
  }
  return stubs;
}

function readSmall(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size === 0 || stats.size > STUB_MAX_BYTES) return undefined;
    const buffer = Buffer.alloc(stats.size);
    const n = readSync(fd, buffer, 0, stats.size, 0);
    return buffer.subarray(0, n).toString("utf8");
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The name a row goes by: the name most agents load it under, else its own name, else its folder's. */
function rowName(
  location: string,
  cells: Readonly<Record<string, VisibilityCell>>,
  f: FileFacts | undefined,
  b: Broken | undefined,
): string {
  for (const cell of Object.values(cells)) if (cell.loaded) return cell.name;
  if (f?.parsed?.ok && f.parsed.name) return f.parsed.name;
  if (f?.parsedFallback?.ok && f.parsedFallback.name) return f.parsedFallback.name;
  if (b && basename(location) !== SKILL_FILE) return basename(location);
  return basename(dirname(location));
}
