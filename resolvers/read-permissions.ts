import {
  defaultFieldResolver,
  getNamedType,
  type GraphQLField,
  type GraphQLFieldResolver,
  type GraphQLSchema,
  isInterfaceType,
  isObjectType,
} from 'graphql';
import { ROLES } from '../src/model/index.js';
import { assertCan, PERMISSIONS, type Permission } from '../src/services/permissions.js';
import type { RequestContext } from './context.js';

/**
 * What reading each object type needs: the permission its top-level operations check (null: a
 * token is enough, or the type only ever describes its parent). Enforced on every field that
 * returns the type, whatever the path — `conditions { cause { transition } }` needs
 * `transition:read` as `transitions` does. Every type of the schema is listed (a unit test holds
 * it so): a new type is classified when it is added, not found later through a nested path.
 */
export const READ_PERMISSIONS: Readonly<Record<string, Permission | null>> = {
  // What changed, and who did it: transitions, their explanation, the events behind them.
  Transition: 'transition:read',
  TransitionEdge: 'transition:read',
  TransitionConnection: 'transition:read',
  Explanation: 'transition:read',
  StateAt: 'transition:read',
  Event: 'transition:read',
  // The attribution's summary is part of what a condition reader sees (Condition.attribution).
  Attribution: null,
  AttributionEvent: null,
  // The grant an agent's change is credited to: part of the attribution, like its events.
  AttributionAuthorization: null,
  SystemContext: null,
  TransitionDecision: null,
  // Why an attribution does not know, its earlier answers, and what of the logs was read.
  UnknownBecause: null,
  PastAttribution: null,
  AttributionCoverage: 'transition:read',
  ConfidenceCount: null,
  UnknownReasonCount: null,
  StreamCoverage: null,
  LogGap: null,
  // Conditions and health.
  // Notifications out: what did not reach its target.
  NotificationDelivery: 'notification:read',
  Condition: 'condition:read',
  ConditionEdge: 'condition:read',
  ConditionConnection: 'condition:read',
  ConditionChange: 'condition:read',
  ConditionCause: 'condition:read',
  // What a condition said before its cause was explained again: part of the condition.
  PastConditionAttribution: null,
  HealthChange: 'resource:read',
  HealthSummary: 'resource:read',
  HealthCount: null,
  ProblemCount: null,
  IncidentContext: 'incident:read',
  // Checks: managed by operators, read by those who act on health.
  Check: 'check:read',
  CheckResult: 'check:read',
  HttpCheckSpec: 'check:read',
  TcpCheckSpec: 'check:read',
  CreateCheckPayload: null,
  RemoveCheckPayload: null,
  // The inventory and its edges.
  Resource: 'resource:read',
  Cluster: 'resource:read',
  Host: 'resource:read',
  Vm: 'resource:read',
  Lxc: 'resource:read',
  Storage: 'resource:read',
  Network: 'resource:read',
  Service: 'resource:read',
  ResourceEdge: 'resource:read',
  ResourceConnection: 'resource:read',
  Declaration: null,
  // Only ever part of its Resource (attributeOwners): reading it needs what the resource needs.
  AttributeOwner: null,
  Relationship: 'resource:read',
  PathStep: null,
  Reached: 'resource:read',
  Traversal: 'resource:read',
  Identity: 'resource:read',
  IdentityLink: 'resource:read',
  Source: 'resource:read',
  IgnoredAttribute: null,
  UpdateAttributesPayload: null,
  DeclareResourcePayload: null,
  RemoveDeclaredResourcePayload: null,
  CreateRelationshipPayload: null,
  RemoveRelationshipPayload: null,
  SetLifecyclePayload: null,
  // Ingest results: what the caller's own push did.
  InventoryIngestResult: null,
  IngestStageCounts: null,
  IngestSkip: null,
  EventIngestResult: null,
  EventIngestSkip: null,
  // The gate.
  Policy: 'policy:read',
  RiskClassPolicy: 'policy:read',
  ApprovalRule: 'policy:read',
  NeverAutoAct: 'policy:read',
  LifecycleOverride: 'policy:read',
  LifecycleLoosening: 'policy:read',
  ActionDecision: 'policy:classify',
  DecisionReplay: 'policy:classify',
  MatchedRule: null,
  DecisionFacts: null,
  LastChange: null,
  PreflightResult: null,
  ClassifiedTarget: null,
  ApprovalRequest: 'approval:read',
  ApprovalRequestEdge: 'approval:read',
  ApprovalRequestConnection: 'approval:read',
  ApprovalChange: 'approval:read',
  GrantRedeem: 'approval:read',
  GrantRedeemEdge: 'approval:read',
  GrantRedeemConnection: 'approval:read',
  ApprovalDecisionPayload: 'approval:decide',
  Grant: 'approval:decide',
  RedeemGrantPayload: null,
  GrantRefusal: null,
  AutonomySwitch: null,
  ActionAuthorized: null,
  // Operators' own.
  AuditEntry: 'audit:read',
  AuditConnection: 'audit:read',
  ApiToken: 'token:read',
  CreateTokenPayload: 'token:manage',
  About: null,
  PageInfo: null,
};

/**
 * Fields answering with a type the caller may not read elsewhere, because the answer is what the
 * caller's own operation just did: an ingester's import reports the transitions it observed. Only
 * that field is covered; what lies beyond (the events behind an attribution) is checked as usual.
 */
export const FIELD_PERMISSIONS: Readonly<Record<string, Permission>> = {
  'InventoryIngestResult.transitions': 'inventory:ingest',
};

const ROOTS = new Set(['Query', 'Mutation', 'Subscription']);

/** Whether some role lacks `permission`: a permission every role holds needs no check. */
function restricts(permission: Permission): boolean {
  return ROLES.some((r) => !(PERMISSIONS[permission] as readonly string[]).includes(r));
}

/** The permission a field of `parent` needs to answer, or null when every caller may read it. */
export function fieldPermission(parent: string, field: GraphQLField<unknown, unknown>): Permission | null {
  const own = FIELD_PERMISSIONS[`${parent}.${field.name}`];
  const permission = own ?? READ_PERMISSIONS[getNamedType(field.type).name] ?? null;
  return permission && restricts(permission) ? permission : null;
}

/**
 * Every field below the root that answers with a type needing a permission checks it first:
 * FORBIDDEN naming the permission, at that field's path. The top-level operations check theirs
 * in the services (and audit their refusals); this covers every nested way to the same data.
 */
export function guardNestedReads(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (ROOTS.has(type.name) || !(isObjectType(type) || isInterfaceType(type))) continue;
    for (const field of Object.values(type.getFields())) {
      const permission = fieldPermission(type.name, field);
      if (!permission) continue;
      const resolve: GraphQLFieldResolver<unknown, RequestContext> = field.resolve ?? defaultFieldResolver;
      field.resolve = (source, args, ctx, info) => {
        assertCan(ctx.principal, permission);
        return resolve(source, args, ctx, info);
      };
    }
  }
  return schema;
}
