import type { Logger } from "@skill/core";
import type { DiscoveryPreset, RootLimits } from "./presets.js";

export type Env = Readonly<Record<string, string | undefined>>;

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
