/**
 * Waiting in tests for something another process or loop does: poll a probe until it answers
 * (truthy) or fail naming what was awaited. One helper, so every wait says what it waited for and,
 * when asked, the logs that explain why it did not come.
 */

export interface UntilOptions {
  /** Pause between probes (default 100 ms). */
  everyMs?: number;
  /** Appended to the timeout's message: e.g. the tail of a child process's output. */
  context?: () => string;
}

type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

/** Polls `probe` until it returns a truthy value, which is returned; throws after `ms` naming `what`. */
export async function until<T>(
  what: string,
  ms: number,
  probe: () => T | Promise<T>,
  options: UntilOptions = {},
): Promise<Truthy<T>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v as Truthy<T>;
    if (Date.now() > deadline) {
      const context = options.context?.();
      throw new Error(`timed out after ${ms} ms waiting for ${what}${context ? `\n${context}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, options.everyMs ?? 100));
  }
}
