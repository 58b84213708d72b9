import type { SkillSource } from "@skill/core";
import { UsageError } from "./errors.js";

type McpModule = typeof import("@skill/mcp/stdio");

let mcpModule: McpModule | undefined;

/**
 * Loads the stdio helpers of `@skill/mcp` (and the MCP SDK v2 under them), which cost more to
 * import than all the other packages together: only a command that uses an MCP server waits
 * for them.
 */
export async function loadMcp(): Promise<McpModule> {
  mcpModule ??= await import("@skill/mcp/stdio");
  return mcpModule;
}

/**
 * Set in the environment of every MCP server this CLI starts (its depth, from 1): a `skill`
 * that finds it set starts no MCP server of its own, so a config naming `skill serve-mcp`
 * cannot start a chain of servers.
 */
export const MCP_DEPTH_VARIABLE = "SKILL_MCP_DEPTH";

/** What a server process gets: the usual safe subset of this environment, plus the depth marker. */
export function serverEnvironment(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const key of ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "TMPDIR"]) {
    const value = env[key];
    if (value !== undefined && !value.startsWith("()")) kept[key] = value;
  }
  kept[MCP_DEPTH_VARIABLE] = String((Number(env[MCP_DEPTH_VARIABLE]) || 0) + 1);
  return kept;
}

/** An MCP server to start over stdio: its command line and the folder it runs in. */
export interface McpCommand {
  readonly line: string;
  readonly cwd: string;
  /** Named on the command line (`--mcp`): a server that fails to start fails the command. */
  readonly explicit?: boolean;
}

/**
 * Splits a command line as a POSIX shell would for plain words: whitespace separates,
 * '…' and "…" quote, a backslash escapes the next character. No expansion of any kind.
 */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    if (quote) {
      if (ch === quote) quote = undefined;
      else if (ch === "\\" && quote === '"' && i + 1 < line.length) word = `${word ?? ""}${line[++i]}`;
      else word = `${word ?? ""}${ch}`;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      word ??= "";
    } else if (ch === "\\" && i + 1 < line.length) {
      word = (word ?? "") + line[++i];
    } else if (/\s/.test(ch)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? "") + ch;
    }
  }
  if (quote) throw new UsageError(`Unclosed ${quote} in MCP server command: ${line}`);
  if (word !== undefined) words.push(word);
  if (words.length === 0) throw new UsageError('An MCP server command is empty (expected --mcp "CMD ARGS")');
  return words;
}

/** Programs that start the server: it is named by what they start. */
const LAUNCHERS = new Set([
  ...["node", "nodejs", "npx", "bunx", "bun", "deno", "uvx", "uv", "pipx", "python", "python3"],
  ...["pnpm", "yarn", "npm", "docker", "podman", "env", "sh", "bash"],
]);
/** Their verbs (`npm exec`, `docker run`, `pnpm dlx`, `uv tool run`). */
const LAUNCH_VERBS = new Set(["run", "exec", "dlx", "x", "tool", "start"]);
/** Entry files named for what they are rather than for the server: the next word says more. */
const GENERIC = new Set(["cli", "index", "main", "server", "bin", "app"]);

/** A word of a command as a name: its last path segment, without an npm version or a script's extension. */
function stem(word: string): string {
  const last = word.split(/[/\\]/).pop() ?? word;
  const bare = last.replace(/(?<=.)@.*$/, "").replace(/\.(m|c)?[jt]s$|\.py$/, "");
  return bare.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "");
}

/**
 * A server's short name, from its command: what the launcher starts (`npx -y docs-mcp-server`
 * → `docs-mcp-server`, `uvx mcp-server-fetch` → `mcp-server-fetch`, `node /x/dist/cli.js
 * serve-mcp` → `cli-serve-mcp`). A skill of the server whose name a local skill holds is listed
 * as `<short name>:<name>`, so it must stay short; `mcp` when nothing is left.
 */
export function serverLabel(words: readonly string[]): string {
  let at = 0;
  while (at < words.length) {
    const word = words[at] as string;
    const launcher = LAUNCHERS.has(stem(word)) || (at > 0 && LAUNCH_VERBS.has(word));
    if (!launcher && !word.startsWith("-")) break;
    at++;
  }
  const first = stem(words[at] ?? "");
  const next = words[at + 1];
  if (GENERIC.has(first) && next !== undefined && !next.startsWith("-")) return `${first}-${stem(next)}`;
  return first === "" ? "mcp" : first;
}

/** `label`, or `label-2`, `label-3`… : the first that no server of this run has (a label may end in `-2` itself). */
export function uniqueLabel(label: string, seen: Set<string>): string {
  let unique = label;
  for (let n = 2; seen.has(unique); n++) unique = `${label}-${n}`;
  seen.add(unique);
  return unique;
}

/**
 * One skill source per MCP server command; `close` ends the server processes; `timeoutMs`
 * is each server's deadline (default @skill/mcp's 30 s). A source's id is `mcp:` and the
 * server's short name ({@link serverLabel}), numbered when two would read the same
 * (`mcp:docs-mcp-server-2`).
 */
export function mcpSources(
  commands: readonly McpCommand[],
  env: Readonly<Record<string, string | undefined>> = process.env,
  options: { readonly timeoutMs?: number } = {},
): {
  sources: SkillSource[];
  close(): Promise<void>;
} {
  if (!mcpModule) throw new Error("loadMcp() must run before mcpSources()");
  const { mcpStdioSource } = mcpModule;
  const seen = new Set<string>();
  const sources = commands.map((c) => {
    const [command, ...args] = splitCommand(c.line);
    const id = `mcp:${uniqueLabel(serverLabel([command as string, ...args]), seen)}`;
    return mcpStdioSource(command as string, args, {
      id,
      cwd: c.cwd,
      env: serverEnvironment(env),
      // One deadline per server (start, handshake, listing): what --timeout says.
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    });
  });
  const close = async () => {
    stopListening();
    await Promise.all(sources.map((s) => s.close()));
  };
  const stopListening = endOnSignal(close);
  return { sources, close };
}

/** Signals that end a command run from a terminal or by a supervisor. */
const ENDING_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/**
 * Ends the servers when a signal ends the command: each leads a process group of its own, so
 * Ctrl-C at the terminal no longer reaches them (or what they started). When nothing else
 * handles the signal, it is raised again once they are ended, so the CLI ends as it would
 * have (130 for Ctrl-C); a command that handles it (`skill watch`) ends on its own. Returns
 * what stops listening.
 */
function endOnSignal(close: () => Promise<void>): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    stop();
    const handled = process.listenerCount(signal) > 0;
    void close().finally(() => {
      if (!handled) process.kill(process.pid, signal);
    });
  };
  const stop = () => {
    for (const signal of ENDING_SIGNALS) process.removeListener(signal, onSignal);
  };
  for (const signal of ENDING_SIGNALS) process.once(signal, onSignal);
  return stop;
}
