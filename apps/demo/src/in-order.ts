import pLimit from "p-limit";

/**
 * `fn` of each item, at most `limit` running at once, the results in the items' order.
 * Every started call is waited for before it settles, and a failure is the first one in the
 * items' order (not the first to happen), so what a caller reports does not depend on timing.
 */
export async function inOrder<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const run = pLimit(limit);
  const settled = await Promise.allSettled(items.map((item, i) => run(() => fn(item, i))));
  return settled.map((s) => {
    if (s.status === "rejected") throw s.reason;
    return s.value;
  });
}
