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

  /** Encodes `id` past the last entry; its byte length. */
  private encode(id: string): number {
    const at = this.used === 0 ? 0 : this.ends[this.used - 1]!;
    this.prefix ??= id.slice(0, id.indexOf('/') + 1);
    const short = this.prefix.length > 0 && id.startsWith(this.prefix);
    const rest = short ? id.slice(this.prefix.length) : id;
    // Up to 3 bytes per UTF-16 unit.
    this.bytes = grown(this.bytes, at + 1 + rest.length * 3);
    if (short) this.bytes[at] = 0xff;
    const from = short ? at + 1 : at;
    this.probeLen = from - at + encoder.encodeInto(rest, this.bytes.subarray(from)).written;
    return this.probeLen;
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

  private find(id: string): { slot: number; hash: number } {
    const at = this.used === 0 ? 0 : this.ends[this.used - 1]!;
    const len = this.encode(id);
    const hash = hashOf(this.bytes, at, at + len);
    return { slot: this.slotOf(hash), hash };
  }

  get(id: string): number | undefined {
    const e = this.slots[this.find(id).slot]!;
    return e === EMPTY ? undefined : this.values[e];
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  /** Sets `id` to `value` (a 32-bit integer). */
  set(id: string, value: number): void {
    if (value !== (value | 0)) throw new RangeError(`IdTable values are 32-bit integers, not ${value}`);
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
    if (this.used * 2 > this.slots.length) this.rehash();
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
