import { mergeResolvers } from '@graphql-tools/merge';
import type { Resolvers } from '../src/generated/graphql.js';
import { aboutResolvers } from './about.js';
import { approvalResolvers } from './approvals.js';
import type { RequestContext } from './context.js';
import { attributionResolvers } from './attribution.js';
import { incidentResolvers } from './incident.js';
import { ingestResolvers } from './ingest.js';
import { auditResolvers } from './audit.js';
import { checkResolvers } from './checks.js';
import { conditionResolvers } from './conditions.js';
import { healthResolvers } from './health.js';
import { lifecycleResolvers } from './lifecycle.js';
import { notificationResolvers } from './notifications.js';
import { policyResolvers } from './policy.js';
import { relationshipResolvers } from './relationships.js';
import { resourceResolvers } from './resources.js';
import { DateTimeScalar, JSONScalar } from './scalars.js';
import { sourceResolvers } from './sources.js';
import { tokenResolvers } from './tokens.js';

/** Every area's resolvers, one file per schema file. */
export const resolvers: Resolvers = mergeResolvers<unknown, RequestContext>([
  { DateTime: DateTimeScalar, JSON: JSONScalar },
  aboutResolvers,
  resourceResolvers,
  relationshipResolvers,
  conditionResolvers,
  healthResolvers,
  auditResolvers,
  attributionResolvers,
  ingestResolvers,
  checkResolvers,
  policyResolvers,
  lifecycleResolvers,
  tokenResolvers,
  incidentResolvers,
  sourceResolvers,
  approvalResolvers,
  notificationResolvers,
]);
