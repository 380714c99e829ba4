import type { Attribution } from '../../correlator/types.js';
import { noneAttribution } from '../../correlator/attribute.js';
import type { Kind } from '../model/kinds.js';
import type { TransitionDecision } from '../policy/transition-gate.js';
import { toPlain } from './values.js';

/**
 * A Transition as the graph stores it: `(:Transition {id, resourceId, kind, fromState, toState,
 * rawFrom, rawTo, observedAt, observer, hostId, …attribution summary…, attribution (JSON),
 * decision, decisionReasons, wouldHaveSuppressed, narrative})-[:OF]->(:Resource)`.
 * The attribution's headline fields are properties (queryable); the whole object is JSON.
 */
export interface TransitionRecord {
  id: string;
  resourceId: string;
  kind: Kind;
  from: string;
  to: string;
  rawFrom: string | null;
  rawTo: string | null;
  observedAt: string;
  observer: string;
  /** The node/host the resource ran on when observed (for `low` look-ups), if known. */
  hostId: string | null;
  attribution: Attribution;
  decision: TransitionDecision;
  /** The narrative in UTC as rendered when stored (other zones are rendered on demand). */
  narrative: string;
  createdAt: string;
}

const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

function parseJson<T>(v: unknown, fallback: T): T {
  if (typeof v !== 'string') return fallback;
  try {
    return JSON.parse(v) as T;
  } catch {
    return fallback;
  }
}

/** Builds a record from a Transition node's properties. */
export function transitionFromProperties(raw: unknown): TransitionRecord {
  const p = toPlain(raw) as Record<string, unknown>;
  const attribution =
    parseJson<Attribution | null>(p.attribution, null) ??
    noneAttribution({ lookbackSeconds: 0 }, 0, 'no attribution stored');
  const decision: TransitionDecision = {
    decision: (p.decision as TransitionDecision['decision'] | null) ?? 'open_incident',
    reasons: Array.isArray(p.decisionReasons) ? p.decisionReasons.map(String) : [],
    ...(typeof p.wouldHaveSuppressed === 'string' ? { wouldHaveSuppressed: p.wouldHaveSuppressed } : {}),
  };
  return {
    id: String(p.id),
    resourceId: String(p.resourceId),
    kind: String(p.kind) as Kind,
    from: String(p.fromState),
    to: String(p.toState),
    rawFrom: str(p.rawFrom),
    rawTo: str(p.rawTo),
    observedAt: String(p.observedAt),
    observer: String(p.observer ?? ''),
    hostId: str(p.hostId),
    attribution,
    decision,
    narrative: String(p.narrative ?? ''),
    createdAt: String(p.createdAt ?? p.observedAt),
  };
}
