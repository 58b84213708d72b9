// The command table of cli.ts made a commander program: a command's module is imported when
// that command runs, after its context is resolved; errors are said for people here, and the
// exit code is set here.
import { printable, SkillError } from "@skill/core";
import { Command, CommanderError, type Option } from "commander";
// Bundled into dist: no package.json to find and parse at start-up.
import packageJson from "../package.json" with { type: "json" };
import { type Context, createContext, type GlobalOptions, type McpUse } from "./context.js";
import { UsageError, UserError } from "./errors.js";
import { createOutput, type Output } from "./output.js";
import { explicitMcpFailedInRun } from "./service.js";

const { version } = packageJson;

/** What a command's module exports. */
export interface CommandModule {
  /** Runs the command with its arguments, then its options, as commander passes them; resolves to the exit code. */
  readonly run: (ctx: Context, ...args: never[]) => Promise<number>;
}

/** One command of the table. */
export interface CommandEntry {
  /** Its name and arguments, as commander reads them and `--help` shows them: `show <name>`. */
  readonly usage: string;
  readonly description: string;
  readonly options?: readonly Option[];
  /**
   * Which MCP servers it may start (default `"trusted"`): read-only commands and the server
   * never start what a checkout's config names.
   */
  readonly mcp?: McpUse;
  /** It reads the remote cache: `@skill/remote` loads before it runs. */
  readonly remote?: boolean;
  /** Imports its module, on first use: a command pays at start-up only for the modules it uses. */
  readonly load: () => Promise<CommandModule>;
}

/** The command line: what `skill --help` says, the options every command takes, and the commands. */
export interface CommandLine {
  readonly description: string;
  readonly options: readonly Option[];
  readonly commands: readonly CommandEntry[];
}

/** The `skill` program; `setExit` receives the exit code of the command that ran. */
function createProgram(cli: CommandLine, setExit: (code: number) => void): Command {
  const program = new Command("skill").description(cli.description).version(version, "-V, --version");
  for (const option of cli.options) program.addOption(option);
  // Commands copy these settings when they are made: set them first.
  program
    .showHelpAfterError("(run with --help for usage)")
    .configureHelp({ showGlobalOptions: true })
    .exitOverride();
  for (const entry of cli.commands) {
    const command = program.command(entry.usage).description(entry.description);
    for (const option of entry.options ?? []) command.addOption(option);
    command.action(commandAction(entry, setExit));
  }
  return program;
}

/** The action of a command: its context, then its module, loaded now; what went wrong said for people. */
function commandAction(entry: CommandEntry, setExit: (code: number) => void) {
  const use: { readonly mcp: McpUse; readonly remote?: boolean } = {
    mcp: entry.mcp ?? "trusted",
    ...(entry.remote ? { remote: true } : {}),
  };
  return async (...args: unknown[]): Promise<void> => {
    const command = args[args.length - 1] as Command;
    const globals = command.optsWithGlobals<GlobalOptions>();
    const out = createOutput(globals);
    let ctx: Context | undefined;
    try {
      ctx = await createContext(globals, out, use);
      const { run } = await entry.load();
      const code = await run(ctx, ...(args.slice(0, -1) as never[]));
      // A server asked for with --mcp that gave no skills fails the command, once said.
      setExit(code === 0 && explicitMcpFailedInRun() ? 1 : code);
    } catch (error) {
      setExit(report(error, out));
    } finally {
      await Promise.all(ctx?.cleanup.splice(0).map((end) => end()) ?? []);
    }
  };
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

async function main(cli: CommandLine, argv: string[]): Promise<number> {
  let code = 0;
  const program = createProgram(cli, (c) => {
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

/** Runs the command this process was started with, and sets the process's exit code. */
export function start(cli: CommandLine): void {
  main(cli, process.argv).then(
    (code) => {
      process.exitCode = code;
    },
    (error) => {
      process.stderr.write(`skill: ${(error as Error).stack ?? String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
