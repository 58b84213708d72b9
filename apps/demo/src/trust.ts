import { readFile, realpath } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { errnoOf, isInside, writeInside } from "@skill/core";
import { UserError } from "./errors.js";

/**
 * Folders whose project configs may start the commands they name (MCP servers), kept in a
 * user-level file as Gemini CLI keeps trusted folders: `$XDG_CONFIG_HOME/skill/trusted.json`,
 * default `~/.config/skill/trusted.json`. Trusting a folder trusts every folder below it.
 */
export function trustFile(home: string, env: Readonly<Record<string, string | undefined>>): string {
  return join(configHome(home, env), "skill", "trusted.json");
}

/** `$XDG_CONFIG_HOME` when it is an absolute path (as the XDG spec says), else `~/.config`. */
export function configHome(home: string, env: Readonly<Record<string, string | undefined>>): string {
  const xdg = env.XDG_CONFIG_HOME;
  return xdg?.startsWith("/") ? xdg : join(home, ".config");
}

interface TrustState {
  readonly version: 1;
  readonly folders: readonly string[];
}

/** The trusted folders (real paths); a missing file trusts nothing, a broken one is an error naming it. */
export async function trustedFolders(file: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if (errnoOf(error) === "ENOENT") return [];
    throw new UserError(`Cannot read ${file}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UserError(
      `${file}: not valid JSON (expected {"version": 1, "folders": [...]}); fix or delete it`,
    );
  }
  const folders = (value as Partial<TrustState> | null)?.folders;
  if (!Array.isArray(folders) || !folders.every((f) => typeof f === "string" && f.startsWith("/"))) {
    throw new UserError(`${file}: expected {"version": 1, "folders": [absolute paths]}; fix or delete it`);
  }
  return folders;
}

/** Whether `folder` (a real path) is a trusted folder or lies below one. */
export function isTrusted(folder: string, trusted: readonly string[]): boolean {
  return trusted.some((t) => isInside(t, folder));
}

/** The real path of a folder, or the path itself when it cannot be resolved. */
export async function realFolder(folder: string): Promise<string> {
  return realpath(folder).catch(() => folder);
}

/**
 * Adds or removes a folder and writes the file atomically; returns the new list, and whether
 * it changed (an unchanged list is not written).
 */
export async function changeTrust(
  file: string,
  folder: string,
  trust: boolean,
): Promise<{ folders: string[]; changed: boolean }> {
  const current = await trustedFolders(file);
  const next = trust
    ? current.includes(folder)
      ? current
      : [...current, folder].sort()
    : current.filter((f) => f !== folder);
  if (next.length === current.length) return { folders: current, changed: false };
  const state: TrustState = { version: 1, folders: next };
  // Core's one writer: a temporary file beside it renamed over it, readable by its owner alone.
  const text = `${JSON.stringify(state, null, 2)}\n`;
  await writeInside(dirname(file), basename(file), Buffer.from(text, "utf8"), { mode: 0o600 });
  return { folders: next, changed: true };
}
