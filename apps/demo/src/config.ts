import { constants } from "node:fs";
import { open, stat } from "node:fs/promises";
import { dirname, isAbsolute, resolve } from "node:path";
import { errnoOf, isMapping, type PermissionConfig, printable, similarNames } from "@skill/core";
import { fromConfig } from "@skill/permissions";
import { type ParseError, parse, printParseErrorCode } from "jsonc-parser";
import { UserError } from "./errors.js";

/** `skill.config.json`, `opencode.jsonc` or `opencode.json`: the opencode shape. */
export interface Config {
  readonly skills: {
    readonly paths: readonly string[];
    readonly urls: readonly string[];
    /** Skills every catalog describes in full before any other (`skill prompt`, `serve-mcp --tools`). */
    readonly pinned: readonly string[];
  };
  readonly permission?: PermissionConfig;
  readonly agent: Readonly<Record<string, { readonly permission?: PermissionConfig }>>;
  /** MCP servers whose skills are loaded too: command lines, started over stdio. */
  readonly mcp: readonly string[];
  /** The file it came from, when there was one. */
  readonly file?: string;
  /** Keys this CLI does not use (`model`, `agent.build.prompt`…): ignored, named under --verbose. */
  readonly ignored: readonly string[];
}

/** Where a config came from: the user's own file, a project's, or `--config FILE`. */
export type ConfigScope = "user" | "project" | "explicit";

/** One config file of the cascade, lowest precedence first. */
export interface ConfigLevel {
  readonly config: Config;
  readonly scope: ConfigScope;
}

export const CONFIG_FILE = "skill.config.json";
/** Looked for in the project folder, first found wins. */
export const CONFIG_FILES = [CONFIG_FILE, "opencode.jsonc", "opencode.json"] as const;
/** A config larger than this is refused unread: a config is a few kilobytes. */
export const MAX_CONFIG_BYTES = 1024 * 1024;
const EMPTY: Config = { skills: { paths: [], urls: [], pinned: [] }, agent: {}, mcp: [], ignored: [] };

function kind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : `${typeof value} ${JSON.stringify(value)}`;
}

/** Unknown keys are other tools' settings (an opencode.json holds many): noted, not refused. */
function unknownKeys(value: Record<string, unknown>, known: readonly string[], where: string): string[] {
  return Object.keys(value)
    .filter((key) => !known.includes(key))
    .map((key) => `${where}${key}`);
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
  if (!isMapping(value))
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
  if (!isMapping(value)) throw new UserError(`${file}: expected a JSON object, found ${kind(value)}`);
  const ignored = unknownKeys(value, ["$schema", "skills", "permission", "agent", "mcp"], "");
  const skills = value.skills ?? {};
  if (!isMapping(skills)) throw new UserError(`${file}: 'skills' must be an object, found ${kind(skills)}`);
  ignored.push(...unknownKeys(skills, ["paths", "urls", "pinned"], "skills."));
  const base = dirname(file);
  const paths = stringList(skills.paths, "skills.paths", file).map((p) =>
    p.startsWith("~/") || p === "~" || isAbsolute(p) ? p : resolve(base, p),
  );
  const urls = stringList(skills.urls, "skills.urls", file);
  const pinned = stringList(skills.pinned, "skills.pinned", file);
  for (const url of urls) {
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
      throw new UserError(`${file}: 'skills.urls' holds ${JSON.stringify(url)}, which is not an http(s) URL`);
    }
  }
  const agents = value.agent ?? {};
  if (!isMapping(agents)) throw new UserError(`${file}: 'agent' must be an object, found ${kind(agents)}`);
  const agent: Record<string, { permission?: PermissionConfig }> = {};
  for (const [name, entry] of Object.entries(agents)) {
    if (!isMapping(entry))
      throw new UserError(`${file}: 'agent.${name}' must be an object, found ${kind(entry)}`);
    const rules = permission(entry.permission, `agent.${name}.permission`, file);
    agent[name] = rules ? { permission: rules } : {};
    ignored.push(...unknownKeys(entry, ["permission"], `agent.${name}.`));
  }
  const rules = permission(value.permission, "permission", file);
  // A list of commands is ours; opencode's `mcp` is a map of server settings, not read here.
  const mcp = isMapping(value.mcp) ? [] : stringList(value.mcp, "mcp", file);
  if (isMapping(value.mcp)) ignored.push("mcp");
  return {
    skills: { paths, urls, pinned },
    agent,
    mcp,
    file,
    ignored,
    ...(rules ? { permission: rules } : {}),
  };
}

/**
 * Reads a config the way skill files are read: a regular file only (a FIFO or a device such
 * as /dev/zero would hang or never end), at most {@link MAX_CONFIG_BYTES}. Opened
 * non-blocking so that a FIFO is seen for what it is instead of waiting for a writer.
 */
async function readConfigText(file: string): Promise<string> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (!info.isFile()) {
      const found = info.isFIFO()
        ? "a FIFO"
        : info.isCharacterDevice() || info.isBlockDevice()
          ? "a device"
          : info.isDirectory()
            ? "a folder"
            : "not a regular file";
      throw new UserError(`Cannot read config ${file}: expected a regular file, found ${found}`);
    }
    if (info.size > MAX_CONFIG_BYTES) {
      throw new UserError(
        `Cannot read config ${file}: ${info.size} bytes, the limit is ${MAX_CONFIG_BYTES} (a config is a few kilobytes)`,
      );
    }
    const buffer = Buffer.alloc(Math.min(info.size, MAX_CONFIG_BYTES) + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > MAX_CONFIG_BYTES) {
      throw new UserError(`Cannot read config ${file}: larger than ${MAX_CONFIG_BYTES} bytes`);
    }
    return buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}

/** Line and column (1-based) of an offset, for parse errors. */
function position(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return `line ${line}, column ${offset - before.lastIndexOf("\n")}`;
}

/** JSON with comments and trailing commas (JSONC, as opencode reads it); a UTF-8 BOM is dropped. */
export function parseConfigText(text: string, file: string): Config {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const errors: ParseError[] = [];
  let value: unknown;
  try {
    value = parse(body, errors, { allowTrailingComma: true, disallowComments: false });
  } catch (error) {
    if (error instanceof RangeError) {
      throw new UserError(`${file}: nested too deeply to read (a config is a few levels of objects)`);
    }
    throw error;
  }
  const first = errors[0];
  if (first) {
    throw new UserError(
      `${file}: not valid JSON (${printParseErrorCode(first.error)} at ${position(body, first.offset)})`,
    );
  }
  return parseConfig(value, file);
}

/** The config file to read: `--config FILE`, else the first of {@link CONFIG_FILES} in cwd, else none. */
export async function findConfig(cwd: string, explicit?: string): Promise<string | undefined> {
  if (explicit) return resolve(cwd, explicit);
  for (const name of CONFIG_FILES) {
    const file = resolve(cwd, name);
    // A dangling symlink or an unreadable entry counts as there: reading it says why it fails.
    if (
      await stat(file).then(
        () => true,
        (e: NodeJS.ErrnoException) => e.code !== "ENOENT",
      )
    )
      return file;
  }
  return undefined;
}

/** Reads `--config FILE`, else `skill.config.json`, `opencode.jsonc` or `opencode.json` in cwd, else an empty config. */
export async function loadConfig(cwd: string, explicit?: string, optional = false): Promise<Config> {
  const file = await findConfig(cwd, explicit);
  if (file === undefined) return EMPTY;
  let text: string;
  try {
    text = await readConfigText(file);
  } catch (error) {
    if (error instanceof UserError) throw error;
    const errno = errnoOf(error);
    if ((!explicit || optional) && errno === "ENOENT") return EMPTY;
    const why =
      errno === "ENOENT"
        ? "no such file"
        : errno === "EACCES"
          ? "permission denied"
          : (error as Error).message;
    throw new UserError(`Cannot read config ${file}: ${why}`);
  }
  return parseConfigText(text, file);
}

/**
 * Every config that applies in `cwd`, lowest precedence first: the user's own
 * (`$XDG_CONFIG_HOME/skill/config.json`, default `~/.config/skill/config.json`), then the first
 * of {@link CONFIG_FILES} in each folder from `top` (the project root) down to `cwd`. With
 * `explicit` (`--config FILE`), that file alone.
 */
export async function loadConfigLevels(options: {
  readonly cwd: string;
  readonly folders: readonly string[];
  readonly userFile: string;
  readonly explicit?: string;
}): Promise<ConfigLevel[]> {
  if (options.explicit !== undefined) {
    return [{ config: await loadConfig(options.cwd, options.explicit), scope: "explicit" }];
  }
  const levels: ConfigLevel[] = [];
  const user = await loadConfig(dirname(options.userFile), options.userFile, true);
  if (user.file) levels.push({ config: user, scope: "user" });
  for (const folder of options.folders) {
    const config = await loadConfig(folder);
    if (config.file) levels.push({ config, scope: "project" });
  }
  return levels;
}

/**
 * One config from a cascade: paths, URLs and MCP commands of every level in order, agents
 * of every level. Permission rules are not merged here: each level keeps its own (see the
 * CLI's layered policy), so a subfolder adds rules but never loses a parent's deny.
 */
export function mergeConfigs(levels: readonly ConfigLevel[]): Config {
  if (levels.length === 1) return (levels[0] as ConfigLevel).config;
  if (levels.length === 0) return EMPTY;
  const unique = (values: string[]) => [...new Set(values)];
  const agent: Record<string, { permission?: PermissionConfig }> = {};
  for (const { config } of levels) for (const name of Object.keys(config.agent)) agent[name] ??= {};
  const last = (levels[levels.length - 1] as ConfigLevel).config;
  return {
    skills: {
      paths: unique(levels.flatMap((l) => l.config.skills.paths)),
      urls: unique(levels.flatMap((l) => l.config.skills.urls)),
      pinned: unique(levels.flatMap((l) => l.config.skills.pinned)),
    },
    agent,
    mcp: levels.flatMap((l) => l.config.mcp),
    ignored: levels.flatMap((l) =>
      l.config.ignored.map((k) => (l.config.file ? `${k} (${l.config.file})` : k)),
    ),
    ...(last.file ? { file: last.file } : {}),
  };
}

/** Keys a config may hold, by the path of the object they sit in. */
const KNOWN_KEYS: readonly (readonly [RegExp, readonly string[]])[] = [
  [/^[^.]+$/, ["$schema", "skills", "permission", "agent", "mcp"]],
  [/^skills\.[^.]+$/, ["paths", "urls", "pinned"]],
  [/^agent\.[^.]+\.[^.]+$/, ["permission"]],
];

/**
 * Ignored keys that look like a misspelt key of ours (`permision`, `skills.path`): said on
 * every run, since a misspelt `permission` silently drops the rules it holds.
 */
export function misspeltKeyNotes(config: Config): string[] {
  return [...misspeltKeys(config)].map(
    ([key, fixed]) =>
      `${config.file ?? "config"}: unknown key '${printable(key)}' is ignored; did you mean '${fixed}'?`,
  );
}

/** Each ignored key that looks like a misspelt key of ours, and that key. */
function misspeltKeys(config: Config): Map<string, string> {
  const misspelt = new Map<string, string>();
  for (const key of config.ignored) {
    const level = KNOWN_KEYS.find(([where]) => where.test(key));
    if (!level) continue;
    const last = key.slice(key.lastIndexOf(".") + 1);
    const [match] = similarNames(last, level[1]);
    if (match !== undefined && match !== last)
      misspelt.set(key, key.slice(0, key.length - last.length) + match);
  }
  return misspelt;
}

/**
 * The one line --verbose prints about keys a config holds that this CLI does not use (an
 * opencode.json's own keys), but those {@link misspeltKeyNotes} already warned about.
 */
export function ignoredKeysNote(config: Config): string | undefined {
  const misspelt = misspeltKeys(config);
  const ignored = config.ignored.filter((k) => !misspelt.has(k));
  if (!config.file || ignored.length === 0) return undefined;
  return `${config.file}: ignored ${ignored.length === 1 ? "key" : "keys"} not used here: ${ignored.map((k) => printable(k)).join(", ")}`;
}
