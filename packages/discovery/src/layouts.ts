import { join, resolve } from "node:path";
import type { DiscoveryOptions, DiscoveryRoot, Env } from "./discovery-options.js";
import { isClaudeCodeDisabled, isExternalDisabled, truthy } from "./env-flags.js";
import { isWithin, posixRelative, resolvePath } from "./paths.js";
import type { DiscoveryPreset } from "./presets.js";

/** Where a layout's roots are: the folders and flags they are made from, and the roots so far. */
export interface LayoutContext {
  readonly options: DiscoveryOptions;
  readonly env: Env;
  readonly home: string;
  readonly cwd: string;
  /** The project levels, from the top down to the cwd. */
  readonly levels: readonly string[];
  /** What every root of the preset carries: its limits, and `first-wins` for the agents that keep the first. */
  readonly withLimits: Pick<DiscoveryRoot, "limits" | "precedence">;
}

/** The roots of one agent's layout, listed lowest precedence first (first-wins agents: in search order). */
export class RootList {
  readonly roots: DiscoveryRoot[] = [];
  readonly options: DiscoveryOptions;
  readonly env: Env;
  readonly home: string;
  readonly cwd: string;
  readonly levels: readonly string[];
  /** The project levels nearest first, for agents that search from the cwd upwards. */
  readonly upwards: readonly string[];
  readonly configHome: string;
  readonly sharedGlobal: string;
  /** The opencode flags leave the `.agents` roots on. */
  readonly agentsRoots: boolean;
  /** The opencode flags leave the `.claude` roots on. */
  readonly claudeRoots: boolean;
  readonly #withLimits: Pick<DiscoveryRoot, "limits" | "precedence">;

  constructor(context: LayoutContext) {
    this.options = context.options;
    this.env = context.env;
    this.home = context.home;
    this.cwd = context.cwd;
    this.levels = context.levels;
    this.upwards = [...context.levels].reverse();
    this.configHome = join(context.home, ".config");
    this.sharedGlobal = join(this.configHome, "agents");
    this.agentsRoots = !isExternalDisabled(context.env);
    this.claudeRoots = !isClaudeCodeDisabled(context.env);
    this.#withLimits = context.withLimits;
  }

  /** A path as configured: `~/` the home folder, relative against the cwd. */
  at(value: string): string {
    return resolvePath(value, this.cwd, this.home);
  }

  /** A root of one folder, under its own id. */
  add(id: string, dir: string): void {
    this.roots.push({ id, dirs: [dir], ...this.#withLimits });
  }

  /** A user-level root: `<folder>/<subdir>` for each subdir, one source. */
  global(folder: string, subdirs: readonly string[] = ["skills"]): void {
    const home = this.home;
    const label = folder !== home && isWithin(folder, home) ? posixRelative(home, folder) : folder;
    this.roots.push({
      id: `global:${label}`,
      dirs: subdirs.map((s) => join(folder, s)),
      ...this.#withLimits,
    });
  }

  /** Project roots: for every level (default: from the top down to cwd), each folder name in order. */
  project(
    names: readonly string[],
    subdirs: readonly string[] = ["skills"],
    at: readonly string[] = this.levels,
  ): void {
    for (const level of at) {
      for (const name of names) {
        this.roots.push({
          id: `project:${join(level, name)}`,
          dirs: subdirs.map((s) => join(level, name, s)),
          ...this.#withLimits,
        });
      }
    }
  }

  /** The roots added since `from` take a `.md` file directly in them as a skill (`flatFiles`). */
  flatFilesSince(from: number): void {
    for (let i = from; i < this.roots.length; i++) {
      const root = this.roots[i] as DiscoveryRoot;
      this.roots[i] = { ...root, limits: { ...root.limits, flatFiles: true } };
    }
  }

  /** The folder names of `names` that the opencode flags leave on. */
  external(names: readonly string[]): string[] {
    return names.filter((name) => (name === ".claude" ? this.claudeRoots : this.agentsRoots));
  }
}

const OPENCODE_DIRS = ["skill", "skills"];

/** Each preset's roots, as its agent searches them (see the README for each one). */
export const PRESET_LAYOUTS: Readonly<Record<DiscoveryPreset, (list: RootList) => void>> = {
  default: defaultLayout,
  agents: agentsLayout,
  opencode: opencodeLayout,
  "claude-code": claudeCodeLayout,
  codex: codexLayout,
  gemini: geminiLayout,
  copilot: copilotLayout,
  cursor: cursorLayout,
  pi: piLayout,
  goose: gooseLayout,
  amp: ampLayout,
};

function defaultLayout(list: RootList): void {
  if (list.claudeRoots) list.global(join(list.home, ".claude"));
  if (list.agentsRoots) {
    list.global(join(list.home, ".agents"));
    list.global(list.sharedGlobal);
  }
  list.project(list.external([".claude", ".agents"]));
}

function agentsLayout(list: RootList): void {
  list.global(join(list.home, ".agents"));
  list.global(list.sharedGlobal);
  list.project([".agents"]);
}

function opencodeLayout(list: RootList): void {
  const { env, home } = list;
  // opencode keeps whichever copy of a name it parses last, a race between its scans; where
  // one copy won every run the order here says so: ~/.agents over ~/.config/opencode (15 of 15
  // runs of opencode 1.18.33, `opencode debug skill`, outside a project). The rest is labelled
  // `nondeterministic` (see PRESET_DUPLICATES).
  if (list.claudeRoots) list.global(join(home, ".claude"));
  list.global(
    join(env.XDG_CONFIG_HOME ? list.at(env.XDG_CONFIG_HOME) : list.configHome, "opencode"),
    OPENCODE_DIRS,
  );
  if (list.agentsRoots) list.global(join(home, ".agents"));
  list.project(list.external([".claude", ".agents"]));
  if (!truthy(env.OPENCODE_DISABLE_PROJECT_CONFIG)) list.project([".opencode"], OPENCODE_DIRS);
  list.global(join(home, ".opencode"), OPENCODE_DIRS);
  if (env.OPENCODE_CONFIG_DIR) list.global(list.at(env.OPENCODE_CONFIG_DIR), OPENCODE_DIRS);
}

function claudeCodeLayout(list: RootList): void {
  // Personal skills win over the project's in Claude Code.
  list.project([".claude"]);
  list.global(list.env.CLAUDE_CONFIG_DIR ? list.at(list.env.CLAUDE_CONFIG_DIR) : join(list.home, ".claude"));
}

function codexLayout(list: RootList): void {
  const codexHome = list.env.CODEX_HOME ? list.at(list.env.CODEX_HOME) : join(list.home, ".codex");
  if (process.platform !== "win32") {
    const admin = join(resolve(list.options.systemDir ?? "/etc"), "codex");
    list.add(`admin:${admin}`, join(admin, "skills"));
  }
  // Skills Codex installs itself; a dot-folder, so the user root below skips it.
  list.add("system:codex", join(codexHome, "skills", ".system"));
  list.global(codexHome);
  list.global(join(list.home, ".agents"));
  // Codex 0.171 reads `.codex/skills` at every level from the git root down, like `.agents`.
  list.project([".codex", ".agents"]);
}

function geminiLayout(list: RootList): void {
  list.global(join(list.home, ".gemini"));
  list.global(join(list.home, ".agents"));
  // Gemini CLI 0.61.0 reads the workspace's skills only in a trusted folder.
  if (list.options.trusted !== false) list.project([".gemini", ".agents"]);
}

function copilotLayout(list: RootList): void {
  // Copilot CLI 1.0.102, first match wins: each project folder kind from the cwd upwards,
  // then the personal roots. It does not read `~/.claude/skills`.
  for (const name of [".github", ".agents", ".claude"]) list.project([name], ["skills"], list.upwards);
  list.global(join(list.home, ".copilot"));
  list.global(join(list.home, ".agents"));
}

function cursorLayout(list: RootList): void {
  list.global(join(list.home, ".cursor"));
  list.global(join(list.home, ".claude"));
  list.global(join(list.home, ".codex"));
  list.project([".cursor", ".agents", ".claude", ".codex"]);
}

function piLayout(list: RootList): void {
  // pi 0.73.1, first match wins: `.pi/skills` of the cwd alone, `.agents/skills` from the
  // cwd upwards, then the user roots. In its own two roots a `.md` file directly in the root
  // is a skill too (`get_commands` listed `pi-flat-file` and `home-pi-flat-file`).
  list.project([".pi"], ["skills"], [list.cwd]);
  list.flatFilesSince(list.roots.length - 1);
  list.project([".agents"], ["skills"], list.upwards);
  list.global(join(list.home, ".pi", "agent"));
  list.flatFilesSince(list.roots.length - 1);
  list.global(join(list.home, ".agents"));
}

function gooseLayout(list: RootList): void {
  // goose's guide: later folders win, ~/.claude lowest, project .agents highest.
  list.global(join(list.home, ".claude"));
  list.global(join(list.home, ".agents"));
  list.global(list.sharedGlobal);
  list.global(join(list.configHome, "goose"));
  list.project([".claude", ".goose", ".agents"]);
}

function ampLayout(list: RootList): void {
  // Amp 0.0.1790142911, first match wins: the user roots, then each level from the cwd up
  // to the filesystem root (past the git root), then ~/.claude (`amp skill list --json` kept
  // the project .claude copy of a name also in ~/.claude/skills, and ~/.agents over the project's).
  list.global(list.sharedGlobal);
  list.global(join(list.home, ".agents"));
  list.global(join(list.configHome, "amp"));
  list.project([".agents", ".claude"], ["skills"], list.upwards);
  list.global(join(list.home, ".claude"));
}
