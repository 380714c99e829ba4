import pLimit from 'p-limit';

/**
 * Runs `fn` over `items`, started in their order, with at most `limit` calls in flight (p-limit's
 * queue); resolves when every call has. The first failure rejects at once and starts no further
 * call (those in flight run to their end): a pass that has failed does not go on working.
 */
export async function mapLimit<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  const run = pLimit(Math.max(1, Math.floor(limit)));
  await Promise.all(
    items.map((item) =>
      run(async () => {
        try {
          await fn(item);
        } catch (err) {
          // Before p-limit frees this call's place, or it would start the next one.
          run.clearQueue();
          throw err;
        }
      }),
    ),
  );
}
