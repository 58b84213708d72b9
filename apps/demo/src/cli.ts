// The `skill` command line as a table: the options every command takes, then each command with
// its arguments, options and description, and the module that runs it. program.ts imports a
// command's module only when that command runs: `skill list` never loads pull's archives.
import { VALIDATION_TARGETS } from "@skill/core";
import { Option } from "commander";
import {
  budgetValue,
  collect,
  limitValue,
  option,
  positiveInt,
  positiveMs,
  searchLimit,
} from "./arguments.js";
import { DEFAULT_BUDGET, RANKS } from "./commands/prompt/options.js";
import { PRESETS } from "./context.js";
import { type CommandEntry, start } from "./program.js";

/** Options every command takes (`GlobalOptions` in context.ts). */
const GLOBAL_OPTIONS: readonly Option[] = [
  option("--cwd <dir>", "project directory (default: the current directory)"),
  option("--home <dir>", "home directory for global skills (default: $HOME)"),
  option(
    "--config <file>",
    "this config file alone (default: the user's ~/.config/skill/config.json, then skill.config.json, opencode.jsonc or opencode.json in each folder from the git root down to here, merged)",
  ),
  new Option("--preset <name>", "which agent's folders to scan, and how it reads skills").choices([
    ...PRESETS,
  ]),
  option("--agent <name>", "agent whose permissions apply (default: build)"),
  option("--cache <dir>", "cache for remote packs (default: $XDG_CACHE_HOME/skill/remote)"),
  option("--url <url>", "also load a remote skill pack (repeatable)", collect),
  option("--offline", "remote packs: use the cached copies, never the network"),
  option("--timeout <ms>", "remote packs: longest wait for a server, in ms (default 30000)", positiveMs),
  option(
    "--max-archive-bytes <bytes>",
    "remote packs: largest archive one skill may download, in bytes (default 10 MiB)",
    limitValue("a number of bytes"),
  ),
  option(
    "--max-unpacked-bytes <bytes>",
    "remote packs: most bytes one archive may unpack to, each file counted as at least 4 KiB (default 25 MiB)",
    limitValue("a number of bytes"),
  ),
  option(
    "--max-archive-files <n>",
    "remote packs: most entries one archive may hold (default 1000)",
    limitValue("a number of entries"),
  ),
  option(
    "--mcp <command>",
    'also load the skills of an MCP server started as "CMD ARGS" (repeatable)',
    collect,
  ),
  option("--trust", "start the MCP servers a project config names, this run only (see `skill trust`)"),
  option("--json", "machine-readable output on stdout"),
  option("--no-color", "no colours"),
  option("--verbose", "show shadowed and failed skills, warnings and stack traces"),
  option(
    "--no-head-cache",
    "read every SKILL.md (default: one unchanged since an earlier run here is stat()ed, its head kept in $XDG_CACHE_HOME/skill/heads)",
  ),
];

/**
 * The commands, in the order `--help` lists them. `mcp: "explicit-only"`: the command starts
 * only the MCP servers `--mcp` names, never a config's (read-only commands and the server).
 */
const COMMANDS: readonly CommandEntry[] = [
  {
    usage: "list",
    description:
      "list the skills this agent would see from here (in a pipe: name, description and location between tabs, a line each)",
    load: () => import("./commands/list/index.js"),
  },
  {
    usage: "show <name>",
    description: "print the <skill_content> block an agent receives when it loads a skill",
    options: [
      option("--limit <n>", "bundled files to list (default 10; the block says how many more)", positiveInt),
    ],
    load: () => import("./commands/show/index.js"),
  },
  {
    usage: "prompt",
    description: "print the skill catalog for the system prompt",
    options: [
      new Option("--style <style>", "catalog style").choices(["xml", "markdown", "json"]).default("xml"),
      option(
        "--budget <chars>",
        `largest catalog in characters, or "none"; says on stderr what it left out (default: ${DEFAULT_BUDGET}, Claude Code's skill listing budget: 1% of a 200k-token context at 4 characters a token)`,
        budgetValue,
      ),
      new Option(
        "--rank <order>",
        "who keeps descriptions under the budget: names the --preset agent accepts, then project, configured paths, user, remote and MCP skills; or input order",
      )
        .choices(RANKS)
        .default("source"),
      new Option("--location <style>", "how locations are written")
        .choices(["path", "file-url"])
        .default("path"),
      option(
        "--pin <name>",
        "describe this skill in full before any other (repeatable; adds to config skills.pinned)",
        collect,
      ),
      option(
        "--search",
        "print the catalog a harness's skill tool describes (no locations, tiered to the budget) and the skill_search definition it would send",
      ),
    ],
    load: () => import("./commands/prompt/index.js"),
  },
  {
    usage: "search <query...>",
    description:
      "rank the skills this agent sees by how well they fit a request in plain words (exit 1 when nothing matches, as grep does)",
    options: [option("--limit <n>", "most results to show, 1 to 100 (default 8)", searchLimit)],
    load: () => import("./commands/search/index.js"),
  },
  {
    usage: "validate [paths...]",
    description:
      "check skill files or folders against the Agent Skills rules (default: every skill found here)",
    options: [
      option("--strict", "findings are errors (skills-ref parity)"),
      new Option("--target <target>", "judge files as this place would")
        .choices(VALIDATION_TARGETS)
        .default("spec"),
    ],
    mcp: "explicit-only",
    load: () => import("./commands/validate/index.js"),
  },
  {
    usage: "audit [targets...]",
    description:
      "what skills can do and what they hide: folders, SKILL.md files, trees or names (default: every skill found here)",
    mcp: "explicit-only",
    load: () => import("./commands/audit/index.js"),
  },
  {
    usage: "pull <urls...>",
    description: "download remote skill packs into the cache",
    options: [option("--quiet", "only the outcome of each pack and errors")],
    mcp: "explicit-only",
    remote: true,
    load: () => import("./commands/pull/index.js"),
  },
  {
    usage: "pack <dir>",
    description:
      "write index.json (discovery v0.2, read by v0.1 clients too) and archives for a folder of skills",
    options: [
      option("--no-archives", "write a v0.1-only index, for servers that cannot hold archives"),
      option("--base-url <url>", "absolute URL the pack is served from (artifact URLs become absolute)"),
      option("--skip-invalid", "pack the skills that can be listed and say which were left out"),
      option("--quiet", "only the outcome and errors"),
      option(
        "--html",
        "also write index.html beside the index: one self-contained page of the skills (description, files, capabilities, install commands) with a search box",
      ),
    ],
    mcp: "explicit-only",
    load: () => import("./commands/pack/index.js"),
  },
  {
    usage: "verify [url]",
    description: "re-hash cached remote skills against the digests recorded when they were pulled",
    mcp: "explicit-only",
    remote: true,
    load: () => import("./commands/verify/index.js"),
  },
  {
    usage: "why <name>",
    description: "which permission rule decides whether --agent sees a skill",
    load: () => import("./commands/why/index.js"),
  },
  {
    usage: "doctor",
    description: "which agent (Claude Code, Codex, Gemini…) loads which skill from here, and why not",
    options: [
      option("--agents <list>", "comma-separated agents to compare (default: every preset)"),
      option(
        "--all",
        "every skill in the skills × agents table (default beyond 40 skills: each agent's summary first, then one row per way the agents treat a skill, +N counting the others alike)",
      ),
    ],
    mcp: "explicit-only",
    load: () => import("./commands/doctor/index.js"),
  },
  {
    usage: "serve-mcp",
    description:
      "serve the skills this agent sees from here over MCP on stdio (SEP-2640), or as tools with --tools",
    options: [
      option("--prefix <prefix>", "first segment of the skill:// URIs").default("skills"),
      option(
        "--tools",
        "serve the skill and skill_search tools instead (for MCP hosts that do not speak SEP-2640)",
      ),
      option(
        "--pin <name>",
        "with --tools: describe this skill in full before any other (repeatable)",
        collect,
      ),
    ],
    mcp: "explicit-only",
    load: () => import("./commands/serve-mcp/index.js"),
  },
  {
    usage: "init <name>",
    description:
      "create a new skill folder that passes validate --strict (default: the project's .agents/skills)",
    options: [
      option("--description <text>", "what the skill does and when to use it"),
      option("--dir <dir>", "the folder to create it in"),
    ],
    mcp: "explicit-only",
    load: () => import("./commands/init/index.js"),
  },
  {
    usage: "trust [dir]",
    description:
      "let the MCP servers that configs in a folder (and below it) name start (default: this project's root)",
    options: [option("--remove", "stop trusting the folder"), option("--list", "print the trusted folders")],
    mcp: "explicit-only",
    load: () => import("./commands/trust/index.js"),
  },
  {
    usage: "add <source> [names...]",
    description:
      "install skills from a folder, a git repository (path or URL, #ref), GitHub's owner/repo (/path, @skill, #ref), a GitLab URL or a skill site or pack URL into .agents/skills, linked for each agent, and lock them in skills-lock.json",
    options: [
      option(
        "--for <agent>",
        "install for this agent (repeatable; Vercel's ids: claude-code, codex, cursor, gemini-cli, github-copilot, goose, opencode, pi, amp; default: the agents detected here)",
        collect,
      ),
      option("-g, --global", "install into the home (~/.agents/skills, lock ~/.agents/.skill-lock.json)"),
      option("--copy", "copy into each agent's folder instead of linking"),
      option("-y, --yes", "never ask (add asks nothing; accepted for scripts written for skills)"),
      option("--force", "replace folders and links skill did not install, saying what it replaces"),
      option(
        "-s, --skill <name>",
        "a skill of the source to install (repeatable; the same as naming it after the source, as skills spells it)",
        collect,
      ),
      option("-l, --list", "list the source's skills (name and description) and install nothing"),
    ],
    mcp: "explicit-only",
    load: () => import("./commands/install/add.js"),
  },
  {
    usage: "install",
    description:
      "restore every skill skills-lock.json names, from its source and ref, refusing files that do not hash to the lock",
    options: [
      option("--frozen", "any change to the lock is an error (for CI)"),
      option("--for <agent>", "link for this agent (repeatable; default: the agents detected here)", collect),
      option("-g, --global", "the home's skills and global lock"),
      option("--copy", "copy into each agent's folder instead of linking"),
      option(
        "--force",
        "replace folders in the way, and installed skills edited since, saying what it replaces",
      ),
    ],
    mcp: "explicit-only",
    load: () => import("./commands/install/install.js"),
  },
  {
    usage: "check",
    description:
      "read-only: whether each locked skill's installed files still hash to the lock (edited here: which files) and whether its source has a newer version",
    options: [
      option("-g, --global", "the home's skills and global lock"),
      option("--exit-code", "exit 1 when a skill is edited, missing or out of date (default: exit 0)"),
    ],
    mcp: "explicit-only",
    load: () => import("./commands/install/check.js"),
  },
  {
    usage: "update [names...]",
    description:
      "fetch newer versions of locked skills (default: all), show what they change (capabilities, files, SKILL.md) and, once confirmed, replace them and update the lock",
    options: [
      option("-g, --global", "the home's skills and global lock"),
      option("-y, --yes", "replace without asking (needed when stdin is not a terminal)"),
      option("--force", "also replace installed copies edited since they were installed"),
    ],
    mcp: "explicit-only",
    load: () => import("./commands/install/update.js"),
  },
  {
    usage: "remove <names...>",
    description:
      "remove installed skills: each agent's link, and the canonical folder once no other agent uses it",
    options: [
      option("--for <agent>", "only for this agent (repeatable)", collect),
      option("-g, --global", "the home's skills and global lock"),
      option("--force", "remove an installed skill even when its files were edited since"),
    ],
    mcp: "explicit-only",
    load: () => import("./commands/install/remove.js"),
  },
  {
    usage: "watch",
    description: "print skills appearing, changing and disappearing until Ctrl-C",
    load: () => import("./commands/watch/index.js"),
  },
];

start({
  description:
    "Find, check, format and download Agent Skills (SKILL.md folders) the way coding agents see them.",
  options: GLOBAL_OPTIONS,
  commands: COMMANDS,
});
