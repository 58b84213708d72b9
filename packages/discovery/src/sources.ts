import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { Diagnostic, Logger, SkillSource } from "@skill/core";
import { findWorktreeRoot, foldersBetween, isWithin, posixRelative, resolvePath } from "./paths.js";
import { type RootsScanOptions, scanRoots } from "./scan.js";

type Env = Readonly<Record<string, string | undefined>>;

/** Which agent's layout to reproduce. */
export type DiscoveryPreset = "default" | "opencode" | "claude-code" | "codex" | "agents";

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
  /** The agent layout (default `"default"`); see the README for each preset's roots. */
  readonly preset?: DiscoveryPreset;
  /** Follow symlinked folders and `SKILL.md` files (default `true`). */
  readonly followSymlinks?: boolean;
  /** Folder globs not to enter (default `["node_modules", ".git"]`; a list replaces it). */
  readonly ignore?: readonly string[];
  /** Receives warnings: unreadable folders, broken links, missing configured paths. */
  readonly logger?: Logger;
}

/** One place a preset looks: a source id and the folders it scans. */
export interface DiscoveryRoot {
  /** The source id, e.g. `global:.claude`, `project:/abs/dir/.agents`, `config:/abs/path`. */
  readonly id: string;
  /** Absolute folders scanned for `SKILL.md` at any depth, existing or not. */
  readonly dirs: readonly string[];
  /** For `paths` entries: the value as configured (a missing folder is then a warning). */
  readonly configured?: string;
}

const NO_LOGGER: Logger = { warn() {} };

const DISABLE_FLAGS = [
  "OPENCODE_DISABLE_EXTERNAL_SKILLS",
  "OPENCODE_DISABLE_CLAUDE_CODE_SKILLS",
  "OPENCODE_DISABLE_CLAUDE_CODE",
] as const;

/** opencode's reading of a boolean flag: `1` or `true`, any case. */
function truthy(value: string | undefined): boolean {
  const lower = value?.toLowerCase();
  return lower === "1" || lower === "true";
}

/**
 * True when the environment turns off the `.claude` and `.agents` roots:
 * `OPENCODE_DISABLE_EXTERNAL_SKILLS`, or `OPENCODE_DISABLE_CLAUDE_CODE_SKILLS` or
 * `OPENCODE_DISABLE_CLAUDE_CODE` (which imply it), set to `1` or `true` in any case.
 */
export function isExternalDisabled(env: Env = process.env): boolean {
  return DISABLE_FLAGS.some((flag) => truthy(env[flag]));
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
 * The roots the options select, lowest precedence first: each becomes one source of
 * {@link discoverySources}. Pure path arithmetic plus a walk up looking for `.git`.
 */
export function discoveryRoots(options: DiscoveryOptions): DiscoveryRoot[] {
  const env = options.env ?? process.env;
  const home = resolve(options.home ?? homedir());
  const cwd = resolve(options.cwd);
  const logger = options.logger ?? NO_LOGGER;
  const levels = projectFolders(cwd, home, options.stopAt, logger);
  const at = (value: string) => resolvePath(value, cwd, home);

  const roots: DiscoveryRoot[] = [];
  const global = (folder: string, subdirs: readonly string[]) => {
    const label = folder !== home && isWithin(folder, home) ? posixRelative(home, folder) : folder;
    roots.push({ id: `global:${label}`, dirs: subdirs.map((s) => join(folder, s)) });
  };
  const project = (name: string, subdirs: readonly string[]) => {
    for (const level of levels) {
      roots.push({ id: `project:${join(level, name)}`, dirs: subdirs.map((s) => join(level, name, s)) });
    }
  };
  const projectPair = () => {
    for (const level of levels) {
      for (const name of [".claude", ".agents"]) {
        roots.push({ id: `project:${join(level, name)}`, dirs: [join(level, name, "skills")] });
      }
    }
  };
  const external = () => {
    if (isExternalDisabled(env)) return;
    global(join(home, ".claude"), ["skills"]);
    global(join(home, ".agents"), ["skills"]);
    projectPair();
  };
  const opencodeDirs = ["skill", "skills"];

  switch (options.preset ?? "default") {
    case "default":
      external();
      break;
    case "opencode":
      external();
      global(
        join(env.XDG_CONFIG_HOME ? at(env.XDG_CONFIG_HOME) : join(home, ".config"), "opencode"),
        opencodeDirs,
      );
      if (!truthy(env.OPENCODE_DISABLE_PROJECT_CONFIG)) project(".opencode", opencodeDirs);
      global(join(home, ".opencode"), opencodeDirs);
      if (env.OPENCODE_CONFIG_DIR) global(at(env.OPENCODE_CONFIG_DIR), opencodeDirs);
      break;
    case "claude-code":
      project(".claude", ["skills"]);
      global(env.CLAUDE_CONFIG_DIR ? at(env.CLAUDE_CONFIG_DIR) : join(home, ".claude"), ["skills"]);
      break;
    case "codex":
      if (process.platform !== "win32") roots.push({ id: "admin:/etc/codex", dirs: ["/etc/codex/skills"] });
      global(env.CODEX_HOME ? at(env.CODEX_HOME) : join(home, ".codex"), ["skills"]);
      global(join(home, ".agents"), ["skills"]);
      project(".agents", ["skills"]);
      break;
    case "agents":
      global(join(home, ".agents"), ["skills"]);
      project(".agents", ["skills"]);
      break;
    default:
      throw new TypeError(`Unknown discovery preset ${JSON.stringify(options.preset)}`);
  }
  for (const path of options.paths ?? []) {
    const dir = at(path);
    roots.push({ id: `config:${dir}`, dirs: [dir], configured: path });
  }
  return keepLastById(roots);
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

/** The scan options every source of one discovery shares. */
function scanOptionsOf(options: DiscoveryOptions): RootsScanOptions {
  return {
    ...(options.ignore === undefined ? {} : { ignore: options.ignore }),
    ...(options.followSymlinks === undefined ? {} : { followSymlinks: options.followSymlinks }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  };
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
  const base = scanOptionsOf(options);
  return discoveryRoots(options).map((root): SkillSource & { readonly dirs: readonly string[] } => {
    const dirs = [...root.dirs];
    const configured = root.configured;
    return {
      id: root.id,
      // Known before any scan, so a watcher can start without scanning.
      dirs,
      async scan(ctx) {
        const diagnostics: Diagnostic[] = [];
        const files = await scanRoots(dirs, {
          ...base,
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
        return { entries: files.map((location) => ({ location })), dirs: [...dirs], diagnostics };
      },
    };
  });
}
