import { refuseEdge } from '../graph/edges.js';
import { LOAD_ORDER } from '../graph/inventory/write.js';
import { type EdgeInput, type Kind, refusePair } from '../model/index.js';
import { IdTable } from './id-table.js';

/**
 * What a streamed load pass keeps of its rows between its iterations: per id one number (kind,
 * stored, repeated, how many of the pass's inline edges point at it), never the rows themselves,
 * so memory grows by an id per resource and not by its rows, parameters or results; and that in an
 * {@link IdTable}, off V8's heap (the id's bytes and ~20 more), not a Map of strings (~100 bytes).
 */

const KIND_BITS = 3;
const STORED = 1 << KIND_BITS;
const REPEATED = 2 << KIND_BITS;
const RANK_UNIT = 4 << KIND_BITS;

/** Where an edge goes: in its source's statement, after the resources, or into the report's skips. */
export type EdgePlace = 'inline' | 'deferred' | 'skip';
const DEFERRED = { place: 'deferred' } as const;
const INLINE = { place: 'inline' } as const;

export class PassIndex {
  private readonly ids = new IdTable();
  /** Kinds of edge targets outside the pass, read from the graph. */
  readonly outside = new Map<string, Kind>();
  private readonly outsideRank = new Map<string, number>();

  /** Records a row's id and kind; false when the id was seen before (the first kind stays). */
  add(id: string, kind: Kind): boolean {
    const v = this.ids.get(id);
    if (v === undefined) this.ids.set(id, LOAD_ORDER.indexOf(kind));
    else this.ids.set(id, v | REPEATED);
    return v === undefined;
  }

  markStored(id: string): void {
    const v = this.ids.get(id);
    if (v !== undefined) this.ids.set(id, v | STORED);
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  kindOf(id: string): Kind | undefined {
    const v = this.ids.get(id);
    return v === undefined ? this.outside.get(id) : LOAD_ORDER[v & (STORED - 1)];
  }

  /** Stored before the pass or given twice in it: written by MERGE, not CREATE. */
  known(id: string): boolean {
    return ((this.ids.get(id) ?? 0) & (STORED | REPEATED)) !== 0;
  }

  rank(id: string): number {
    const v = this.ids.get(id);
    return v === undefined ? (this.outsideRank.get(id) ?? 0) : Math.floor(v / RANK_UNIT);
  }

  countTarget(id: string): void {
    const v = this.ids.get(id);
    if (v !== undefined) this.ids.set(id, v + RANK_UNIT);
    else this.outsideRank.set(id, (this.outsideRank.get(id) ?? 0) + 1);
  }

  /**
   * An edge rides in its source's statement when the source is in the pass and the target comes
   * earlier in LOAD_ORDER (or exists outside the pass) and their kinds allow it; one whose target
   * is written later, or whose source is not in the pass, goes after the resources.
   */
  place(e: EdgeInput): { place: EdgePlace; reason?: string } {
    // Each end looked up once: an edge is placed in two or three walks, for every edge of the pass.
    const [vFrom, vTo] = [this.ids.get(e.fromId), this.ids.get(e.toId)];
    if (vFrom === undefined) return DEFERRED;
    const from = LOAD_ORDER[vFrom & (STORED - 1)]!;
    if (vTo !== undefined && (vTo & (STORED - 1)) >= (vFrom & (STORED - 1))) return DEFERRED;
    const to = vTo === undefined ? this.outside.get(e.toId) : LOAD_ORDER[vTo & (STORED - 1)]!;
    // Both ends known and apart (the common case): only the kind pair can refuse it.
    const reason =
      to !== undefined && e.fromId !== e.toId
        ? refusePair(e.type, from, to)
        : refuseEdge(
            e,
            new Map(
              to === undefined
                ? [[e.fromId, from]]
                : [
                    [e.fromId, from],
                    [e.toId, to],
                  ],
            ),
          );
    return reason ? { place: 'skip', reason } : INLINE;
  }

  /** Forgets every count of {@link countTarget}: the pass's edges are placed again. */
  resetRanks(): void {
    this.ids.mapValues((v) => v % RANK_UNIT);
    this.outsideRank.clear();
  }
}
