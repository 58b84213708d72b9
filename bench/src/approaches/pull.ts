import { pull } from "@skill/remote";
import type { ChildOutput } from "../protocol.js";

/** `@skill/remote` as a harness calls it, with its default fetch and concurrency. */
export async function run(input: {
  url: string;
  cacheDir: string;
  maxFileBytes?: number;
  maxTotalBytes?: number;
}): Promise<ChildOutput> {
  const { url, ...options } = input;
  const result = await pull(url, options);
  return {
    found: result.files.length,
    fromCache: result.fromCache,
    samples: { skipped: result.skipped.length },
  };
}
