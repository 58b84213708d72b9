// A loopback HTTP server for remote skill packs in the well-known layout (`<base>/index.json`,
// `<base>/<name>/<file>`), with ETags, a delay before every answer, and counters.
import { createHash } from "node:crypto";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { writeManifest } from "@skill/remote";
import { prose, Random, sentence, textPool, word } from "./random.js";

export interface Pack {
  readonly skills: readonly { name: string; description: string; files: ReadonlyMap<string, Buffer> }[];
  /** Served instead of the v0.1 index built from `skills`, with more files (an index v0.2 and its archives). */
  readonly index?: Buffer;
  readonly extra?: ReadonlyMap<string, Buffer>;
}

export type PackServer = Awaited<ReturnType<typeof startPackServer>>;

const zero = () => ({ requests: 0, notModified: 0, bodyBytes: 0 });

export async function startPackServer(packs: Readonly<Record<string, Pack>>, delayMs = 0) {
  const routes = new Map<string, { type: string; body: Buffer; etag: string }>();
  const route = (path: string, body: Buffer, type = "application/octet-stream") => {
    const etag = `"${createHash("sha1").update(body).digest("hex").slice(0, 20)}"`;
    routes.set(path, { type: path.endsWith(".tar.gz") ? "application/gzip" : type, body, etag });
  };
  for (const [id, pack] of Object.entries(packs)) {
    const listed = pack.skills.map(({ files, ...skill }) => ({ ...skill, files: [...files.keys()] }));
    const index = pack.index ?? Buffer.from(JSON.stringify({ skills: listed }));
    route(`/${id}/index.json`, index, "application/json");
    for (const [path, file] of pack.extra ?? []) route(`/${id}/${path}`, file);
    for (const skill of pack.skills)
      for (const [path, file] of skill.files) route(`/${id}/${skill.name}/${path}`, file);
  }
  const stats = zero();
  const server = createServer((req, res) => {
    stats.requests++;
    const answer = () => {
      const entry = routes.get(new URL(req.url ?? "/", "http://x").pathname);
      if (!entry || req.method !== "GET") return res.writeHead(entry ? 405 : 404).end();
      const match = req.headers["if-none-match"]?.split(",");
      if (match?.some((tag) => tag.trim().replace(/^W\//, "") === entry.etag)) {
        stats.notModified++;
        return res.writeHead(304, { etag: entry.etag }).end();
      }
      const length = entry.body.length;
      res.writeHead(200, { etag: entry.etag, "content-type": entry.type, "content-length": length });
      stats.bodyBytes += length;
      res.end(entry.body);
    };
    setTimeout(answer, delayMs);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: (pack: string) => `http://127.0.0.1:${port}/${pack}/`,
    stats: () => ({ ...stats }),
    resetStats: () => Object.assign(stats, zero()),
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

/** A pack of `skills` skills with `filesPerSkill` files each (SKILL.md first), about 1–3 KB a file. */
export function skillPack(options: { skills: number; filesPerSkill: number; seed?: number }): Pack {
  const random = new Random(options.seed ?? 1);
  const pool = textPool(random);
  const extra = "references/guide.md scripts/run.sh assets/data.json references/api.md assets/template.txt";
  const skills = Array.from({ length: options.skills }, (_, i) => {
    const name = `${word(random)}-${word(random)}-${i.toString(36)}`;
    const description = prose(random, 100, 300);
    const text = `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n\n${sentence(random)}\n\n`;
    const files = new Map([["SKILL.md", Buffer.from(text + pool.slice(0, random.int(1000, 3000)))]]);
    for (const path of extra.split(" ").slice(0, options.filesPerSkill - 1)) {
      const at = random.int(0, pool.length - 3000);
      files.set(path, Buffer.from(pool.slice(at, at + random.int(1000, 3000))));
    }
    return { name, description, files };
  });
  return { skills };
}

export function writePack(pack: Pack, dir: string): void {
  for (const { name, files } of pack.skills)
    for (const [path, body] of files) {
      mkdirSync(dirname(join(dir, name, path)), { recursive: true });
      writeFileSync(join(dir, name, path), body);
    }
}

/** The same pack as index v0.2: written to a folder, packed by the library's own `writeManifest`. */
export async function packV2(pack: Pack, work: string): Promise<Pack> {
  const dir = mkdtempSync(join(work, "pack-v2-"));
  writePack(pack, dir);
  const written = await writeManifest(dir);
  const failed = written.failed.map((f) => `${f.path}: ${f.error.message}`);
  if (!written.written) throw new Error(`writeManifest failed: ${failed.join("; ")}`);
  const extra = new Map(written.archives.map((a) => [a.path, Buffer.from(a.bytes)]));
  return { skills: pack.skills, index: readFileSync(written.path), extra };
}
