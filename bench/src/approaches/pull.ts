import { pull } from "@skill/remote";
import type { RemoteOutput } from "./types.js";

export interface PullInput {
  readonly url: string;
  readonly cacheDir: string;
  readonly maxFileBytes?: number;
  readonly maxTotalBytes?: number;
}

/** `@skill/remote` as a harness calls it, with its default fetch and concurrency. */
export async function run(input: PullInput): Promise<RemoteOutput> {
  const result = await pull(input.url, {
    cacheDir: input.cacheDir,
    ...(input.maxFileBytes === undefined ? {} : { maxFileBytes: input.maxFileBytes }),
    ...(input.maxTotalBytes === undefined ? {} : { maxTotalBytes: input.maxTotalBytes }),
  });
  return { found: result.files.length, fromCache: result.fromCache, skipped: result.skipped.length };
}
