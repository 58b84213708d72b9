import { constants } from "node:fs";
import { open } from "node:fs/promises";
import type { SkillHead } from "../spec/skill-source.js";
import {
  type Columns,
  ctimeColumn,
  entryAt,
  FORMAT_VERSION,
  type Held,
  K_SHARED,
  KEY_WIDTH,
} from "./head-cache-format.js";

/**
 * One record per changed path, in the order of the changes: `{"path","entry"}` for an entry
 * the cache holds, `{"path"}` for one it dropped. `undefined` when an entry cannot be
 * serialized (a head nested deeper than JSON.stringify recurses): a full write drops it.
 */
export function recordsOf(
  entries: Map<string, Held>,
  columns: Columns,
  dirty: readonly string[],
): string | undefined {
  let text = "";
  try {
    for (const path of dirty) {
      const held = entries.get(path);
      const entry = typeof held === "number" ? entryAt(columns, held) : held;
      text +=
        entry === undefined
          ? `{"path":${JSON.stringify(path)}}\n`
          : `{"path":${JSON.stringify(path)},"entry":${JSON.stringify(entry)}}\n`;
    }
  } catch {
    return undefined;
  }
  return text;
}

/**
 * The version 4 document of `entries`, in their order. An entry whose head is nested deeper
 * than JSON.stringify recurses is dropped (and reported); nothing else is.
 */
export function serializeDocument(
  entries: Map<string, Held>,
  columns: Columns,
  writtenAt: number,
  drop: (path: string, error: unknown) => void,
): string {
  const paths: string[] = [];
  const keys: number[] = [];
  const frontmatter: Readonly<Record<string, unknown>>[] = [];
  // Each distinct set of shared fields once, by its JSON text.
  const shared: string[] = [];
  const sharedAt = new Map<string, number>();
  const intern = (text: string): number => {
    let at = sharedAt.get(text);
    if (at === undefined) {
      at = shared.length;
      shared.push(text);
      sharedAt.set(text, at);
    }
    return at;
  };
  // A set of the columns read → its place in `shared`.
  const fromColumns = new Map<number, number>();
  for (const [path, held] of entries) {
    if (typeof held === "number") {
      const k = held * KEY_WIDTH;
      const code = columns.keys[k + K_SHARED] as number;
      const old = Math.floor(code / 2);
      let at = fromColumns.get(old);
      if (at === undefined) {
        try {
          at = intern(JSON.stringify(columns.shared[old]));
        } catch (error) {
          // Read from a file, but nested deeper than JSON.stringify recurses: not kept.
          drop(path, error);
          continue;
        }
        fromColumns.set(old, at);
      }
      paths.push(path);
      for (let i = 0; i < K_SHARED; i++) keys.push(columns.keys[k + i] as number);
      keys.push(at * 2 + (code % 2));
      frontmatter.push(columns.frontmatter[held] as Readonly<Record<string, unknown>>);
      continue;
    }
    const { frontmatter: fields, ...rest } = held.head as SkillHead & Record<string, unknown>;
    const own = rest.size === held.size;
    if (own) delete rest.size;
    let text: string;
    try {
      text = JSON.stringify(rest);
    } catch (error) {
      drop(path, error);
      continue;
    }
    paths.push(path);
    keys.push(
      held.dev,
      held.ino,
      held.size,
      held.mtimeMs,
      ctimeColumn(held.ctimeMs),
      held.storedAt,
      intern(text) * 2 + (own ? 1 : 0),
    );
    frontmatter.push(fields);
  }
  const fields = frontmatterText(paths, keys, frontmatter, drop);
  return (
    `{"version":${FORMAT_VERSION},"writtenAt":${JSON.stringify(writtenAt)},` +
    `"paths":${JSON.stringify(paths)},"keys":${JSON.stringify(keys)},` +
    `"shared":[${shared.join(",")}],"frontmatter":${fields}}\n`
  );
}

/**
 * The `frontmatter` column as JSON text. One whose frontmatter is nested deeper than
 * JSON.stringify recurses is dropped (and reported through `drop`), its path and keys with it.
 */
function frontmatterText(
  paths: string[],
  keys: number[],
  frontmatter: readonly Readonly<Record<string, unknown>>[],
  drop: (path: string, error: unknown) => void,
): string {
  try {
    // One JSON.stringify of every frontmatter is several times faster than one each.
    return JSON.stringify(frontmatter);
  } catch {
    // A frontmatter nested deeper than JSON.stringify recurses: found and dropped one by one.
    const texts: string[] = [];
    let kept = 0;
    for (let at = 0; at < paths.length; at++) {
      try {
        texts.push(JSON.stringify(frontmatter[at]));
      } catch (error) {
        drop(paths[at] as string, error);
        continue;
      }
      paths[kept] = paths[at] as string;
      for (let i = 0; i < KEY_WIDTH; i++) keys[kept * KEY_WIDTH + i] = keys[at * KEY_WIDTH + i] as number;
      kept++;
    }
    paths.length = kept;
    keys.length = kept * KEY_WIDTH;
    return `[${texts.join(",")}]`;
  }
}

/**
 * Appends `text` to the file as it is, with one write (never through a symlink, never to
 * anything but a regular file). `absent` when there is no such file to append to: the caller
 * writes it anew. Rejects when the write fails: what reached the file is then unknown.
 */
export async function appendText(file: string, text: string): Promise<"appended" | "absent"> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(
      file,
      constants.O_WRONLY | constants.O_APPEND | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0),
    );
  } catch {
    return "absent";
  }
  try {
    if (!(await handle.stat()).isFile()) return "absent";
    const bytes = Buffer.from(text, "utf8");
    let written = 0;
    while (written < bytes.length) {
      const { bytesWritten } = await handle.write(bytes, written, bytes.length - written);
      written += bytesWritten;
    }
    return "appended";
  } finally {
    await handle.close().catch(() => {});
  }
}
