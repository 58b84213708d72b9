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
  const settled: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      try {
        settled[i] = { status: "fulfilled", value: await fn(items[i] as T, i) };
      } catch (reason) {
        settled[i] = { status: "rejected", reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return settled.map((s) => {
    if (s.status === "rejected") throw s.reason;
    return s.value;
  });
}
