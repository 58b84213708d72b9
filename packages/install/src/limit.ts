let limiter: Promise<typeof import("p-limit")> | undefined;

/** p-limit, loaded once when first needed (it is ESM-only: a CommonJS build loads it this way too). */
function loadLimiter(): Promise<typeof import("p-limit")> {
  limiter ??= import("p-limit").catch((error: unknown) => {
    limiter = undefined;
    throw error;
  });
  return limiter;
}

/**
 * `fn` of each item, at most `limit` at once, the results in the items' order. Every call is
 * waited for, and a failure is the first in the items' order, not the first to happen: what a
 * caller reports does not depend on timing.
 */
export async function inOrder<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const { default: pLimit } = await loadLimiter();
  const run = pLimit(limit);
  const settled = await Promise.allSettled(items.map((item, i) => run(() => fn(item, i))));
  return settled.map((s) => {
    if (s.status === "rejected") throw s.reason;
    return s.value;
  });
}
