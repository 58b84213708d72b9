import { stat } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { type AgentInfo, type Logger, printable } from "@skill/core";
import { DISCOVERY_PRESETS, type DiscoveryPreset, findWorktreeRoot, foldersBetween } from "@skill/discovery";
import {
  type Config,
  type ConfigLevel,
  ignoredKeysNote,
  loadConfigLevels,
  mergeConfigs,
  misspeltKeyNotes,
} from "./config.js";
import { UsageError, UserError } from "./errors.js";
import { headCacheFile } from "./head-cache-files.js";
import { loadMcp, MCP_DEPTH_VARIABLE, type McpCommand } from "./mcp.js";
import type { Output } from "./output.js";
import { type LayeredPolicy, layeredPolicy } from "./policy.js";
import { configHome, isTrusted, realFolder, trustedFolders, trustFile } from "./trust.js";

/** Options every command accepts. */
export interface GlobalOptions {
  readonly cwd?: string;
  readonly home?: string;
  readonly config?: string;
  readonly preset?: string;
  readonly agent?: string;
  readonly cache?: string;
  readonly url?: string[];
  readonly offline?: boolean;
  readonly timeout?: number;
  readonly maxArchiveBytes?: number;
  readonly maxUnpackedBytes?: number;
  readonly maxArchiveFiles?: number;
  readonly mcp?: string[];
  /** Start the MCP servers a project config names, this run only. */
  readonly trust?: boolean;
  readonly json?: boolean;
  readonly color?: boolean;
  readonly verbose?: boolean;
  /** `--no-head-cache`: read every SKILL.md, keep no heads. */
  readonly headCache?: boolean;
}

/**
 * The limits of `@skill/remote`'s pull that the command line raised or lowered
 * (`--max-archive-bytes`, `--max-unpacked-bytes`, `--max-archive-files`); the rest keep
 * `PULL_DEFAULTS`.
 */
export interface PullLimits {
  readonly maxArchiveBytes?: number;
  readonly maxUnpackedBytes?: number;
  readonly maxArchiveFiles?: number;
}

/** The agent presets `--preset` accepts: every one @skill/discovery has. */
export const PRESETS: readonly DiscoveryPreset[] = DISCOVERY_PRESETS;
type Preset = DiscoveryPreset;

/** Everything a command needs, resolved once from flags, environment and config. */
export interface Context {
  readonly cwd: string;
  readonly home: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly config: Config;
  /** The config files in force, lowest precedence first (user, then project root down to cwd). */
  readonly configFiles: readonly string[];
  /** The permission rules of every config level: a subfolder adds rules, a parent's deny holds. */
  readonly policy: LayeredPolicy;
  readonly preset: Preset;
  readonly agent: AgentInfo;
  readonly cacheDir: string;
  /**
   * The file this run keeps the heads of SKILL.md files in (`fileHeadCache`), one per project
   * folder and preset below `skillCacheHome`; `undefined` with `--no-head-cache`.
   */
  readonly headCacheFile?: string;
  readonly urls: readonly string[];
  /** Remote packs: serve the cache, never the network. */
  readonly offline: boolean;
  /** Remote packs: longest wait for a server, in ms (a cached copy is served past it). */
  readonly timeoutMs?: number;
  /** Remote packs: the pull limits given on the command line. */
  readonly limits: PullLimits;
  /** MCP servers to load skills from: config `mcp` (run in the config's folder), then `--mcp`. */
  readonly mcp: readonly McpCommand[];
  /** What ends what the command started (MCP server processes); the CLI runs it when a command ends. */
  readonly cleanup: (() => Promise<void>)[];
  readonly out: Output;
  /** Warnings the libraries reported; shown with --verbose. */
  readonly warnings: string[];
  readonly logger: Logger;
  /** The line naming the config files in force (or where none was found), for --verbose and doctor. */
  readonly configNote: (files: readonly string[]) => string;
  /** True when the agent's permissions deny it the skill of that name. */
  readonly denied: (name: string) => boolean;
}

/** Which MCP servers a command may start: those of trusted configs and `--mcp`, or `--mcp` alone. */
export type McpUse = "trusted" | "explicit-only";

/** The fields of a context that come from the config files. */
type ConfigFields = Pick<Context, "config" | "configFiles" | "policy" | "agent" | "urls" | "denied" | "mcp">;

/** MCP servers the configs name, each with the folder it runs in and whether it may start. */
interface NamedServer extends McpCommand {
  readonly file: string;
  readonly trusted: boolean;
}

async function namedServers(levels: readonly ConfigLevel[], trustAll: boolean, trustedFile: string) {
  const servers: NamedServer[] = [];
  let trusted: string[] | undefined;
  for (const { config, scope } of levels) {
    if (config.mcp.length === 0 || !config.file) continue;
    const folder = dirname(config.file);
    let ok = trustAll || scope !== "project";
    if (!ok) {
      trusted ??= await trustedFolders(trustedFile);
      ok = isTrusted(await realFolder(folder), trusted);
    }
    for (const line of config.mcp) servers.push({ line, cwd: folder, file: config.file, trusted: ok });
  }
  return servers;
}

function fromLevels(
  levels: readonly ConfigLevel[],
  servers: readonly NamedServer[],
  options: GlobalOptions,
  here: string,
): ConfigFields {
  const config = mergeConfigs(levels);
  const agentName = options.agent ?? "build";
  const agent: AgentInfo = { name: agentName };
  const urls = [...config.skills.urls, ...(options.url ?? [])];
  const policy = layeredPolicy(levels.map((l) => l.config));
  const denied = (name: string) => policy.evaluate(agent, "skill", name) === "deny";
  const mcp: McpCommand[] = [
    ...servers.filter((s) => s.trusted).map(({ line, cwd }) => ({ line, cwd })),
    ...(options.mcp ?? []).map((line) => ({ line, cwd: here, explicit: true })),
  ];
  const configFiles = levels.flatMap((l) => (l.config.file ? [l.config.file] : []));
  return { config, configFiles, policy, agent, urls, denied, mcp };
}

/**
 * A config that fails to load fails the commands that use it, when they use it: `validate
 * PATH`, `pack DIR` and `pull URL` need no config and still run.
 */
function failingOnUse(error: unknown): ConfigFields {
  const fail = (): never => {
    throw error;
  };
  return {
    get config() {
      return fail();
    },
    get configFiles() {
      return fail();
    },
    get policy() {
      return fail();
    },
    get agent() {
      return fail();
    },
    get urls() {
      return fail();
    },
    get denied() {
      return fail();
    },
    get mcp() {
      return fail();
    },
  };
}

/**
 * Flags, environment and config resolved for one command. `use.mcp` says which MCP servers it
 * may start: read-only commands (`validate`, `audit`, `doctor`, `pack`, `verify`) and
 * `serve-mcp` start none that a config names; the others start a project config's servers only
 * in a trusted folder (`--trust`, `skill trust`). A CLI started by another as an MCP server
 * (`SKILL_MCP_DEPTH` set) starts none at all.
 */
export async function createContext(
  options: GlobalOptions,
  out: Output,
  use: { readonly mcp: McpUse; readonly remote?: boolean } = { mcp: "trusted" },
): Promise<Context> {
  const env = process.env;
  // Paths given on the command line are relative to where the command runs, not to --cwd.
  const here = process.cwd();
  const cwd = resolve(here, options.cwd ?? ".");
  const home = resolve(here, options.home ?? env.HOME ?? homedir());
  const preset = (options.preset ?? "default") as Preset;
  if (!PRESETS.includes(preset)) {
    throw new UsageError(`Unknown preset '${options.preset}' (expected one of: ${PRESETS.join(", ")})`);
  }
  if (options.cwd !== undefined) await mustBeFolder("--cwd", options.cwd, cwd);
  if (options.home !== undefined) await mustBeFolder("--home", options.home, home);
  let fields: ConfigFields;
  let project = cwd; // its git worktree's root, found below (else the folder, as on a failure)
  let usesMcp = false;
  const nested = Number(env[MCP_DEPTH_VARIABLE] ?? 0) > 0;
  try {
    project = findWorktreeRoot(cwd) ?? cwd;
    const levels = await loadConfigLevels({
      cwd,
      folders: foldersBetween(project, cwd) ?? [cwd],
      userFile: join(configHome(home, env), "skill", "config.json"),
      ...(options.config === undefined ? {} : { explicit: resolve(here, options.config) }),
    });
    const named =
      use.mcp === "trusted" && !nested
        ? await namedServers(levels, options.trust === true, trustFile(home, env))
        : [];
    fields = fromLevels(levels, named, nested ? { ...options, mcp: [] } : options, here);
    usesMcp = fields.mcp.length > 0;
    noteServers(out, named, nested ? (options.mcp?.length ?? 0) : 0);
    for (const level of levels)
      for (const line of misspeltKeyNotes(level.config)) out.error(`skill: warning: ${line}`);
    const note = ignoredKeysNote(fields.config);
    if (note && out.verbose) out.error(`skill: warning: ${note}`);
    if (options.agent !== undefined && !(options.agent in fields.config.agent)) {
      const known = Object.keys(fields.config.agent).sort();
      out.error(
        printable(
          `skill: warning: agent '${options.agent}' is not in ${fields.configFiles.join(", ") || "any config (none found)"}; only the global permission rules apply${known.length > 0 ? ` (agents there: ${known.join(", ")})` : ""}`,
        ),
      );
    }
  } catch (error) {
    fields = failingOnUse(error);
  }
  const configNote = (files: readonly string[]) =>
    printable(
      files.length > 0
        ? `config: ${files.join(", ")}`
        : `config: none found (looked for ${CONFIG_NAMES} from the project root down to ${cwd}, and in ${join(configHome(home, env), "skill")})`,
    );
  if (usesMcp) await loadMcp();
  // Remote packs (and their archive libraries) load only when a pack is configured or the
  // command reads the cache (`use.remote`).
  let wantsRemote = false;
  try {
    wantsRemote = fields.urls.length > 0;
  } catch {
    // A broken config: the command that needs it reports the error when it reads it.
  }
  const remote = wantsRemote || use.remote === true ? await loadRemote() : undefined;
  const warnings: string[] = [];
  const logger: Logger = { warn: (message) => warnings.push(message) };
  let cacheDir = options.cache ? resolve(here, options.cache) : undefined;
  const cleanup: (() => Promise<void>)[] = [];
  const ctx = {
    cwd,
    home,
    env,
    preset,
    get cacheDir(): string {
      if (cacheDir !== undefined) return cacheDir;
      if (!remote) throw new Error("createContext loads @skill/remote for the commands that read its cache");
      cacheDir = remote.defaultCacheDir({ ...env, HOME: options.home ? home : env.HOME });
      return cacheDir;
    },
    // The user's own cache, never below --home: that folder is only read for skills.
    ...(options.headCache === false ? {} : { headCacheFile: headCacheFile(project, preset, env) }),
    offline: options.offline === true,
    ...(options.timeout === undefined ? {} : { timeoutMs: options.timeout }),
    limits: pullLimits(options),
    cleanup,
    out,
    warnings,
    logger,
    configNote,
  };
  return Object.defineProperties(ctx, Object.getOwnPropertyDescriptors(fields)) as Context;
}

/** A folder named on the command line must be one: a typo would silently drop its skills. */
async function mustBeFolder(flag: string, given: string, path: string): Promise<void> {
  // An empty value (an unset "$VAR") would be the folder the command runs in: refused.
  if (given.trim() === "") throw new UsageError(`${flag} needs a folder, found an empty value`);
  const info = await stat(path).catch(() => undefined);
  if (!info?.isDirectory())
    throw new UserError(`${flag} ${path}: ${info ? "not a folder" : "no such folder"}`);
}

const CONFIG_NAMES = "skill.config.json, opencode.jsonc, opencode.json";

/** One line on stderr per config whose servers were not started, saying how to allow them. */
function noteServers(out: Output, named: readonly NamedServer[], droppedFlags: number): void {
  const held = new Map<string, number>();
  for (const s of named) if (!s.trusted) held.set(s.file, (held.get(s.file) ?? 0) + 1);
  for (const [file, n] of held) {
    const folder = dirname(file);
    out.error(
      printable(
        `skill: not starting ${n} MCP ${n === 1 ? "server" : "servers"} named in ${file}: ${folder} is not a trusted folder (run 'skill trust ${folder}' to allow it, or pass --trust for this run)`,
      ),
    );
  }
  if (droppedFlags > 0) {
    out.error(
      `skill: not starting --mcp servers: this skill runs as an MCP server of another (${MCP_DEPTH_VARIABLE} is set)`,
    );
  }
}

let remoteModule: typeof import("@skill/remote") | undefined;

/** Remote packs, their cache and their archive libraries: loaded for a command that uses them. */
async function loadRemote(): Promise<typeof import("@skill/remote")> {
  remoteModule ??= await import("@skill/remote");
  return remoteModule;
}

/** `@skill/remote`, once `createContext` has loaded it (for a configured pack or `use.remote`). */
export function loadedRemote(): typeof import("@skill/remote") | undefined {
  return remoteModule;
}

function pullLimits(options: GlobalOptions): PullLimits {
  const { maxArchiveBytes, maxUnpackedBytes, maxArchiveFiles } = options;
  return {
    ...(maxArchiveBytes === undefined ? {} : { maxArchiveBytes }),
    ...(maxUnpackedBytes === undefined ? {} : { maxUnpackedBytes }),
    ...(maxArchiveFiles === undefined ? {} : { maxArchiveFiles }),
  };
}

/**
 * What every command that reads remote packs passes on: cache, logger, --offline, --timeout and
 * the pull limits.
 */
export function remoteOptions(ctx: Context) {
  return {
    cacheDir: ctx.cacheDir,
    logger: ctx.logger,
    ...(ctx.offline ? { offline: true } : {}),
    ...(ctx.timeoutMs === undefined ? {} : { timeoutMs: ctx.timeoutMs }),
    ...ctx.limits,
  };
}

export function policy(ctx: Context): LayeredPolicy {
  return ctx.policy;
}
