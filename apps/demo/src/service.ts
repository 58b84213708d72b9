// The skills a command reads: the sources an agent here would load, the service over them, and
// what a server asked for with --mcp failed to give.
import { accessSync, constants } from "node:fs";
import { dirname } from "node:path";
import {
  errnoOf,
  errorMessage,
  fileHeadCache,
  type LoadReport,
  type Logger,
  printable,
  SkillService,
  type SkillSource,
  type ValidationTarget,
} from "@skill/core";
import { agentProfile, type DiscoveryOptions } from "@skill/discovery";
import { type Context, loadedRemote, policy, remoteOptions } from "./context.js";
import { pruneHeadCaches } from "./head-cache-files.js";
import { mcpSources } from "./mcp.js";

function discoveryOptions(ctx: Context): DiscoveryOptions {
  return {
    cwd: ctx.cwd,
    home: ctx.home,
    env: ctx.env,
    preset: ctx.preset,
    paths: ctx.config.skills.paths,
    logger: ctx.logger,
  };
}

/**
 * Whose name rules `--preset` stands for where a catalog ranks valid names first: Codex's and
 * Claude Code's own targets, the specification for every other agent.
 */
export function presetTarget(ctx: Context): ValidationTarget {
  return ctx.preset === "codex" || ctx.preset === "claude-code" ? ctx.preset : "spec";
}

/** The sources an agent here would load, lowest precedence first: disk, remote packs, MCP servers. */
export function sources(ctx: Context): SkillSource[] {
  const list = agentProfile(discoveryOptions(ctx)).sources;
  if (ctx.urls.length > 0) {
    const remote = loadedRemote();
    if (!remote) throw new Error("createContext loads @skill/remote before sources() needs it");
    list.push(remote.remoteSource(ctx.urls, remoteOptions(ctx)));
  }
  if (ctx.mcp.length > 0) {
    const mcp = mcpSources(ctx.mcp, ctx.env, ctx.timeoutMs === undefined ? {} : { timeoutMs: ctx.timeoutMs });
    ctx.cleanup.push(mcp.close);
    list.push(...mcp.sources);
    mcp.sources.forEach((source, i) => {
      if (ctx.mcp[i]?.explicit) EXPLICIT_MCP.add(source.id);
    });
  }
  return list;
}

/** Ids of the MCP sources the command line asked for (`--mcp`), as `sources()` made them. */
const EXPLICIT_MCP = new Set<string>();

/** Codes an MCP source reports when its server gave no skills at all. */
const MCP_DOWN = new Set([
  "mcp-connect-failed",
  "mcp-timeout",
  "mcp-no-skills",
  "mcp-error",
  "mcp-invalid-response",
]);

/**
 * Says on stderr, once each, which MCP server asked for with `--mcp` gave no skills and why
 * (the first lines of its stderr are in the message); `true` when one did, so the command can
 * exit 1. A server a config names only warns, as any source does.
 */
export function explicitMcpFailed(ctx: Context, report: LoadReport): boolean {
  let failed = false;
  for (const d of report.diagnostics) {
    if (d.source === undefined || !EXPLICIT_MCP.has(d.source) || !MCP_DOWN.has(d.code)) continue;
    if (!SAID.has(d.message)) ctx.out.error(printable(`skill: ${d.message}`));
    SAID.add(d.message);
    failed = true;
  }
  if (failed) mcpFailed = true;
  return failed;
}

const SAID = new Set<string>();
let mcpFailed = false;

/** Whether a server asked for with `--mcp` gave no skills in this run: the command exits 1. */
export function explicitMcpFailedInRun(): boolean {
  return mcpFailed;
}

/** `service.discoverAndLoad()`, then what a server asked for with `--mcp` failed to give, said. */
export async function loadSkills(ctx: Context, service: SkillService): Promise<LoadReport> {
  const report = await service.discoverAndLoad();
  explicitMcpFailed(ctx, report);
  return report;
}

/**
 * Whether a head cache at `file` can serve or be written: the file can be read, or its folder
 * (or the nearest one that exists) written. Where neither holds (a read-only home, a sandbox),
 * a cache would only cost its writes' preparation on every run: every SKILL.md is read instead,
 * and --verbose says why.
 */
function usableCache(file: string, logger: Logger): boolean {
  try {
    accessSync(file, constants.R_OK);
    return true;
  } catch {}
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    try {
      accessSync(dir, constants.W_OK);
      return true;
    } catch (error) {
      if (errnoOf(error) === "ENOENT" && dirname(dir) !== dir) continue;
      logger.warn(`Head cache ${file} cannot be written (${errorMessage(error)}); every SKILL.md is read`);
      return false;
    }
  }
}

/** Cache files whose pruning is queued for the end of this command (a command may make several services). */
const pruning = new Set<string>();

/** Most heads one project's cache file keeps (about 0.7 KB each). */
const HEAD_CACHE_ENTRIES = 20_000;

export function createService(ctx: Context, list: readonly SkillSource[] = sources(ctx)): SkillService {
  // The preset's load rules too: `--preset codex` reads skills as Codex does.
  const { rules } = agentProfile(discoveryOptions(ctx));
  // Unchanged SKILL.md files are stat()ed, not read; a cache that cannot be read or written
  // costs reads, never a wrong skill, and says why under --verbose (only).
  const verbose: Logger = {
    warn: (message) => {
      if (ctx.out.verbose) ctx.out.error(printable(`skill: warning: ${message}`));
    },
  };
  const file = ctx.headCacheFile;
  const headCache =
    file === undefined || !usableCache(file, verbose)
      ? undefined
      : fileHeadCache(file, { maxEntries: HEAD_CACHE_ENTRIES, logger: verbose });
  if (headCache && file !== undefined && !pruning.has(file)) {
    // Once the command is done: other projects' files nobody has written for a month go.
    pruning.add(file);
    const since = Date.now();
    ctx.cleanup.push(async () => {
      await pruneHeadCaches(file, since);
    });
  }
  return new SkillService({
    sources: list,
    permission: policy(ctx),
    logger: ctx.logger,
    ...rules,
    ...(headCache ? { headCache } : {}),
  });
}

/** Pinned names from the config's `skills.pinned`, then `--pin`, each once. */
export function pinnedNames(ctx: Context, pin: readonly string[] = []): string[] {
  return [...new Set([...ctx.config.skills.pinned, ...pin])];
}

/**
 * What the `--preset` agent does with copies of `name` that one registry cannot show (Codex
 * lists them all, opencode keeps one at random), from a load's shadowed copies; `undefined`
 * when the agent keeps one winner as the registry does, or there is one copy.
 */
export function agentCopies(
  ctx: Context,
  report: LoadReport,
  name: string,
): { kind: "duplicate-listed" | "nondeterministic"; locations: string[] } | undefined {
  const { duplicates } = agentProfile(discoveryOptions(ctx));
  const shadowed = report.shadowed.filter((s) => s.name === name);
  if (duplicates === undefined || shadowed.length === 0) return undefined;
  const locations = [...new Set([shadowed[0]?.kept as string, ...shadowed.map((s) => s.dropped)])];
  return { kind: duplicates, locations };
}
