import { readFile } from "node:fs/promises";
import { dirname, isAbsolute, resolve } from "node:path";
import type { PermissionConfig } from "@skill/core";
import { fromConfig } from "@skill/permissions";
import { UserError } from "./errors.js";

/** `skill.config.json`, the opencode shape. */
export interface Config {
  readonly skills: { readonly paths: readonly string[]; readonly urls: readonly string[] };
  readonly permission?: PermissionConfig;
  readonly agent: Readonly<Record<string, { readonly permission?: PermissionConfig }>>;
  /** MCP servers whose skills are loaded too: command lines, started over stdio. */
  readonly mcp: readonly string[];
  /** The file it came from, when there was one. */
  readonly file?: string;
}

export const CONFIG_FILE = "skill.config.json";
const EMPTY: Config = { skills: { paths: [], urls: [] }, agent: {}, mcp: [] };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function kind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : `${typeof value} ${JSON.stringify(value)}`;
}

function checkKeys(
  value: Record<string, unknown>,
  known: readonly string[],
  where: string,
  file: string,
): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) {
      throw new UserError(`${file}: unknown key '${where}${key}' (expected one of: ${known.join(", ")})`);
    }
  }
}

function stringList(value: unknown, key: string, file: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
    throw new UserError(`${file}: '${key}' must be a list of strings, found ${kind(value)}`);
  }
  return value;
}

function permission(value: unknown, key: string, file: string): PermissionConfig | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value))
    throw new UserError(`${file}: '${key}' must be an object of rules, found ${kind(value)}`);
  try {
    fromConfig(value as PermissionConfig);
  } catch (error) {
    // fromConfig names the key path from "permission"; an agent's rules sit deeper.
    const message = (error as Error).message.replace(/(?<=\s)permission(?=\.)/g, key);
    throw new UserError(`${file}: ${message}`);
  }
  return value as PermissionConfig;
}

/** Checks a parsed config and resolves its relative paths against the config file's folder. */
export function parseConfig(value: unknown, file: string): Config {
  if (!isRecord(value)) throw new UserError(`${file}: expected a JSON object, found ${kind(value)}`);
  checkKeys(value, ["$schema", "skills", "permission", "agent", "mcp"], "", file);
  const skills = value.skills ?? {};
  if (!isRecord(skills)) throw new UserError(`${file}: 'skills' must be an object, found ${kind(skills)}`);
  checkKeys(skills, ["paths", "urls"], "skills.", file);
  const base = dirname(file);
  const paths = stringList(skills.paths, "skills.paths", file).map((p) =>
    p.startsWith("~/") || p === "~" || isAbsolute(p) ? p : resolve(base, p),
  );
  const urls = stringList(skills.urls, "skills.urls", file);
  for (const url of urls) {
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
      throw new UserError(`${file}: 'skills.urls' holds ${JSON.stringify(url)}, which is not an http(s) URL`);
    }
  }
  const agents = value.agent ?? {};
  if (!isRecord(agents)) throw new UserError(`${file}: 'agent' must be an object, found ${kind(agents)}`);
  const agent: Record<string, { permission?: PermissionConfig }> = {};
  for (const [name, entry] of Object.entries(agents)) {
    if (!isRecord(entry))
      throw new UserError(`${file}: 'agent.${name}' must be an object, found ${kind(entry)}`);
    const rules = permission(entry.permission, `agent.${name}.permission`, file);
    agent[name] = rules ? { permission: rules } : {};
  }
  const rules = permission(value.permission, "permission", file);
  const mcp = stringList(value.mcp, "mcp", file);
  return { skills: { paths, urls }, agent, mcp, file, ...(rules ? { permission: rules } : {}) };
}

/** Reads `--config FILE`, else `skill.config.json` in cwd when it exists, else an empty config. */
export async function loadConfig(cwd: string, explicit?: string): Promise<Config> {
  const file = explicit ? resolve(cwd, explicit) : resolve(cwd, CONFIG_FILE);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if (!explicit && (error as NodeJS.ErrnoException).code === "ENOENT") return EMPTY;
    throw new UserError(`Cannot read config ${file}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UserError(`${file}: not valid JSON (${(error as Error).message})`);
  }
  return parseConfig(value, file);
}
