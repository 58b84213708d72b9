import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { ProtocolError, type Server } from "@modelcontextprotocol/server";
import { compareCodeUnits, type FileDigest, type SkillMetadata } from "@skill/core";
import { AnyParams, cursorParam, invalid, quoteParam, uriParam } from "./params.js";
import {
  DIRECTORY_MIME_TYPE,
  decodeSegment,
  encodePath,
  INTERNAL_ERROR,
  mimeTypeOf,
  SKILL_FILE,
  type SkillCacheScope,
  type SkillEntry,
} from "./protocol.js";

/** The methods {@link answerSkills} answers. */
export const METHODS = [
  "skills/list",
  "skills/get",
  "resources/list",
  "resources/read",
  "resources/directory/read",
] as const;

/** One file served: its URI and its path as the skill lists it. */
export interface ServedFile {
  readonly uri: string;
  /** Relative to the skill folder, `/`-separated, as `service.files` gives it; the SKILL.md file name for the skill file. */
  readonly rel: string;
  /** The skill file itself: `rel` is its own file name, and it is read as `readFile(name, "SKILL.md")`. */
  readonly skillFile: boolean;
}

/** Why a file the agent may see cannot be served now, in words that name no path on the server. */
export interface Refusal {
  readonly reason: string;
}

/** The skills a server serves and what it knows of their files (see `registerSkills`). */
export interface Catalog {
  /** The skills served, sorted by name. */
  servable(): readonly SkillMetadata[];
  /** The skill a URI belongs to, when the agent may see it. */
  skillOf(uri: string): SkillMetadata | undefined;
  folderUri(name: string): string;
  skillUri(skill: SkillMetadata): string;
  skillFile(skill: SkillMetadata): ServedFile;
  /** The files of a skill for a request that arrived at `asOf` (`performance.now()`, default now). */
  filesOf(skill: SkillMetadata, asOf?: number): Promise<readonly ServedFile[]>;
  /** The entry of a skill for a request that arrived at `asOf` (`performance.now()`, default now). */
  entryOf(skill: SkillMetadata, asOf?: number): Promise<SkillEntry | undefined>;
  /** The same when it can be answered without a check (one began since `asOf`), else `undefined`: no await. */
  checkedEntry(skill: SkillMetadata, asOf: number): SkillEntry | undefined;
  /** Every servable file of a skill with its digest (core's `FileDigest`), SKILL.md first. */
  describedFiles(skill: SkillMetadata): Promise<{ file: ServedFile; info: FileDigest }[] | undefined>;
  /** A file's bytes read now; why not, when it cannot be read; `undefined` when it is gone. */
  serve(
    skill: SkillMetadata,
    file: ServedFile,
  ): Promise<{ bytes: Uint8Array; described: FileDigest } | Refusal | undefined>;
}

/** Work a listing does between two turns of the event loop, in ms. */
const SLICE_MS = 4;

/**
 * A yield to the event loop once {@link SLICE_MS} of work passed since the last one: a long
 * listing does not hold other requests back, and one of cached entries pays no hop per skill.
 */
function timeSlices(): () => Promise<void> | undefined {
  let since = performance.now();
  return () => {
    if (performance.now() - since < SLICE_MS) return undefined;
    return yieldToEventLoop().then(() => {
      since = performance.now();
    });
  };
}

/** A cursor is an offset into a sorted listing, opaque to clients. */
function encodeCursor(offset: number): string {
  return Buffer.from(`o:${offset}`).toString("base64url");
}

function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const match = /^o:(\d+)$/.exec(Buffer.from(cursor, "base64url").toString());
  if (!match) throw invalid(`Invalid cursor: ${quoteParam(cursor)}`);
  return Number(match[1]);
}

function page<T>(items: readonly T[], cursor: string | undefined, size: number) {
  const offset = decodeCursor(cursor);
  const end = offset + size;
  return {
    items: items.slice(offset, end),
    ...(end < items.length ? { nextCursor: encodeCursor(end) } : {}),
  };
}

/** What a listed file's resources/read answers: its contents, or why there are none. */
async function readAnswer(catalog: Catalog, uri: string) {
  const asOf = performance.now();
  const skill = catalog.skillOf(uri);
  const file = !skill
    ? undefined
    : uri === catalog.skillUri(skill)
      ? catalog.skillFile(skill)
      : (await catalog.filesOf(skill, asOf)).find((f) => f.uri === uri);
  const served = skill && file ? await catalog.serve(skill, file) : undefined;
  if (!file || !served) throw invalid(`Unknown resource: ${quoteParam(uri)}`);
  // A file the agent may see that cannot be read now says so: "unknown" would send a client
  // looking for a file that is there.
  if ("reason" in served) {
    throw new ProtocolError(INTERNAL_ERROR, `Could not read ${quoteParam(uri)}: ${served.reason}`);
  }
  const { bytes, described } = served;
  const mimeType = mimeTypeOf(file.rel, described.utf8);
  // A view of the bytes read, not a copy of them.
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    contents: [
      described.utf8
        ? { uri, mimeType, text: buffer.toString("utf8") }
        : { uri, mimeType, blob: buffer.toString("base64") },
    ],
  };
}

/** The path of `uri` inside the skill folder URI `folder` (`""` for the folder itself), if it is inside. */
function pathInside(folder: string, uri: string): string | undefined {
  if (uri === folder) return "";
  return uri.startsWith(`${folder}/`) ? uri.slice(folder.length + 1) : undefined;
}

/** The direct children of a folder URI of a skill the agent may see, sorted by name. */
async function childrenOf(catalog: Catalog, requested: string) {
  const uri = requested.replace(/\/$/, "");
  const skill = catalog.skillOf(uri);
  const folder = skill && catalog.folderUri(skill.name);
  const dir = folder === undefined ? undefined : pathInside(folder, uri);
  if (!skill || dir === undefined) throw invalid(`Unknown directory: ${quoteParam(requested)}`);
  const rel = dir === "" ? "" : `${dir.split("/").map(decodeSegment).join("/")}/`;
  const children = new Map<string, { uri: string; name: string; mimeType: string }>();
  for (const file of await catalog.filesOf(skill)) {
    const path = file.skillFile ? SKILL_FILE : file.rel;
    if (!path.startsWith(rel)) continue;
    const rest = path.slice(rel.length);
    const slash = rest.indexOf("/");
    const name = slash === -1 ? rest : rest.slice(0, slash);
    if (children.has(name)) continue;
    children.set(name, {
      uri: `${folder}/${encodePath(rel + name)}`,
      name,
      mimeType: slash === -1 ? mimeTypeOf(path, true) : DIRECTORY_MIME_TYPE,
    });
  }
  if (children.size === 0) throw invalid(`Unknown directory: ${quoteParam(requested)}`);
  return [...children.values()].sort((a, b) => compareCodeUnits(a.name, b.name));
}

/** Every servable file of every skill, as `resources/list` lists them. */
async function resourcesOf(catalog: Catalog) {
  const all: { uri: string; name: string; mimeType: string; size: number; description?: string }[] = [];
  const slice = timeSlices();
  for (const skill of catalog.servable()) {
    await slice();
    for (const { file, info } of (await catalog.describedFiles(skill)) ?? []) {
      all.push({
        uri: file.uri,
        name: file.skillFile ? skill.name : `${skill.name}/${file.rel}`,
        mimeType: mimeTypeOf(file.rel, info.utf8),
        size: info.size,
        ...(file.skillFile ? { description: skill.description } : {}),
      });
    }
  }
  return all;
}

/**
 * Answers the five methods of the extension on `low` from `catalog`. Every param is checked
 * here: a wrong one is `-32602` with one sentence; a URI or cursor is quoted back truncated.
 */
export function answerSkills(
  low: Server,
  catalog: Catalog,
  { pageSize, caching }: { pageSize: number; caching: { ttlMs: number; cacheScope: SkillCacheScope } },
): void {
  low.setRequestHandler("skills/list", { params: AnyParams }, async (params) => {
    const asOf = performance.now();
    const { items, ...rest } = page(catalog.servable(), cursorParam("skills/list", params), pageSize);
    const skills: SkillEntry[] = [];
    const slice = timeSlices();
    for (const skill of items) {
      // An entry already checked costs no turn of the event loop; a page of them, none.
      const entry = catalog.checkedEntry(skill, asOf) ?? (await catalog.entryOf(skill, asOf));
      if (entry) skills.push(entry);
      const pause = slice();
      if (pause) await pause;
    }
    return { ...caching, skills, ...rest };
  });

  low.setRequestHandler("skills/get", { params: AnyParams }, async (params) => {
    const uri = uriParam("skills/get", params);
    const skill = catalog.skillOf(uri);
    const entry = skill && uri === catalog.skillUri(skill) ? await catalog.entryOf(skill) : undefined;
    if (!entry) throw invalid(`Unknown skill: ${quoteParam(uri)}`);
    return { ...caching, skill: entry };
  });

  low.setRequestHandler("resources/list", { params: AnyParams }, async (params) => {
    const cursor = cursorParam("resources/list", params);
    const { items, ...rest } = page(await resourcesOf(catalog), cursor, pageSize);
    return { resources: items, ...rest };
  });

  low.setRequestHandler("resources/read", { params: AnyParams }, async (params) =>
    readAnswer(catalog, uriParam("resources/read", params)),
  );

  low.setRequestHandler("resources/directory/read", { params: AnyParams }, async (params) => {
    const method = "resources/directory/read";
    const sorted = await childrenOf(catalog, uriParam(method, params));
    const { items, ...rest } = page(sorted, cursorParam(method, params), pageSize);
    return { ...caching, resources: items, ...rest };
  });
}
