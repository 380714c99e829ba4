import { z } from 'zod';
import { AttributesSchema } from './attributes.js';
import { ResourceIdSchema, providerOfId } from './ids.js';
import type { AttributeWriter } from './attribute-owners.js';
import type { Attributes } from './attributes.js';
import type { Declaration } from './declared.js';
import {
  KindSchema,
  LifecycleSchema,
  ProviderSchema,
  type Health,
  type Kind,
  type Lifecycle,
  type Provider,
} from './kinds.js';
import { isStateOf, STATES } from './states.js';

/** A resource as ingest and repositories write it. `state` must be in the kind's closed enum. */
export const ResourceInputSchema = z
  .object({
    id: ResourceIdSchema,
    kind: KindSchema,
    provider: ProviderSchema,
    name: z.string().min(1).max(256),
    state: z.string(),
    rawState: z.string().max(512).nullable().optional(),
    lifecycle: LifecycleSchema.optional(),
    attributes: AttributesSchema.optional(),
  })
  .superRefine((r, ctx) => {
    if (!isStateOf(r.kind, r.state)) {
      ctx.addIssue({
        code: 'custom',
        path: ['state'],
        message: `"${r.state}" is not a ${r.kind} state (allowed: ${STATES[r.kind].join(', ')})`,
      });
    }
    if (providerOfId(r.id) !== r.provider) {
      ctx.addIssue({
        code: 'custom',
        path: ['provider'],
        message: `id ${r.id} does not belong to provider ${r.provider}`,
      });
    }
  });
export type ResourceInput = z.infer<typeof ResourceInputSchema>;

/** A Resource as the graph returns it. */
export interface ResourceRecord {
  id: string;
  kind: Kind;
  provider: Provider;
  name: string;
  slug: string;
  state: string;
  rawState: string | null;
  lifecycle: Lifecycle;
  attributes: Attributes;
  health: Health;
  lastCheckAt: string | null;
  firstSeen: string | null;
  lastSeen: string | null;
  missingSince: string | null;
  /** Attribute keys the provider reported; agents cannot overwrite them. */
  providerAttributeKeys: string[];
  /** Set on a `manual:` resource a principal declared: who, the evidence, when. */
  declaration?: Declaration | null;
  /** Who wrote the `entity_type` attribute (`operator:<name>`, `provider:<provider>`), if recorded. */
  entityTypeBy?: string | null;
  /** Who last wrote each attribute a principal or a declaration wrote (`attrBy.<key>`), by key. */
  attributeWriters?: Record<string, AttributeWriter>;
}
