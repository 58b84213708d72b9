import { chmod, mkdir, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import folders from "./golden-folders.json" with { type: "json" };
import hashes from "./golden-hashes.json" with { type: "json" };

interface FolderSpec {
  readonly files: Readonly<Record<string, string>>;
  readonly binary?: Readonly<Record<string, string>>;
  readonly executable?: readonly string[];
  readonly links?: Readonly<Record<string, string>>;
}

export const goldenFolders = folders.folders as Readonly<Record<string, FolderSpec>>;
/** computedHash of each folder as Vercel's `skills` wrote it. */
export const goldenHashes = hashes.hashes as Readonly<Record<string, string>>;

/** Writes the golden folder `name` at `dir`. */
export async function makeGolden(name: string, dir: string): Promise<void> {
  const spec = goldenFolders[name];
  if (spec === undefined) throw new Error(`no golden folder ${name}`);
  const entries: [string, Uint8Array | string][] = [
    ...Object.entries(spec.files),
    ...Object.entries(spec.binary ?? {}).map(([p, b]): [string, Uint8Array] => [p, Buffer.from(b, "base64")]),
  ];
  for (const [path, content] of entries) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  for (const path of spec.executable ?? []) await chmod(join(dir, path), 0o755);
  for (const [path, target] of Object.entries(spec.links ?? {})) await symlink(target, join(dir, path));
}
