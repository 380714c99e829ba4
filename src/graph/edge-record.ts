import type { EdgeConfidence, Provenance, RelationshipType } from '../model/index.js';
import { toPlain } from './values.js';

/** A relationship as the graph returns it; `fromId -[type]-> toId`. */
export interface EdgeRecord {
  type: RelationshipType;
  fromId: string;
  toId: string;
  provenance: Provenance;
  source: string;
  rule: string | null;
  confidence: EdgeConfidence | null;
  evidence: string | null;
  firstSeen: string | null;
  lastSeen: string | null;
  /** Set when a complete sync of its provider no longer saw this observed edge (e.g. after a migration). */
  missingSince: string | null;
}

/** Cypher projection for `(a)-[e]->(b)`, used by every edge read. */
export const EDGE_PROJECTION = '{type: type(e), fromId: a.id, toId: b.id, props: properties(e)}';

export function edgeFromRow(raw: unknown): EdgeRecord {
  const row = toPlain(raw) as { type: RelationshipType; fromId: string; toId: string; props: Record<string, unknown> };
  const p = row.props;
  return {
    type: row.type,
    fromId: row.fromId,
    toId: row.toId,
    provenance: p.provenance as Provenance,
    source: String(p.source ?? ''),
    rule: (p.rule as string | null) ?? null,
    confidence: (p.confidence as EdgeConfidence | null) ?? null,
    evidence: (p.evidence as string | null) ?? null,
    firstSeen: (p.firstSeen as string | null) ?? null,
    lastSeen: (p.lastSeen as string | null) ?? null,
    missingSince: (p.missingSince as string | null) ?? null,
  };
}
