// Test helpers: real temporary folders, skills written to disk, a logger that remembers.
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const made: string[] = [];

/** A new empty folder under the OS temp folder (real path); removed by {@link removeTempDirs}. */
export async function tempDir(prefix = "skill-discovery-"): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

export async function removeTempDirs(): Promise<void> {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** Writes `files` (relative path → text or bytes) below `dir`, creating folders. */
export async function writeTree(
  dir: string,
  files: Readonly<Record<string, string | Uint8Array>>,
): Promise<void> {
  for (const [path, data] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), data);
  }
}

/** A temp home and a temp git project (`.git` folder) side by side in one temp folder. */
export async function tempWorld(): Promise<{ base: string; home: string; project: string }> {
  const base = await tempDir();
  const home = join(base, "home");
  const project = join(base, "project");
  await mkdir(home, { recursive: true });
  await mkdir(join(project, ".git"), { recursive: true });
  return { base, home, project };
}

export function skillText(name: string, description = `The ${name} skill.`): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n\nInstructions.\n`;
}

/** Writes `<dir>/SKILL.md` for a skill called `name` (default: the folder name); returns its path. */
export async function writeSkill(dir: string, name?: string, text?: string): Promise<string> {
  const file = join(dir, "SKILL.md");
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text ?? skillText(name ?? dir.split(/[\\/]/).pop() ?? "skill"));
  return file;
}

export interface Recorded {
  readonly message: string;
  readonly fields?: object;
}

/**
 * A logger in the shape of `@skill/core`'s `Logger` (written out here: this package depends on
 * no `@skill/*` package, so that every one of them can use it), remembering what it was told.
 */
export interface MemoryLogger {
  readonly warnings: Recorded[];
  readonly debugs: Recorded[];
  warn(message: string, fields?: object): void;
  debug(message: string, fields?: object): void;
}

export function memoryLogger(onWarn?: (message: string) => void): MemoryLogger {
  const warnings: Recorded[] = [];
  const debugs: Recorded[] = [];
  return {
    warnings,
    debugs,
    warn(message, fields) {
      warnings.push(fields === undefined ? { message } : { message, fields });
      onWarn?.(message);
    },
    debug(message, fields) {
      debugs.push(fields === undefined ? { message } : { message, fields });
    },
  };
}
