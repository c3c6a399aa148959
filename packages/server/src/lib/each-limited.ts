/**
 * Runs `fn` over `items` with at most `limit` calls under way at once, in order of the items; resolves when all
 * are done. `fn` handles its own failures (a throw stops that worker's share). `stop` ends the run early.
 */
export async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
  stop: () => boolean = () => false,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (!stop() && next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
