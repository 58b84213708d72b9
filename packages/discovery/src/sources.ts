import { homedir } from "node:os";
import { join, parse, resolve } from "node:path";
import {
  compareCodeUnits,
  type Diagnostic,
  type LoadRules,
  type Logger,
  noopLogger,
  quote,
  type ScanContext,
  SkillError,
  type SkillSource,
  type SkippedPath,
  type SourceScan,
} from "@skill/core";
import { findWorktreeRoot, foldersBetween, isWithin, posixRelative, resolvePath } from "./paths.js";
import { scanRoots } from "./scan.js";
import type { Listings, RootsScanOptions } from "./scan-options.js";

type Env = Readonly<Record<string, string | undefined>>;

/** Which agent's layout to reproduce: one preset per agent (see the README for each one's rules). */
export type DiscoveryPreset =
  | "default"
  | "agents"
  | "opencode"
  | "claude-code"
  | "codex"
  | "gemini"
  | "copilot"
  | "cursor"
  | "pi"
  | "goose"
  | "amp";

/** Every preset, in the order `compareAgents` reports them by default. */
export const DISCOVERY_PRESETS: readonly DiscoveryPreset[] = Object.freeze([
  "default",
  "agents",
  "opencode",
  "claude-code",
  "codex",
  "gemini",
  "copilot",
  "cursor",
  "pi",
  "goose",
  "amp",
] as const);

/** Where to look for skills. Every field but `cwd` has a default. */
export interface DiscoveryOptions {
  /** The project directory the agent runs in. */
  readonly cwd: string;
  /** Home directory for the global roots and `~/` (default `os.homedir()`). */
  readonly home?: string;
  /**
   * Top of the project walk: project roots are looked for in every folder from here down to
   * `cwd`. Default: the nearest folder at or above `cwd` holding `.git` (folder or file);
   * outside a git repository, `cwd` alone.
   */
  readonly stopAt?: string;
  /**
   * Extra folders (config `skills.paths`), highest precedence, each scanned for `SKILL.md` at any depth:
   * `~/` is the home directory, relative paths resolve against `cwd`, a missing folder is a
   * logger warning.
   */
  readonly paths?: readonly string[];
  /** Environment read for flags and agent variables (default `process.env`). */
  readonly env?: Env;
  /** Where administrators' roots live, e.g. `<systemDir>/codex/skills` (default `/etc`). */
  readonly systemDir?: string;
  /** The agent layout (default `"default"`); see the README for each preset's roots. */
  readonly preset?: DiscoveryPreset;
  /** Follow symlinked folders and `SKILL.md` files (default `true`). */
  readonly followSymlinks?: boolean;
  /** Folder globs not to enter (default `["node_modules", ".git"]`; a list replaces it). */
  readonly ignore?: readonly string[];
  /** Receives warnings: unreadable folders, broken links, missing configured paths. */
  readonly logger?: Logger;
  /**
   * Whether the user trusts the workspace (default `true`). Gemini CLI reads its workspace
   * roots (`.gemini/skills`, `.agents/skills` of the cwd) only in a trusted folder: with
   * `false` the `gemini` preset keeps the user roots alone. Other presets ignore it.
   */
  readonly trusted?: boolean;
}

/** The limits an agent applies inside each of its roots (a subset of `ScanOptions`). */
export interface RootLimits {
  readonly maxDepth?: number;
  readonly maxDirs?: number;
  readonly skipDotDirs?: boolean;
  readonly followSymlinkFiles?: boolean;
  readonly leafSkills?: boolean;
  readonly enterNodeModules?: boolean;
  readonly minDepth?: number;
}

/** One place a preset looks: a source id and the folders it scans. */
export interface DiscoveryRoot {
  /** The source id, e.g. `global:.claude`, `project:/abs/dir/.agents`, `config:/abs/path`. */
  readonly id: string;
  /** Absolute folders scanned for `SKILL.md`, existing or not. */
  readonly dirs: readonly string[];
  /** For `paths` entries: the value as configured (a missing folder is then a warning). */
  readonly configured?: string;
  /** The agent's depth and folder rules inside these folders (absent: any depth, everything). */
  readonly limits?: RootLimits;
  /**
   * `first-wins`: the agent keeps the first skill of a name it finds, so this root beats every
   * root after it (Copilot, pi, Amp; their roots come in the agent's search order). Absent: a
   * later root wins.
   */
  readonly precedence?: "first-wins";
}

/** Each agent's rules inside a root, as measured (scripts/agents-real; the README says which version). */
const PRESET_LIMITS: Readonly<Partial<Record<DiscoveryPreset, RootLimits>>> = {
  opencode: { enterNodeModules: true },
  "claude-code": { maxDepth: 1, minDepth: 1 },
  codex: {
    maxDepth: 6,
    maxDirs: 2000,
    skipDotDirs: true,
    followSymlinkFiles: false,
    enterNodeModules: true,
  },
  gemini: { maxDepth: 1, skipDotDirs: true },
  copilot: { skipDotDirs: true, leafSkills: true, enterNodeModules: true },
  pi: { skipDotDirs: true, leafSkills: true },
  amp: { maxDepth: 5 },
};

/** Agents that, outside a git repository, read project roots in every folder up to the filesystem root. */
const WALK_UP_WITHOUT_GIT: ReadonlySet<DiscoveryPreset> = new Set([
  "opencode",
  "claude-code",
  "copilot",
  "pi",
]);

/** Agents that keep the first skill of a name they meet, searching their roots in order. */
const FIRST_WINS: ReadonlySet<DiscoveryPreset> = new Set(["copilot", "pi", "amp"]);

/** How each agent reads a SKILL.md, beyond the specification's defaults, as measured. */
const PRESET_RULES: Readonly<Partial<Record<DiscoveryPreset, LoadRules>>> = {
  opencode: { requireDescription: false },
  "claude-code": {
    identity: "folder",
    requireDescription: false,
    descriptionFallback: "body",
    requireFrontmatter: false,
    brokenYaml: "ignore",
  },
  codex: { nameFallback: "folder", rejectBom: true, brokenYaml: "refuse" },
  gemini: { requireDescription: "field", rejectBom: true },
  copilot: {
    nameFallback: "folder",
    requireDescription: false,
    rejectLongFields: true,
    rejectInvalidName: true,
    brokenYaml: "refuse",
  },
  pi: { nameFallback: "folder", rejectBom: true, brokenYaml: "refuse" },
  amp: { rejectInvalidName: true, brokenYaml: "refuse" },
};

/**
 * What an agent does with two skills of one name that a registry cannot copy: Codex lists
 * every copy to the model; opencode keeps whichever parse finishes last (it changes between
 * runs). The preset keeps one deterministic winner; `compareAgents` says this in `detail`.
 */
const PRESET_DUPLICATES: Readonly<Partial<Record<DiscoveryPreset, "duplicate-listed" | "nondeterministic">>> =
  {
    codex: "duplicate-listed",
    opencode: "nondeterministic",
  };

/** The limits the agent of `preset` applies inside each root, as measured (copied; `undefined`: none). */
export function presetLimits(preset: DiscoveryPreset): RootLimits | undefined {
  const limits = PRESET_LIMITS[preset];
  return limits === undefined ? undefined : { ...limits };
}

/** How the agent of `preset` treats duplicate names, when no single winner says it (see {@link compareAgents}). */
export function presetDuplicates(
  preset: DiscoveryPreset,
): "duplicate-listed" | "nondeterministic" | undefined {
  return PRESET_DUPLICATES[preset];
}

/** opencode's reading of a boolean flag: `1` or `true`, any case. */
function truthy(value: string | undefined): boolean {
  const lower = value?.toLowerCase();
  return lower === "1" || lower === "true";
}

/**
 * True when the environment turns off the `.claude` and `.agents` roots:
 * `OPENCODE_DISABLE_EXTERNAL_SKILLS` set to `1` or `true` in any case. (The two Claude Code
 * flags turn off the `.claude` roots only: see {@link isClaudeCodeDisabled}.)
 */
export function isExternalDisabled(env: Env = process.env): boolean {
  return truthy(env.OPENCODE_DISABLE_EXTERNAL_SKILLS);
}

/**
 * True when the environment turns off the `.claude` roots: `OPENCODE_DISABLE_CLAUDE_CODE_SKILLS`,
 * `OPENCODE_DISABLE_CLAUDE_CODE` or `OPENCODE_DISABLE_EXTERNAL_SKILLS`, set to `1` or `true` in
 * any case. opencode 1.18.33 keeps the `.agents` roots under the first two.
 */
export function isClaudeCodeDisabled(env: Env = process.env): boolean {
  return (
    isExternalDisabled(env) ||
    truthy(env.OPENCODE_DISABLE_CLAUDE_CODE_SKILLS) ||
    truthy(env.OPENCODE_DISABLE_CLAUDE_CODE)
  );
}

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
  /** The project levels nearest first, for agents that search from the cwd upwards. */
  const upwards = [...levels].reverse();
  const at = (value: string) => resolvePath(value, cwd, home);
  const limits = PRESET_LIMITS[preset];
  const withLimits = {
    ...(limits === undefined ? {} : { limits }),
    ...(FIRST_WINS.has(preset) ? { precedence: "first-wins" as const } : {}),
  };

  const roots: DiscoveryRoot[] = [];
  /** A user-level root: `<folder>/<subdir>` for each subdir, one source. */
  const global = (folder: string, subdirs: readonly string[] = ["skills"]) => {
    const label = folder !== home && isWithin(folder, home) ? posixRelative(home, folder) : folder;
    roots.push({ id: `global:${label}`, dirs: subdirs.map((s) => join(folder, s)), ...withLimits });
  };
  /** Project roots: for every level (default: from the top down to cwd), each folder name in order. */
  const project = (
    names: readonly string[],
    subdirs: readonly string[] = ["skills"],
    at: readonly string[] = levels,
  ) => {
    for (const level of at) {
      for (const name of names) {
        roots.push({
          id: `project:${join(level, name)}`,
          dirs: subdirs.map((s) => join(level, name, s)),
          ...withLimits,
        });
      }
    }
  };
  const configHome = join(home, ".config");
  const sharedGlobal = join(configHome, "agents");
  const agentsRoots = !isExternalDisabled(env);
  const claudeRoots = !isClaudeCodeDisabled(env);
  const opencodeDirs = ["skill", "skills"];
  /** The folder names of `names` that the opencode flags leave on. */
  const external = (names: readonly string[]) =>
    names.filter((name) => (name === ".claude" ? claudeRoots : agentsRoots));

  switch (preset) {
    case "default":
      if (claudeRoots) global(join(home, ".claude"));
      if (agentsRoots) {
        global(join(home, ".agents"));
        global(sharedGlobal);
      }
      project(external([".claude", ".agents"]));
      break;
    case "agents":
      global(join(home, ".agents"));
      global(sharedGlobal);
      project([".agents"]);
      break;
    case "opencode":
      if (claudeRoots) global(join(home, ".claude"));
      if (agentsRoots) global(join(home, ".agents"));
      project(external([".claude", ".agents"]));
      global(join(env.XDG_CONFIG_HOME ? at(env.XDG_CONFIG_HOME) : configHome, "opencode"), opencodeDirs);
      if (!truthy(env.OPENCODE_DISABLE_PROJECT_CONFIG)) project([".opencode"], opencodeDirs);
      global(join(home, ".opencode"), opencodeDirs);
      if (env.OPENCODE_CONFIG_DIR) global(at(env.OPENCODE_CONFIG_DIR), opencodeDirs);
      break;
    case "claude-code":
      // Personal skills win over the project's in Claude Code.
      project([".claude"]);
      global(env.CLAUDE_CONFIG_DIR ? at(env.CLAUDE_CONFIG_DIR) : join(home, ".claude"));
      break;
    case "codex": {
      const codexHome = env.CODEX_HOME ? at(env.CODEX_HOME) : join(home, ".codex");
      if (process.platform !== "win32") {
        const admin = join(resolve(options.systemDir ?? "/etc"), "codex");
        roots.push({ id: `admin:${admin}`, dirs: [join(admin, "skills")], ...withLimits });
      }
      // Skills Codex installs itself; a dot-folder, so the user root below skips it.
      roots.push({ id: "system:codex", dirs: [join(codexHome, "skills", ".system")], ...withLimits });
      global(codexHome);
      global(join(home, ".agents"));
      // Codex 0.171 reads `.codex/skills` at every level from the git root down, like `.agents`.
      project([".codex", ".agents"]);
      break;
    }
    case "gemini":
      global(join(home, ".gemini"));
      global(join(home, ".agents"));
      // Gemini CLI 0.61.0 reads the workspace's skills only in a trusted folder.
      if (options.trusted !== false) project([".gemini", ".agents"]);
      break;
    case "copilot":
      // Copilot CLI 1.0.102, first match wins: each project folder kind from the cwd upwards,
      // then the personal roots. It does not read `~/.claude/skills`.
      for (const name of [".github", ".agents", ".claude"]) project([name], ["skills"], upwards);
      global(join(home, ".copilot"));
      global(join(home, ".agents"));
      break;
    case "cursor":
      global(join(home, ".cursor"));
      global(join(home, ".claude"));
      global(join(home, ".codex"));
      project([".cursor", ".agents", ".claude", ".codex"]);
      break;
    case "pi":
      // pi 0.73.1, first match wins: `.pi/skills` of the cwd alone, `.agents/skills` from the
      // cwd upwards, then the user roots.
      project([".pi"], ["skills"], [cwd]);
      project([".agents"], ["skills"], upwards);
      global(join(home, ".pi", "agent"));
      global(join(home, ".agents"));
      break;
    case "goose":
      // goose's guide: later folders win, ~/.claude lowest, project .agents highest.
      global(join(home, ".claude"));
      global(join(home, ".agents"));
      global(sharedGlobal);
      global(join(configHome, "goose"));
      project([".claude", ".goose", ".agents"]);
      break;
    case "amp":
      // Amp 0.0.1790142911, first match wins: the user roots, then each level from the cwd up
      // to the filesystem root (past the git root).
      global(sharedGlobal);
      global(join(home, ".agents"));
      global(join(configHome, "amp"));
      global(join(home, ".claude"));
      project([".agents", ".claude"], ["skills"], upwards);
      break;
  }
  for (const path of options.paths ?? []) {
    const dir = at(path);
    roots.push({ id: `config:${dir}`, dirs: [dir], configured: path });
  }
  return FIRST_WINS.has(preset) ? keepFirstById(roots) : keepLastById(roots);
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

/**
 * Folders a scan enters per root of an agent's layout when the agent has no bound of its own
 * (Codex keeps its 2,000), so that a checkout cannot make a scan cost what it likes. Configured
 * paths are the user's choice and have no bound.
 */
export const DEFAULT_MAX_DIRS = 20_000;

/** The scan options every source of one discovery (or watcher) shares. */
export function sharedScanOptions(options: {
  readonly ignore?: readonly string[];
  readonly followSymlinks?: boolean;
  readonly logger?: Logger;
  readonly home?: string;
}): RootsScanOptions {
  return {
    ...(options.ignore === undefined ? {} : { ignore: options.ignore }),
    ...(options.followSymlinks === undefined ? {} : { followSymlinks: options.followSymlinks }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.home === undefined ? {} : { home: options.home }),
  };
}

/**
 * How one root is scanned: the shared options and the agent's limits; for a root of the agent's
 * layout (not a configured path), a folder budget ({@link DEFAULT_MAX_DIRS} unless the agent has
 * one) and the rule that it may not lead to the filesystem root, the home folder or above the
 * folder it sits in.
 */
export function rootScanOptions(root: DiscoveryRoot, shared: RootsScanOptions): RootsScanOptions {
  if (root.configured !== undefined) return { ...shared, ...root.limits };
  return { maxDirs: DEFAULT_MAX_DIRS, ...shared, ...root.limits, layoutRoots: true };
}

/**
 * The skill sources an agent sees from `options.cwd`, lowest precedence first: hand them to
 * `new SkillService({ sources })`. Each source scans its folders for `SKILL.md` files on every
 * `scan()`, so skills added later are found by the next `discoverAndLoad()`.
 *
 * @example
 * const service = new SkillService({ sources: discoverySources({ cwd: process.cwd(), preset: "opencode" }) });
 * await service.discoverAndLoad();
 */
export function discoverySources(options: DiscoveryOptions): SkillSource[] {
  const shared = sharedScanOptions(options);
  return discoveryRoots(options).map((root): SkillSource & { readonly dirs: readonly string[] } => {
    const dirs = [...root.dirs];
    const configured = root.configured;
    const base = rootScanOptions(root, shared);
    const source: SkillSource & { readonly dirs: readonly string[] } = {
      id: root.id,
      ...(root.precedence === undefined ? {} : { precedence: root.precedence }),
      // Known before any scan, so a watcher can start without scanning.
      dirs,
      async scan(ctx: ScanContext, listings?: Listings) {
        const diagnostics: Diagnostic[] = [];
        const skipped: SkippedPath[] = [];
        const files = await scanRoots(dirs, {
          ...base,
          ...(listings === undefined ? {} : { listings }),
          onSkip: (s) => skipped.push(s),
          ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
          onWarning: (d) => diagnostics.push({ ...d, source: root.id }),
          ...(configured === undefined
            ? {}
            : {
                onMissingRoot: (dir: string) =>
                  diagnostics.push({
                    code: "path-not-found",
                    severity: "warning",
                    message: `Skill path not found: ${dir} (configured as ${JSON.stringify(configured)})`,
                    path: dir,
                    source: root.id,
                  }),
              }),
        });
        skipped.sort((a, b) => compareCodeUnits(a.path, b.path) || compareCodeUnits(a.reason, b.reason));
        return {
          entries: files.map((location) => ({ location })),
          dirs: [...dirs],
          diagnostics,
          ...(skipped.length > 0 ? { skipped } : {}),
        };
      },
    };
    SCAN_PLANS.set(source, { dirs, options: base });
    return source;
  });
}

/**
 * What a discovery source scans and how, for the watcher: the same folders under the same
 * rules (loops, ignore globs, depth and folder caps).
 */
export interface ScanPlan {
  readonly dirs: readonly string[];
  readonly options: RootsScanOptions;
}

const SCAN_PLANS = new WeakMap<SkillSource, ScanPlan>();

/** The scan plan of a source made by {@link discoverySources}; `undefined` for any other source. */
export function scanPlanOf(source: SkillSource): ScanPlan | undefined {
  return SCAN_PLANS.get(source);
}

/**
 * `source.scan(ctx)`, with folder listings shared with other scans when the source is one of
 * {@link discoverySources} (see `RootsScanOptions.listings`).
 */
export function scanListed(source: SkillSource, ctx: ScanContext, listings: Listings): Promise<SourceScan> {
  if (!SCAN_PLANS.has(source)) return Promise.resolve(source.scan(ctx));
  const scan = source.scan as (ctx: ScanContext, listings: Listings) => Promise<SourceScan>;
  return scan.call(source, ctx, listings);
}

/**
 * What an agent sees from `options.cwd`: its sources (as {@link discoverySources}) and the load
 * rules it reads SKILL.md files with (pass both to `SkillService`), as measured on the real
 * agents: Claude Code keys a skill by its folder and loads one without a description, without
 * frontmatter or with broken YAML; Codex, Gemini CLI and pi refuse a UTF-8 BOM; Copilot CLI
 * refuses long fields and invalid names; see the package README for every preset.
 *
 * @example
 * const { sources, rules } = agentProfile({ cwd: process.cwd(), preset: "codex" });
 * const service = new SkillService({ sources, ...rules });
 */
export function agentProfile(options: DiscoveryOptions): { sources: SkillSource[]; rules: LoadRules } {
  const rules = PRESET_RULES[options.preset ?? "default"] ?? {};
  return { sources: discoverySources(options), rules: { ...rules } };
}

/** The load rules of a preset (copied). */
export function presetRules(preset: DiscoveryPreset): LoadRules {
  return { ...(PRESET_RULES[preset] ?? {}) };
}
