import { z } from 'zod';
import type { Kind, Provider } from './kinds.js';
import type { Role } from './roles.js';

/**
 * Relationship types, UPPER_SNAKE, read "source <verb> target": (vm)-[:RUNS_ON]->(host),
 * (host)-[:MEMBER_OF]->(cluster), (service)-[:DEPENDS_ON]->(vm), (vm)-[:STORED_ON]->(storage),
 * (host)-[:MANIFESTS_AS]->(vm) for one real thing seen by two providers.
 * The inverse names (runsHere, members, dependents, stores) are used only for reading.
 */
export const RELATIONSHIP_TYPES = ['RUNS_ON', 'MEMBER_OF', 'DEPENDS_ON', 'STORED_ON', 'MANIFESTS_AS'] as const;
export const RelationshipTypeSchema = z
  .enum(RELATIONSHIP_TYPES)
  .describe('Read source → target: (vm)-[RUNS_ON]->(host), (service)-[DEPENDS_ON]->(vm).');
export type RelationshipType = z.infer<typeof RelationshipTypeSchema>;

/** observed: a provider reported it; inferred: a resolver rule matched it; declared: a principal said so. */
export const PROVENANCES = ['observed', 'inferred', 'declared'] as const;
export const ProvenanceSchema = z
  .enum(PROVENANCES)
  .describe('observed: a provider reported it; inferred: a resolver rule matched it; declared: a principal said so.');
export type Provenance = z.infer<typeof ProvenanceSchema>;

const WORKLOADS = ['vm', 'lxc', 'service'] as const satisfies readonly Kind[];
const MACHINES = ['host', 'vm', 'lxc'] as const satisfies readonly Kind[];
const ANY_DEPENDENCY_TARGET = [
  'cluster',
  'host',
  'vm',
  'lxc',
  'storage',
  'network',
  'service',
] as const satisfies readonly Kind[];

function pairs(sources: readonly Kind[], targets: readonly Kind[]): Array<readonly [Kind, Kind]> {
  return sources.flatMap((s) => targets.map((t) => [s, t] as const));
}

/** The (source kind, target kind) pairs each relationship type allows. Anything else is refused. */
export const RELATIONSHIP_RULES: Readonly<
  Record<RelationshipType, { description: string; allowed: ReadonlyArray<readonly [Kind, Kind]> }>
> = {
  RUNS_ON: {
    description: 'a workload runs on a machine',
    allowed: [...pairs(['vm', 'lxc'], ['host']), ...pairs(['service'], MACHINES)],
  },
  MEMBER_OF: {
    description: 'a host, storage or network belongs to a cluster',
    allowed: pairs(['host', 'storage', 'network'], ['cluster']),
  },
  DEPENDS_ON: {
    description: 'a workload needs the target to work',
    allowed: [...pairs([...WORKLOADS, 'host'], ANY_DEPENDENCY_TARGET)],
  },
  STORED_ON: {
    description: 'a guest disk or volume lives on a storage',
    allowed: pairs(['vm', 'lxc'], ['storage']),
  },
  MANIFESTS_AS: {
    description: 'the same real thing seen by two providers (never a merge)',
    allowed: [
      ...pairs(['cluster'], ['cluster']),
      ...pairs(MACHINES, MACHINES),
      ...pairs(['storage'], ['storage']),
      ...pairs(['network'], ['network']),
      ...pairs(['service'], ['service']),
    ],
  },
};

/** True when `type` may connect a `source`-kind resource to a `target`-kind one. */
export function isAllowedPair(type: RelationshipType, source: Kind, target: Kind): boolean {
  return RELATIONSHIP_RULES[type].allowed.some(([s, t]) => s === source && t === target);
}

/** The reason a pair is refused, naming the type and both kinds; `null` when allowed. */
export function refusePair(type: RelationshipType, source: Kind, target: Kind): string | null {
  if (isAllowedPair(type, source, target)) return null;
  const allowed = RELATIONSHIP_RULES[type].allowed.map(([s, t]) => `${s}→${t}`).join(', ');
  return `${type} is not allowed from ${source} to ${target} (allowed: ${allowed})`;
}

/** Placement types: a provider observes them between its resources; nobody declares one there. */
export const OBSERVED_ONLY_TYPES = ['RUNS_ON', 'MEMBER_OF', 'STORED_ON'] as const satisfies readonly RelationshipType[];

/** One end of an edge a principal declares, as the authority rule reads it. */
export interface DeclaredEnd {
  id: string;
  provider: Provider;
  /** Who declared it, for a `manual:` resource a principal declared; else null. */
  declaredBy: string | null;
}

/**
 * Who may declare which edge (pure). Facts about provider resources are the providers' and the
 * resolver's, never a principal's word: between provider resources anyone may declare DEPENDS_ON;
 * RUNS_ON, MEMBER_OF and STORED_ON are observed only; MANIFESTS_AS is observed or inferred, or
 * declared by an operator. A `manual:` resource carries a declared placement (RUNS_ON a VM…) from
 * its declarer or an operator. Returns the refused field and the reason, or null.
 */
export function declaredEdgeProblem(
  type: RelationshipType,
  source: DeclaredEnd,
  principal: { name: string; role: Role },
): { field: string; reason: string } | null {
  if (type === 'DEPENDS_ON') return null;
  if (type === 'MANIFESTS_AS') {
    return principal.role === 'operator'
      ? null
      : {
          field: 'input.type',
          reason:
            'MANIFESTS_AS is observed by a provider or inferred by the identity resolver from provider-reported SMBIOS UUIDs, MACs and serials; only an operator may declare one (agents may declare DEPENDS_ON)',
        };
  }
  if (source.provider !== 'manual') {
    return {
      field: 'input.type',
      reason: `${type} from ${source.id} is observed by its ${source.provider} provider, never declared: a principal's ${type} would contradict what ${source.provider} reports (between provider resources only DEPENDS_ON may be declared, or MANIFESTS_AS by an operator)`,
    };
  }
  if (principal.role !== 'operator' && source.declaredBy !== principal.name) {
    return {
      field: 'input.source',
      reason: `${source.id} was ${source.declaredBy ? `declared by ${source.declaredBy}` : 'not declared by a principal'}: only its declarer or an operator may declare its ${type}`,
    };
  }
  return null;
}

/** Which edges of a resource a read follows: leaving it (OUT), arriving at it (IN), or both. */
export const DIRECTIONS = ['OUT', 'IN', 'BOTH'] as const;
export const DirectionSchema = z.enum(DIRECTIONS).describe('OUT: edges from the resource; IN: edges to it; BOTH.');
export type Direction = z.infer<typeof DirectionSchema>;

/** Inferred-edge confidence; a name-only identity match is at most `low`. */
export const EDGE_CONFIDENCES = ['high', 'medium', 'low'] as const;
export const EdgeConfidenceSchema = z.enum(EDGE_CONFIDENCES);
export type EdgeConfidence = z.infer<typeof EdgeConfidenceSchema>;

/**
 * An edge as ingest, resolvers and mutations write it. `source` is who asserted it (an ingester
 * such as `proxmox:lab`, a resolver rule, or a principal name); `fromId`/`toId` are resource ids.
 */
export interface EdgeInput {
  type: RelationshipType;
  fromId: string;
  toId: string;
  provenance: Provenance;
  source: string;
  /** Inferred edges: the resolver rule that matched (e.g. `mac_address`). */
  rule?: string | null;
  confidence?: EdgeConfidence | null;
  evidence?: string | null;
}

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

/** UTF-8 bytes of a declared edge's `evidence` (a config line, not a document). */
export const EVIDENCE_MAX_BYTES = 4 * 1024;

/** Why a declared edge's evidence is refused, or null. */
export function evidenceProblem(evidence: string | null | undefined): string | null {
  const bytes = evidence ? new TextEncoder().encode(evidence).length : 0;
  return bytes > EVIDENCE_MAX_BYTES ? `${bytes} bytes; the limit is ${EVIDENCE_MAX_BYTES} (4 KiB)` : null;
}
