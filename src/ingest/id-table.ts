/**
 * A map from id to a 32-bit integer, held outside V8's heap: every id's UTF-8 bytes in one arena,
 * and typed arrays for its offset, hash and value, found through an open-addressed table. A load
 * pass keeps one number per id of its rows; as a Map of strings that is ~100 bytes an id on V8's
 * heap (and V8 sizes its heap by what is live there), here it is the id's bytes past the pass's
 * shared scope prefix and ~20 more.
 */

const EMPTY = -1;
const encoder = new TextEncoder();

/** FNV-1a over bytes [from, to) of `b`. */
function hashOf(b: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  return h >>> 0;
}

function grown<T extends Uint8Array | Int32Array>(a: T, need: number): T {
  if (need <= a.length) return a;
  const next = new (a.constructor as new (n: number) => T)(Math.max(need, Math.ceil(a.length * 1.5)));
  next.set(a);
  return next;
}

export class IdTable {
  private bytes = new Uint8Array(1 << 12);
  /** Entry i's id is bytes[ends[i - 1] ?? 0, ends[i]). */
  private ends = new Int32Array(64);
  private hashes = new Int32Array(64);
  private values = new Int32Array(64);
  /** Entry index per slot, or EMPTY; its length a power of two, at most half full. */
  private slots = new Int32Array(128).fill(EMPTY);
  private used = 0;
  /** The last id looked up, encoded at the end of the arena (not yet an entry). */
  private probeLen = 0;

  get size(): number {
    return this.used;
  }

  /**
   * The first id's scope (up to its first `/`), which a pass's ids share: held once, an id that
   * starts with it is stored as 0xFF (never a byte of UTF-8) and the rest of it.
   */
  private prefix: string | null = null;

  /**
   * Encodes `id` past the last entry (its byte length in probeLen) and returns the bytes' hash.
   * ASCII, what ids are, is written and hashed in one loop without slicing the string; from the
   * first other character on, TextEncoder writes the rest and the hash is taken over the bytes.
   */
  private encode(id: string): number {
    const at = this.used === 0 ? 0 : this.ends[this.used - 1]!;
    this.prefix ??= id.slice(0, id.indexOf('/') + 1);
    const short = this.prefix.length > 0 && id.startsWith(this.prefix);
    // Up to 3 bytes per UTF-16 unit.
    this.bytes = grown(this.bytes, at + 1 + id.length * 3);
    const b = this.bytes;
    let [n, h] = [at, 0x811c9dc5];
    if (short) {
      b[n++] = 0xff;
      h = Math.imul(h ^ 0xff, 0x01000193);
    }
    for (let i = short ? this.prefix.length : 0; i < id.length; i++) {
      const c = id.charCodeAt(i);
      if (c >= 0x80) {
        n += encoder.encodeInto(id.slice(i), b.subarray(n)).written;
        this.probeLen = n - at;
        return hashOf(b, at, n);
      }
      b[n++] = c;
      h = Math.imul(h ^ c, 0x01000193);
    }
    this.probeLen = n - at;
    return h >>> 0;
  }

  /** The slot holding the id just encoded, or the empty slot where it would go. */
  private slotOf(hash: number): number {
    const at = this.used === 0 ? 0 : this.ends[this.used - 1]!;
    const mask = this.slots.length - 1;
    for (let s = hash & mask; ; s = (s + 1) & mask) {
      const e = this.slots[s]!;
      if (e === EMPTY) return s;
      if (this.hashes[e] !== (hash | 0)) continue;
      const start = e === 0 ? 0 : this.ends[e - 1]!;
      if (this.ends[e]! - start !== this.probeLen) continue;
      let same = true;
      for (let i = 0; i < this.probeLen && same; i++) same = this.bytes[start + i] === this.bytes[at + i];
      if (same) return s;
    }
  }

  /**
   * The last id looked up and its entry (or EMPTY): a pass asks about the same id several times in
   * a row (an edge's source for each of its edges, then its kind and rank).
   */
  private lastId: string | null = null;
  private lastEntry = EMPTY;

  private find(id: string): { slot: number; hash: number } {
    const hash = this.encode(id);
    return { slot: this.slotOf(hash), hash };
  }

  get(id: string): number | undefined {
    if (id !== this.lastId) {
      this.lastEntry = this.slots[this.find(id).slot]!;
      this.lastId = id;
    }
    return this.lastEntry === EMPTY ? undefined : this.values[this.lastEntry];
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  /** Sets `id` to `value` (a 32-bit integer). */
  set(id: string, value: number): void {
    if (value !== (value | 0)) throw new RangeError(`IdTable values are 32-bit integers, not ${value}`);
    if (id === this.lastId && this.lastEntry !== EMPTY) {
      this.values[this.lastEntry] = value;
      return;
    }
    const { slot, hash } = this.find(id);
    const e = this.slots[slot]!;
    if (e !== EMPTY) {
      this.values[e] = value;
      return;
    }
    // The encoded probe becomes the new entry's bytes.
    const at = this.used === 0 ? 0 : this.ends[this.used - 1]!;
    const n = this.used++;
    this.ends = grown(this.ends, this.used);
    this.hashes = grown(this.hashes, this.used);
    this.values = grown(this.values, this.used);
    this.ends[n] = at + this.probeLen;
    this.hashes[n] = hash | 0;
    this.values[n] = value;
    this.slots[slot] = n;
    this.lastId = id;
    this.lastEntry = n;
    if (this.used * 2 > this.slots.length) this.rehash();
  }

  /** Replaces every value by `fn` of it. */
  mapValues(fn: (value: number) => number): void {
    for (let e = 0; e < this.used; e++) this.values[e] = fn(this.values[e]!);
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2).fill(EMPTY);
    const mask = slots.length - 1;
    for (let e = 0; e < this.used; e++) {
      let s = this.hashes[e]! & mask;
      while (slots[s] !== EMPTY) s = (s + 1) & mask;
      slots[s] = e;
    }
    this.slots = slots;
  }
}
