import { printable, SkillError, VALIDATION_TARGETS } from "@skill/core";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
// Bundled into dist: no package.json to find and parse at start-up.
import packageJson from "../package.json" with { type: "json" };
import { DEFAULT_BUDGET, RANKS } from "./commands/prompt/options.js";
import { type Context, createContext, type GlobalOptions, type McpUse, PRESETS } from "./context.js";
import { UsageError, UserError } from "./errors.js";
import { createOutput, type Output } from "./output.js";
import { explicitMcpFailedInRun } from "./service.js";

const { version } = packageJson;

/** Digits only: `Number()` would also take "", " ", "0x10" and "1e3". */
function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n)) {
    throw new InvalidArgumentError("expected a whole number (digits only)");
  }
  return n;
}

/** `--limit` of `skill search`: 1 to 100, what the index returns at most. */
function searchLimit(value: string): number {
  const n = positiveInt(value);
  if (n < 1 || n > 100) throw new InvalidArgumentError("expected a whole number from 1 to 100");
  return n;
}

function budgetValue(value: string): number {
  return value === "none" ? Number.POSITIVE_INFINITY : positiveInt(value);
}

function positiveMs(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new InvalidArgumentError("expected milliseconds, a whole number above 0");
  return n;
}

/** A pull limit: digits only, above 0 (a limit of 0 would refuse every pack). */
function limitValue(what: string): (value: string) => number {
  return (value) => {
    const n = positiveInt(value);
    if (n === 0) throw new InvalidArgumentError(`expected ${what}, a whole number above 0`);
    return n;
  };
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Builds the `skill` program; `setExit` receives the exit code of the command that ran. */
function createProgram(setExit: (code: number) => void): Command {
  const program = new Command("skill")
    .description(
      "Find, check, format and download Agent Skills (SKILL.md folders) the way coding agents see them.",
    )
    .version(version, "-V, --version")
    .option("--cwd <dir>", "project directory (default: the current directory)")
    .option("--home <dir>", "home directory for global skills (default: $HOME)")
    .option("--config <file>", "config file (default: ./skill.config.json when present)")
    .addOption(
      new Option("--preset <name>", "which agent's folders to scan, and how it reads skills").choices([
        ...PRESETS,
      ]),
    )
    .option("--agent <name>", "agent whose permissions apply (default: build)")
    .option("--cache <dir>", "cache for remote packs (default: $XDG_CACHE_HOME/skill/remote)")
    .option("--url <url>", "also load a remote skill pack (repeatable)", collect)
    .option("--offline", "remote packs: use the cached copies, never the network")
    .option("--timeout <ms>", "remote packs: longest wait for a server, in ms (default 30000)", positiveMs)
    .option(
      "--max-archive-bytes <bytes>",
      "remote packs: largest archive one skill may download, in bytes (default 10 MiB)",
      limitValue("a number of bytes"),
    )
    .option(
      "--max-unpacked-bytes <bytes>",
      "remote packs: most bytes one archive may unpack to, each file counted as at least 4 KiB (default 25 MiB)",
      limitValue("a number of bytes"),
    )
    .option(
      "--max-archive-files <n>",
      "remote packs: most entries one archive may hold (default 1000)",
      limitValue("a number of entries"),
    )
    .option(
      "--mcp <command>",
      'also load the skills of an MCP server started as "CMD ARGS" (repeatable)',
      collect,
    )
    .option("--trust", "start the MCP servers a project config names, this run only (see `skill trust`)")
    .option("--json", "machine-readable output on stdout")
    .option("--no-color", "no colours")
    .option("--verbose", "show shadowed and failed skills, warnings and stack traces")
    .showHelpAfterError("(run with --help for usage)")
    .configureHelp({ showGlobalOptions: true })
    .exitOverride();

  // Read-only commands and the server never start what a checkout's config names.
  const action =
    <A extends unknown[]>(
      fn: (ctx: Context, ...args: A) => Promise<number>,
      mcp: McpUse = "trusted",
      needs: { readonly remote?: boolean } = {},
    ) =>
    async (...args: unknown[]) => {
      const command = args[args.length - 1] as Command;
      const globals = command.optsWithGlobals<GlobalOptions>();
      const out = createOutput(globals);
      let ctx: Context | undefined;
      try {
        ctx = await createContext(globals, out, { mcp, ...needs });
        const code = await fn(ctx, ...(args.slice(0, -1) as A));
        // A server asked for with --mcp that gave no skills fails the command, once said.
        setExit(code === 0 && explicitMcpFailedInRun() ? 1 : code);
      } catch (error) {
        setExit(report(error, out));
      } finally {
        await Promise.all(ctx?.cleanup.splice(0).map((end) => end()) ?? []);
      }
    };

  program
    .command("list")
    .description("list the skills this agent would see from here")
    .action(action(async (ctx) => (await import("./commands/list/index.js")).list(ctx)));
  program
    .command("show <name>")
    .description("print the <skill_content> block an agent receives when it loads a skill")
    .option("--limit <n>", "bundled files to list", positiveInt)
    .action(
      action(async (ctx, name: string, opts: { limit?: number }) =>
        (await import("./commands/show/index.js")).show(ctx, name, opts),
      ),
    );
  program
    .command("prompt")
    .description("print the skill catalog for the system prompt")
    .addOption(
      new Option("--style <style>", "catalog style").choices(["xml", "markdown", "json"]).default("xml"),
    )
    .option(
      "--budget <chars>",
      `largest catalog in characters, or "none"; says on stderr what it left out (default: ${DEFAULT_BUDGET}, Claude Code's skill listing budget: 1% of a 200k-token context at 4 characters a token)`,
      budgetValue,
    )
    .addOption(
      new Option(
        "--rank <order>",
        "who keeps descriptions under the budget: project, then configured paths, then user, then remote and MCP skills; or input order",
      )
        .choices(RANKS)
        .default("source"),
    )
    .addOption(
      new Option("--location <style>", "how locations are written")
        .choices(["path", "file-url"])
        .default("path"),
    )
    .option(
      "--pin <name>",
      "describe this skill in full before any other (repeatable; adds to config skills.pinned)",
      collect,
    )
    .option(
      "--search",
      "print the catalog a harness's skill tool describes (no locations, tiered to the budget) and the skill_search definition it would send",
    )
    .action(
      action(async (ctx, opts: import("./commands/prompt/index.js").PromptOptions) =>
        (await import("./commands/prompt/index.js")).prompt(ctx, opts),
      ),
    );
  program
    .command("search <query...>")
    .description("rank the skills this agent sees by how well they fit a request in plain words")
    .option("--limit <n>", "most results to show, 1 to 100 (default 8)", searchLimit)
    .action(
      action(async (ctx, query: string[], opts: { limit?: number }) =>
        (await import("./commands/search/index.js")).search(ctx, query, opts),
      ),
    );
  program
    .command("validate [paths...]")
    .description(
      "check skill files or folders against the Agent Skills rules (default: every skill found here)",
    )
    .option("--strict", "findings are errors (skills-ref parity)")
    .addOption(
      new Option("--target <target>", "judge files as this place would")
        .choices(VALIDATION_TARGETS)
        .default("spec"),
    )
    .action(
      action(
        async (ctx, paths: string[], opts: { strict?: boolean; target?: string }) =>
          (await import("./commands/validate/index.js")).validate(ctx, paths, opts),
        "explicit-only",
      ),
    );
  program
    .command("audit [targets...]")
    .description(
      "what skills can do and what they hide: folders, SKILL.md files, trees or names (default: every skill found here)",
    )
    .action(
      action(
        async (ctx, targets: string[]) => (await import("./commands/audit/index.js")).audit(ctx, targets),
        "explicit-only",
      ),
    );
  program
    .command("pull <urls...>")
    .description("download remote skill packs into the cache")
    .option("--quiet", "only the outcome of each pack and errors")
    .action(
      action(
        async (ctx, urls: string[], opts: { quiet?: boolean }) =>
          (await import("./commands/pull/index.js")).pull(ctx, urls, opts),
        "explicit-only",
        { remote: true },
      ),
    );
  program
    .command("pack <dir>")
    .description(
      "write index.json (discovery v0.2, read by v0.1 clients too) and archives for a folder of skills",
    )
    .option("--no-archives", "write a v0.1-only index, for servers that cannot hold archives")
    .option("--base-url <url>", "absolute URL the pack is served from (artifact URLs become absolute)")
    .option("--skip-invalid", "pack the skills that can be listed and say which were left out")
    .option("--quiet", "only the outcome and errors")
    .action(
      action(
        async (
          ctx,
          dir: string,
          opts: { archives?: boolean; baseUrl?: string; skipInvalid?: boolean; quiet?: boolean },
        ) => (await import("./commands/pack/index.js")).pack(ctx, dir, opts),
        "explicit-only",
      ),
    );
  program
    .command("verify [url]")
    .description("re-hash cached remote skills against the digests recorded when they were pulled")
    .action(
      action(
        async (ctx, url: string | undefined) => (await import("./commands/verify/index.js")).verify(ctx, url),
        "explicit-only",
        { remote: true },
      ),
    );
  program
    .command("why <name>")
    .description("which permission rule decides whether --agent sees a skill")
    .action(action(async (ctx, name: string) => (await import("./commands/why/index.js")).why(ctx, name)));
  program
    .command("doctor")
    .description("which agent (Claude Code, Codex, Gemini…) loads which skill from here, and why not")
    .option("--agents <list>", "comma-separated agents to compare (default: every preset)")
    .action(
      action(
        async (ctx, opts: { agents?: string }) =>
          (await import("./commands/doctor/index.js")).doctor(ctx, opts),
        "explicit-only",
      ),
    );
  program
    .command("serve-mcp")
    .description(
      "serve the skills this agent sees from here over MCP on stdio (SEP-2640), or as tools with --tools",
    )
    .option("--prefix <prefix>", "first segment of the skill:// URIs", "skills")
    .option(
      "--tools",
      "serve the skill and skill_search tools instead (for MCP hosts that do not speak SEP-2640)",
    )
    .option(
      "--pin <name>",
      "with --tools: describe this skill in full before any other (repeatable)",
      collect,
    )
    .action(
      action(
        async (ctx, opts: { prefix?: string; tools?: boolean; pin?: string[] }) =>
          (await import("./commands/serve-mcp/index.js")).serveMcp(ctx, opts),
        "explicit-only",
      ),
    );
  program
    .command("init <name>")
    .description(
      "create a new skill folder that passes validate --strict (default: the project's .agents/skills)",
    )
    .option("--description <text>", "what the skill does and when to use it")
    .option("--dir <dir>", "the folder to create it in")
    .action(
      action(
        async (ctx, name: string, opts: { description?: string; dir?: string }) =>
          (await import("./commands/init/index.js")).init(ctx, name, opts),
        "explicit-only",
      ),
    );
  program
    .command("trust [dir]")
    .description(
      "let the MCP servers that configs in a folder (and below it) name start (default: this project's root)",
    )
    .option("--remove", "stop trusting the folder")
    .option("--list", "print the trusted folders")
    .action(
      action(
        async (ctx, dir: string | undefined, opts: { remove?: boolean; list?: boolean }) =>
          (await import("./commands/trust/index.js")).trust(ctx, dir, opts),
        "explicit-only",
      ),
    );
  program
    .command("add <source> [names...]")
    .description(
      "install skills from a folder, a git repository (path or URL, #ref) or a skill site or pack URL into .agents/skills, linked for each agent, and lock them in skills-lock.json",
    )
    .option(
      "--for <agent>",
      "install for this agent (repeatable; Vercel's ids: claude-code, codex, cursor, gemini-cli, github-copilot, goose, opencode, pi, amp; default: the agents detected here)",
      collect,
    )
    .option("-g, --global", "install into the home (~/.agents/skills, lock ~/.agents/.skill-lock.json)")
    .option("--copy", "copy into each agent's folder instead of linking")
    .option("-y, --yes", "never ask (add asks nothing; accepted for scripts written for skills)")
    .option("--force", "replace folders and links skill did not install, saying what it replaces")
    .action(
      action(
        async (
          ctx,
          source: string,
          names: string[],
          opts: import("./commands/install/installing.js").InstallFlags,
        ) => (await import("./commands/install/add.js")).add(ctx, source, names, opts),
        "explicit-only",
      ),
    );
  program
    .command("install")
    .description(
      "restore every skill skills-lock.json names, from its source and ref, refusing files that do not hash to the lock",
    )
    .option("--frozen", "any change to the lock is an error (for CI)")
    .option("--for <agent>", "link for this agent (repeatable; default: the agents detected here)", collect)
    .option("-g, --global", "the home's skills and global lock")
    .option("--copy", "copy into each agent's folder instead of linking")
    .option(
      "--force",
      "replace folders in the way, and installed skills edited since, saying what it replaces",
    )
    .action(
      action(
        async (ctx, opts: import("./commands/install/install.js").RestoreFlags) =>
          (await import("./commands/install/install.js")).install(ctx, opts),
        "explicit-only",
      ),
    );
  program
    .command("check")
    .description(
      "read-only: whether each locked skill's installed files still hash to the lock (edited here: which files) and whether its source has a newer version",
    )
    .option("-g, --global", "the home's skills and global lock")
    .option("--exit-code", "exit 1 when a skill is edited, missing or out of date (default: exit 0)")
    .action(
      action(
        async (ctx, opts: import("./commands/install/check.js").CheckFlags) =>
          (await import("./commands/install/check.js")).check(ctx, opts),
        "explicit-only",
      ),
    );
  program
    .command("update [names...]")
    .description(
      "fetch newer versions of locked skills (default: all), show what they change (capabilities, files, SKILL.md) and, once confirmed, replace them and update the lock",
    )
    .option("-g, --global", "the home's skills and global lock")
    .option("-y, --yes", "replace without asking (needed when stdin is not a terminal)")
    .option("--force", "also replace installed copies edited since they were installed")
    .action(
      action(
        async (ctx, names: string[], opts: import("./commands/install/update.js").UpdateFlags) =>
          (await import("./commands/install/update.js")).update(ctx, names, opts),
        "explicit-only",
      ),
    );
  program
    .command("remove <names...>")
    .description(
      "remove installed skills: each agent's link, and the canonical folder once no other agent uses it",
    )
    .option("--for <agent>", "only for this agent (repeatable)", collect)
    .option("-g, --global", "the home's skills and global lock")
    .option("--force", "remove an installed skill even when its files were edited since")
    .action(
      action(
        async (ctx, names: string[], opts: import("./commands/install/remove.js").RemoveFlags) =>
          (await import("./commands/install/remove.js")).remove(ctx, names, opts),
        "explicit-only",
      ),
    );
  program
    .command("watch")
    .description("print skills appearing, changing and disappearing until Ctrl-C")
    .action(action(async (ctx) => (await import("./commands/watch/index.js")).watch(ctx)));
  return program;
}

/** An error message for the terminal: each line escaped, since messages quote files and servers. */
function safe(message: string): string {
  return message.split("\n").map(printable).join("\n");
}

/** Prints an error for people and returns the exit code. */
function report(error: unknown, out: Output): number {
  if (error instanceof UserError) {
    out.error(`skill: ${safe(error.message)}`);
    return error.exitCode;
  }
  if (SkillError.isInstance(error)) {
    out.error(`skill: ${safe(error.message)}`);
    if (out.verbose && error.cause) out.error(String((error.cause as Error).stack ?? error.cause));
    return 1;
  }
  out.error(`skill: unexpected error: ${safe((error as Error).message ?? String(error))}`);
  out.error(out.verbose ? String((error as Error).stack) : "(run with --verbose for the stack trace)");
  return 1;
}

async function main(argv: string[]): Promise<number> {
  let code = 0;
  const program = createProgram((c) => {
    code = c;
  });
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; every other commander error is a usage mistake.
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof UsageError) {
      process.stderr.write(`skill: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  return code;
}

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`skill: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
