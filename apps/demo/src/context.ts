import { stat } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, resolve } from "node:path";
import { type AgentInfo, type Logger, printable, SkillService, type SkillSource } from "@skill/core";
import {
  agentProfile,
  DISCOVERY_PRESETS,
  type DiscoveryOptions,
  type DiscoveryPreset,
} from "@skill/discovery";
import { createPermissionPolicy } from "@skill/permissions";
import { defaultCacheDir } from "@skill/remote";
import { type Config, ignoredKeysNote, loadConfig } from "./config.js";
import { UsageError, UserError } from "./errors.js";
import { loadMcp, type McpCommand, mcpSources } from "./mcp.js";
import type { Output } from "./output.js";

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
  readonly mcp?: string[];
  readonly json?: boolean;
  readonly color?: boolean;
  readonly verbose?: boolean;
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
  readonly preset: Preset;
  readonly agent: AgentInfo;
  readonly cacheDir: string;
  readonly urls: readonly string[];
  /** Remote packs: serve the cache, never the network. */
  readonly offline: boolean;
  /** Remote packs: longest wait for a server, in ms (a cached copy is served past it). */
  readonly timeoutMs?: number;
  /** MCP servers to load skills from: config `mcp` (run in the config's folder), then `--mcp`. */
  readonly mcp: readonly McpCommand[];
  /** What ends what the command started (MCP server processes); the CLI runs it when a command ends. */
  readonly cleanup: (() => Promise<void>)[];
  readonly out: Output;
  /** Warnings the libraries reported; shown with --verbose. */
  readonly warnings: string[];
  readonly logger: Logger;
  /** True when the agent's permissions deny it the skill of that name. */
  readonly denied: (name: string) => boolean;
}

/** The fields of a context that come from the config file. */
type ConfigFields = Pick<Context, "config" | "agent" | "urls" | "denied" | "mcp">;

function fromConfig(config: Config, options: GlobalOptions, here: string, cwd: string): ConfigFields {
  const agentName = options.agent ?? "build";
  const agentPermission = config.agent[agentName]?.permission;
  const agent: AgentInfo = agentPermission
    ? { name: agentName, permission: agentPermission }
    : { name: agentName };
  const urls = [...config.skills.urls, ...(options.url ?? [])];
  const permission = createPermissionPolicy(config.permission ? { config: config.permission } : {});
  const denied = (name: string) => permission.evaluate(agent, "skill", name) === "deny";
  const mcp: McpCommand[] = [
    ...config.mcp.map((line) => ({ line, cwd: config.file ? dirname(config.file) : cwd })),
    ...(options.mcp ?? []).map((line) => ({ line, cwd: here })),
  ];
  return { config, agent, urls, denied, mcp };
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

export async function createContext(options: GlobalOptions, out: Output): Promise<Context> {
  const env = process.env;
  // Paths given on the command line are relative to where the command runs, not to --cwd.
  const here = process.cwd();
  const cwd = resolve(here, options.cwd ?? ".");
  const home = resolve(here, options.home ?? env.HOME ?? homedir());
  const preset = (options.preset ?? "default") as Preset;
  if (!PRESETS.includes(preset)) {
    throw new UsageError(`Unknown preset '${options.preset}' (expected one of: ${PRESETS.join(", ")})`);
  }
  if (options.cwd !== undefined) {
    const info = await stat(cwd).catch(() => undefined);
    if (!info?.isDirectory()) {
      throw new UserError(`--cwd ${cwd}: ${info ? "not a folder" : "no such folder"}`);
    }
  }
  let fields: ConfigFields;
  let usesMcp = false;
  try {
    const config = await loadConfig(
      cwd,
      options.config === undefined ? undefined : resolve(here, options.config),
    );
    fields = fromConfig(config, options, here, cwd);
    usesMcp = fields.mcp.length > 0;
    const note = ignoredKeysNote(config);
    if (note && out.verbose) out.error(`skill: warning: ${note}`);
    if (options.agent !== undefined && !(options.agent in config.agent)) {
      const known = Object.keys(config.agent).sort();
      out.error(
        printable(
          `skill: warning: agent '${options.agent}' is not in ${config.file ?? "any config (none found)"}; only the global permission rules apply${known.length > 0 ? ` (agents there: ${known.join(", ")})` : ""}`,
        ),
      );
    }
  } catch (error) {
    fields = failingOnUse(error);
  }
  if (usesMcp) await loadMcp();
  // Remote packs (and their archive libraries) load only when a pack is configured.
  let wantsRemote = false;
  try {
    wantsRemote = fields.urls.length > 0;
  } catch {
    // A broken config: the command that needs it reports the error when it reads it.
  }
  if (wantsRemote) await loadRemoteSource();
  const warnings: string[] = [];
  const logger: Logger = { warn: (message) => warnings.push(message) };
  const cacheDir = options.cache
    ? resolve(here, options.cache)
    : defaultCacheDir({ ...env, HOME: options.home ? home : env.HOME });
  const cleanup: (() => Promise<void>)[] = [];
  const ctx = {
    cwd,
    home,
    env,
    preset,
    cacheDir,
    offline: options.offline === true,
    ...(options.timeout === undefined ? {} : { timeoutMs: options.timeout }),
    cleanup,
    out,
    warnings,
    logger,
  };
  return Object.defineProperties(ctx, Object.getOwnPropertyDescriptors(fields)) as Context;
}

export function discoveryOptions(ctx: Context): DiscoveryOptions {
  return {
    cwd: ctx.cwd,
    home: ctx.home,
    env: ctx.env,
    preset: ctx.preset,
    paths: ctx.config.skills.paths,
    logger: ctx.logger,
  };
}

let remoteSourceOf: typeof import("@skill/remote").remoteSource | undefined;

async function loadRemoteSource(): Promise<void> {
  remoteSourceOf ??= (await import("@skill/remote")).remoteSource;
}

/** The sources an agent here would load, lowest precedence first: disk, remote packs, MCP servers. */
export function sources(ctx: Context): SkillSource[] {
  const list = agentProfile(discoveryOptions(ctx)).sources;
  if (ctx.urls.length > 0) {
    if (!remoteSourceOf) throw new Error("createContext loads remoteSource before sources() needs it");
    list.push(remoteSourceOf(ctx.urls, remoteOptions(ctx)));
  }
  if (ctx.mcp.length > 0) {
    const mcp = mcpSources(ctx.mcp);
    ctx.cleanup.push(mcp.close);
    list.push(...mcp.sources);
  }
  return list;
}

/** What every command that reads remote packs passes on: cache, logger, --offline, --timeout. */
export function remoteOptions(ctx: Context) {
  return {
    cacheDir: ctx.cacheDir,
    logger: ctx.logger,
    ...(ctx.offline ? { offline: true } : {}),
    ...(ctx.timeoutMs === undefined ? {} : { timeoutMs: ctx.timeoutMs }),
  };
}

export function policy(ctx: Context) {
  return createPermissionPolicy(ctx.config.permission ? { config: ctx.config.permission } : {});
}

export function createService(ctx: Context, list: readonly SkillSource[] = sources(ctx)): SkillService {
  // The preset's load rules too: `--preset codex` reads skills as Codex does.
  const { rules } = agentProfile(discoveryOptions(ctx));
  return new SkillService({ sources: list, permission: policy(ctx), logger: ctx.logger, ...rules });
}
