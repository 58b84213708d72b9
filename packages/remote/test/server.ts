// The remote package's own test helpers: packs as file maps, a temp folder, a tree lister, and
// the SkillError a promise rejects with. The loopback server is @skill/test-utils' serve().
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { type Logger, SkillError } from "@skill/core";

export function skillMd(
  name: string,
  description = `The ${name} skill`,
  body = `# ${name}\n\nDo the thing.\n`,
): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
}

export function indexJson(skills: readonly object[]): string {
  return JSON.stringify({ skills });
}

/** A pack as a file map: `index.json` plus `<name>/<file>` for each skill. */
export function pack(
  skills: Record<string, Record<string, string | Buffer>>,
  extra: Record<string, unknown> = {},
): Map<string, string | Buffer> {
  const files = new Map<string, string | Buffer>();
  const entries = Object.entries(skills).map(([name, content]) => {
    for (const [file, body] of Object.entries(content)) files.set(`${name}/${file}`, body);
    return { name, files: Object.keys(content), ...((extra[name] as object) ?? {}) };
  });
  files.set("index.json", indexJson(entries));
  return files;
}

/** A temp directory, removed by `cleanup`. */
export async function tempDir(): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), "skill-remote-"));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}

/** Every entry under `root` (files, folders, links), as sorted `/`-separated relative paths. */
export async function tree(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      out.push(relative(root, path).split(sep).join("/") + (entry.isDirectory() ? "/" : ""));
      if (entry.isDirectory()) await walk(path);
    }
  };
  await walk(root);
  return out.sort();
}

/** Every byte value, twice, in a buffer: a binary file that a text round trip would damage. */
export function binary(): Buffer {
  const bytes = Buffer.alloc(512);
  for (let i = 0; i < bytes.length; i++) bytes[i] = i % 256;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), bytes]);
}

/** A logger that keeps its warnings, for tests to look at. */
export function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, warn: (message) => warnings.push(message) };
}

/** The `SkillError` a promise rejects with (anything else fails the test). */
export async function rejection(promise: Promise<unknown>): Promise<SkillError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!SkillError.isInstance(error)) throw new Error(`expected a SkillError, got ${String(error)}`);
  return error;
}
