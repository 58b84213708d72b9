import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { RemoteOutput } from "./types.js";

export interface SequentialInput {
  readonly url: string;
  readonly dir: string;
}

interface Index {
  readonly skills: readonly { readonly name: string; readonly files: readonly string[] }[];
}

async function get(url: string): Promise<Response> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url}: HTTP ${response.status}`);
  return response;
}

/** The baseline: the index, then every file one at a time with plain fetch, each buffered whole. */
export async function run(input: SequentialInput): Promise<RemoteOutput> {
  const base = input.url.endsWith("/") ? input.url : `${input.url}/`;
  const index = (await (await get(new URL("index.json", base).href)).json()) as Index;
  let files = 0;
  for (const skill of index.skills) {
    for (const file of skill.files) {
      const bytes = Buffer.from(await (await get(`${base}${skill.name}/${file}`)).arrayBuffer());
      const target = join(input.dir, skill.name, file);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, bytes);
      files++;
    }
  }
  return { found: index.skills.length, files };
}
