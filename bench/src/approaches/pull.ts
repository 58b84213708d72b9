import { pull } from "@skill/remote";
import type { ChildOutput } from "../protocol.js";

/** `@skill/remote` as a harness calls it, with its default fetch and concurrency. */
export async function run({ url, cacheDir }: { url: string; cacheDir: string }): Promise<ChildOutput> {
  const result = await pull(url, { cacheDir });
  return { found: result.files.length, fromCache: result.fromCache };
}
