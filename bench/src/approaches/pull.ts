import { pull } from "@skill/remote";
import type { ChildOutput } from "../protocol.js";

export interface PullInput {
  readonly url: string;
  readonly cacheDir: string;
  readonly maxFileBytes?: number;
  readonly maxTotalBytes?: number;
}

/** `@skill/remote` as a harness calls it, with its default fetch and concurrency. */
export async function run({ url, ...options }: PullInput): Promise<ChildOutput> {
  const result = await pull(url, options);
  return {
    found: result.files.length,
    fromCache: result.fromCache,
    samples: { skipped: result.skipped.length },
  };
}
