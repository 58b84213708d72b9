import { homedir } from "node:os";
import { parse, resolve } from "node:path";
import { describeKind, type Logger, noopLogger, quote, SkillError } from "@skill/core";
import type { DiscoveryOptions, DiscoveryRoot } from "./discovery-options.js";
import { PRESET_LAYOUTS, RootList } from "./layouts.js";
import { findWorktreeRoot, foldersBetween, resolvePath } from "./paths.js";
import { DISCOVERY_PRESETS, type DiscoveryPreset, presetLimits } from "./presets.js";

/** Agents that, outside a git repository, read project roots in every folder up to the filesystem root. */
const WALK_UP_WITHOUT_GIT: ReadonlySet<DiscoveryPreset> = new Set([
  "opencode",
  "claude-code",
  "copilot",
  "pi",
]);

/** Agents that keep the first skill of a name they meet, searching their roots in order. */
const FIRST_WINS: ReadonlySet<DiscoveryPreset> = new Set(["copilot", "pi", "amp"]);

function projectFolders(cwd: string, home: string, stopAt: string | undefined, logger: Logger): string[] {
  const top = stopAt === undefined ? (findWorktreeRoot(cwd) ?? cwd) : resolvePath(stopAt, cwd, home);
  const folders = foldersBetween(top, cwd);
  if (folders) return folders;
  logger.warn(
    `stopAt ${top} is not ${cwd} or one of its parents; only ${cwd} is searched for project skills`,
    {
      path: top,
    },
  );
  return [cwd];
}

/**
 * The roots the options select, lowest precedence first (for the first-wins agents, Copilot,
 * pi and Amp: in their search order, each root marked `precedence: "first-wins"`, so the first
 * wins): each becomes one source of {@link discoverySources}. Pure path arithmetic plus a walk
 * up looking for `.git`.
 */
export function discoveryRoots(options: DiscoveryOptions): DiscoveryRoot[] {
  // From JSON or plain JavaScript, a missing folder would be Node's own ERR_INVALID_ARG_TYPE.
  for (const field of ["cwd", "home"] as const) {
    const value: unknown = options?.[field];
    if ((field === "cwd" || value !== undefined) && (typeof value !== "string" || value === "")) {
      throw new SkillError(
        "INVALID_FIELD",
        `Invalid discovery option ${field}: expected the path of a folder, found ${value === "" ? "an empty string" : describeKind(value)}`,
        { field },
      );
    }
  }
  const env = options.env ?? process.env;
  const home = resolve(options.home ?? homedir());
  const cwd = resolve(options.cwd);
  const logger = options.logger ?? noopLogger;
  const preset = options.preset ?? "default";
  if (!DISCOVERY_PRESETS.includes(preset)) {
    throw new SkillError(
      "INVALID_FIELD",
      `Unknown discovery preset ${quote(options.preset)} (expected one of: ${DISCOVERY_PRESETS.join(", ")})`,
      { field: "preset" },
    );
  }
  const walked = projectFolders(cwd, home, options.stopAt, logger);
  // Gemini CLI reads the workspace folder alone; Amp walks up past the git root, to the top;
  // outside a git repository, opencode, Claude Code, Copilot and pi walk up to the top too.
  const toTop =
    options.stopAt === undefined &&
    (preset === "amp" || (WALK_UP_WITHOUT_GIT.has(preset) && findWorktreeRoot(cwd) === undefined));
  const levels =
    preset === "gemini" ? [cwd] : toTop ? (foldersBetween(parse(cwd).root, cwd) ?? walked) : walked;
  const limits = presetLimits(preset);
  const withLimits = {
    ...(limits === undefined ? {} : { limits }),
    ...(FIRST_WINS.has(preset) ? { precedence: "first-wins" as const } : {}),
  };
  const list = new RootList({ options, env, home, cwd, levels, withLimits });
  PRESET_LAYOUTS[preset](list);
  for (const path of options.paths ?? []) {
    const dir = resolvePath(path, cwd, home);
    list.roots.push({ id: `config:${dir}`, dirs: [dir], configured: path });
  }
  return FIRST_WINS.has(preset) ? keepFirstById(list.roots) : keepLastById(list.roots);
}

/** One source per id, at its first position: the one a first-wins agent searches first. */
function keepFirstById(roots: readonly DiscoveryRoot[]): DiscoveryRoot[] {
  const seen = new Set<string>();
  return roots.filter((root) => !seen.has(root.id) && seen.add(root.id));
}

/** One source per id, at the position of its last (highest-precedence) occurrence. */
function keepLastById(roots: readonly DiscoveryRoot[]): DiscoveryRoot[] {
  const seen = new Set<string>();
  const kept: DiscoveryRoot[] = [];
  for (let i = roots.length - 1; i >= 0; i--) {
    const root = roots[i] as DiscoveryRoot;
    if (seen.has(root.id)) continue;
    seen.add(root.id);
    kept.push(root);
  }
  return kept.reverse();
}
