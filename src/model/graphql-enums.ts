import type { z } from 'zod';
import {
  ApprovalChangeKindSchema,
  ApprovalStatusSchema,
  AutonomyModeSchema,
  GrantRedeemOutcomeSchema,
  GrantRefusalCodeSchema,
} from './approvals.js';
import { AttributeOwnerKindSchema } from './attribute-owners.js';
import { CheckKindSchema, CheckResultStatusSchema } from './checks.js';
import { ConditionChangeKindSchema, ConditionStatusSchema, ConditionTypeSchema } from './conditions.js';
import { ActorKindSchema, AttributionConfidenceSchema, EventTypeSchema, StatusClassSchema } from './events.js';
import { HealthSchema, KindSchema, LifecycleSchema, ProviderSchema } from './kinds.js';
import { DirectionSchema, EdgeConfidenceSchema, ProvenanceSchema, RelationshipTypeSchema } from './relationships.js';
import { RoleSchema, SurfaceSchema } from './roles.js';

/**
 * The GraphQL enums that are exactly one vocabulary of this folder, by their SDL name: each enum's
 * values are the schema's options, in order, and its description is the schema's `.describe()` text.
 * `npm run codegen` writes them to schema/generated-vocabulary.graphql, together with each kind's
 * object type and `<Kind>State` enum (from KINDS, KIND_LABELS and STATES), so the SDL never repeats
 * them by hand.
 */
export const GRAPHQL_ENUMS = {
  Kind: KindSchema,
  Provider: ProviderSchema,
  Lifecycle: LifecycleSchema,
  Health: HealthSchema,
  RelationshipType: RelationshipTypeSchema,
  Provenance: ProvenanceSchema,
  EdgeConfidence: EdgeConfidenceSchema,
  Direction: DirectionSchema,
  ConditionType: ConditionTypeSchema,
  ConditionStatus: ConditionStatusSchema,
  ConditionChangeKind: ConditionChangeKindSchema,
  Role: RoleSchema,
  ApiSurface: SurfaceSchema,
  CheckKind: CheckKindSchema,
  CheckStatus: CheckResultStatusSchema,
  AttributionConfidence: AttributionConfidenceSchema,
  ActorKind: ActorKindSchema,
  EventStatusClass: StatusClassSchema,
  EventType: EventTypeSchema,
  ApprovalStatus: ApprovalStatusSchema,
  GrantRefusalCode: GrantRefusalCodeSchema,
  AutonomyMode: AutonomyModeSchema,
  ApprovalChangeKind: ApprovalChangeKindSchema,
  GrantRedeemOutcome: GrantRedeemOutcomeSchema,
  AttributeOwnerKind: AttributeOwnerKindSchema,
} as const satisfies Record<string, z.ZodEnum>;
