import { createWriteStream } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream } from "node:stream/web";
import type { ChildOutput } from "../protocol.js";

async function get(url: string): Promise<Response> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url}: HTTP ${response.status}`);
  return response;
}

/** The baseline: the index, then every file one at a time with plain fetch, each buffered whole (or streamed to its file). */
export async function run(input: { url: string; dir: string; stream?: boolean }): Promise<ChildOutput> {
  const base = input.url.endsWith("/") ? input.url : `${input.url}/`;
  const index = (await (await get(new URL("index.json", base).href)).json()) as {
    skills: { name: string; files: string[] }[];
  };
  let files = 0;
  for (const skill of index.skills) {
    for (const file of skill.files) {
      const response = await get(`${base}${skill.name}/${file}`);
      const target = join(input.dir, skill.name, file);
      await mkdir(dirname(target), { recursive: true });
      if (input.stream && response.body)
        await pipeline(Readable.fromWeb(response.body as ReadableStream), createWriteStream(target));
      else await writeFile(target, Buffer.from(await response.arrayBuffer()));
      files++;
    }
  }
  return { found: index.skills.length, samples: { files } };
}
