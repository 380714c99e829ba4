/**
 * The event ids a push source had accepted recently, each until its signature's time window ends
 * (then the timestamp itself refuses a replay). Bounded: past `capacity` the oldest entries go
 * first — the graph stores an event once by its key anyway, so a forgotten id lets an identical
 * replay through to an idempotent write, never a second event. In memory, per process.
 */
export class RecentIds {
  private readonly until = new Map<string, number>();

  constructor(private readonly capacity = 100_000) {}

  /** Whether `key` was accepted and its window has not ended at `nowMs`. */
  has(key: string, nowMs: number): boolean {
    const end = this.until.get(key);
    if (end === undefined) return false;
    if (end > nowMs) return true;
    this.until.delete(key);
    return false;
  }

  /** Remembers `key` until `untilMs`. */
  add(key: string, untilMs: number, nowMs: number): void {
    this.until.delete(key);
    this.until.set(key, untilMs);
    this.sweep(nowMs);
  }

  /** Forgets `key` (an accepted push whose ingest failed: the broker's retry must get through). */
  delete(key: string): void {
    this.until.delete(key);
  }

  get size(): number {
    return this.until.size;
  }

  private sweep(nowMs: number): void {
    // A few expired entries from the oldest end per add, then the capacity.
    let looked = 0;
    for (const [key, end] of this.until) {
      if (looked++ >= 8) break;
      if (end <= nowMs) this.until.delete(key);
    }
    while (this.until.size > this.capacity) this.until.delete(this.until.keys().next().value as string);
  }
}
