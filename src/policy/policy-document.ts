import { z } from 'zod';
import { parseSlug, ResourceIdSchema } from '../model/ids.js';
import { LIFECYCLES } from '../model/kinds.js';
import { ENTITY_TYPES, isA, isEntityType, KIND_ENTITY_TYPES } from './entity-types.js';
import { APPROVAL_REQUIREMENTS, AUTONOMY_LEVELS, isRiskier, RISK_CLASSES, type RiskClass } from './risk.js';

const RiskClassSchema = z.enum(RISK_CLASSES);
const AutonomySchema = z.enum(AUTONOMY_LEVELS);

/** Action names are kebab-case (`cache-clear`); callers' `cache_clear` is normalised to it. */
export const ActionNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/, 'must be kebab-case, e.g. cache-clear');

const EntityTypeSchema = z
  .string()
  .refine(isEntityType, { message: `unknown entity type (known: ${ENTITY_TYPES.join(', ')})` });

/** True for a `kind:name` slug of a known kind, or a provider-scoped resource id. */
function isEntityRef(value: string): boolean {
  return ResourceIdSchema.safeParse(value).success || parseSlug(value).ok;
}

const EntityRefSchema = z
  .string()
  .refine(isEntityRef, { message: 'must be a kind:name slug (service:dns) or a resource id (proxmox:lab/qemu/101)' });

const RiskClassDefSchema = z.strictObject({
  approval_required: z.enum(APPROVAL_REQUIREMENTS),
  autonomy_allowed: z.boolean(),
  description: z.string().optional(),
});

/** One approval rule: (entity type, action), optionally narrowed to a single entity. */
export const ApprovalRuleSchema = z.strictObject({
  entity_type: EntityTypeSchema,
  action: ActionNameSchema,
  scope_entity: EntityRefSchema.optional(),
  /** Narrows the rule to targets in this state: starting a stopped VM is not power-cycling a running one. */
  when: z.strictObject({ state: z.string().regex(/^[a-z_]+$/, 'must be a state name, e.g. stopped') }).optional(),
  risk_class: RiskClassSchema,
  autonomy_level: AutonomySchema,
  note: z.string().optional(),
});
export type ApprovalRule = z.infer<typeof ApprovalRuleSchema>;

// Per risk class: a cap on autonomy (tightens), or — under provisioning only — a lower risk class
// (the seed policy's "no dependents yet, config changes are cheap"), checked below.
const ClassOverridesSchema = z.partialRecord(RiskClassSchema, z.union([AutonomySchema, RiskClassSchema]));

/** The whole policy document (config/policy.yaml is the shipped instance). */
export const PolicySchema = z
  .strictObject({
    version: z.literal(1),
    risk_classes: z.strictObject({
      read_only: RiskClassDefSchema,
      reversible_low: RiskClassDefSchema,
      config_mutation: RiskClassDefSchema,
      destructive: RiskClassDefSchema,
    }),
    approval_rules: z.array(ApprovalRuleSchema).min(1),
    // Added to the built-in forbidden patterns; the built-ins cannot be removed by a policy.
    forbidden_actions: z.array(z.string().regex(/^[a-z0-9_*-]+$/, 'use letters, digits, _ - and * only')).default([]),
    autonomy_settings: z.strictObject({
      global: z
        .strictObject({ auto_act: z.enum(['off', 'reversible_low']).default('off') })
        .default({ auto_act: 'off' }),
      // entity slug, resource id or entity type → why it must never act on its own
      never_auto_act: z
        .record(
          z.string().refine((k) => isEntityRef(k) || isEntityType(k), {
            message: 'must be a slug, resource id or entity type',
          }),
          z.string(),
        )
        .default({}),
      lifecycle_override: z.partialRecord(z.enum(LIFECYCLES), ClassOverridesSchema).default({}),
    }),
    attribution: z
      .strictObject({
        suppression: z.enum(['off', 'shadow', 'on']).default('shadow'),
        // A remediation of a target a principal changed this recently escalates (0: never).
        respect_intent_seconds: z
          .number()
          .int()
          .min(0)
          .max(7 * 86_400)
          .default(3600),
        // A condition opened within this long after a change on the resource (or what it runs on)
        // is linked to that change as its cause.
        cause_window_seconds: z.number().int().min(1).max(86_400).default(900),
      })
      .default({ suppression: 'shadow', respect_intent_seconds: 3600, cause_window_seconds: 900 }),
    // action → seconds: a repeat of the same action on the same target inside it escalates.
    cooldowns: z
      .record(
        ActionNameSchema,
        z
          .number()
          .int()
          .min(1)
          .max(7 * 86_400),
      )
      .default({}),
    // Past max_auto_actions automatic actions estate-wide in window_seconds the breaker opens.
    breaker: z
      .strictObject({
        max_auto_actions: z.number().int().min(1).max(100_000),
        window_seconds: z.number().int().min(1).max(86_400),
      })
      .optional(),
    approvals: z
      .strictObject({
        // How long an operator's grant may be redeemed (once) after it was given.
        grant_ttl_seconds: z.number().int().min(1).max(86_400).default(900),
        // How long a request waits for an operator before it can no longer be approved.
        request_ttl_seconds: z
          .number()
          .int()
          .min(60)
          .max(30 * 86_400)
          .default(86_400),
      })
      .default({ grant_ttl_seconds: 900, request_ttl_seconds: 86_400 }),
  })
  .superRefine((policy, ctx) => {
    const destructive = policy.risk_classes.destructive;
    if (destructive.autonomy_allowed) {
      ctx.addIssue({
        code: 'custom',
        path: ['risk_classes', 'destructive', 'autonomy_allowed'],
        message: 'a destructive action is never autonomous; must be false',
      });
    }
    if (destructive.approval_required === 'none') {
      ctx.addIssue({
        code: 'custom',
        path: ['risk_classes', 'destructive', 'approval_required'],
        message: 'a destructive action always needs an operator',
      });
    }
    for (const [lifecycle, overrides] of Object.entries(policy.autonomy_settings.lifecycle_override)) {
      for (const [from, to] of Object.entries(overrides ?? {})) {
        if (!(RISK_CLASSES as readonly string[]).includes(to)) continue;
        const path = ['autonomy_settings', 'lifecycle_override', lifecycle, from];
        const fail = (message: string) => ctx.addIssue({ code: 'custom', path, message });
        if (lifecycle !== 'provisioning')
          fail(
            `a risk class (loosening) is allowed under provisioning only; use an autonomy level (auto, escalate, never)`,
          );
        else if (from === 'destructive') fail('a destructive action is never loosened');
        else if (!isRiskier(from as RiskClass, to as RiskClass))
          fail(`${to} is not lower than ${from}: an override loosens or caps, never raises the class`);
      }
    }
    const seen = new Map<string, number>();
    policy.approval_rules.forEach((rule, i) => {
      const key = `${rule.entity_type}|${rule.action}|${rule.scope_entity ?? ''}|${rule.when?.state ?? ''}`;
      const first = seen.get(key);
      if (first !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['approval_rules', i],
          message: `duplicates approval_rules.${first} (same entity_type, action, scope_entity and when)`,
        });
      } else seen.set(key, i);
      if (rule.risk_class === 'destructive' && rule.autonomy_level === 'auto') {
        ctx.addIssue({
          code: 'custom',
          path: ['approval_rules', i, 'autonomy_level'],
          message: 'a destructive rule cannot be auto; use escalate or never',
        });
      }
      const slug = rule.scope_entity === undefined ? null : parseSlug(rule.scope_entity);
      if (slug?.ok && isEntityType(rule.entity_type)) {
        const kindType = KIND_ENTITY_TYPES[slug.kind];
        if (!isA(rule.entity_type, kindType) && !isA(kindType, rule.entity_type)) {
          ctx.addIssue({
            code: 'custom',
            path: ['approval_rules', i, 'scope_entity'],
            message: `${rule.scope_entity} is a ${kindType}, which is never a ${rule.entity_type}`,
          });
        }
      }
    });
  });

/** A validated policy, defaults applied. */
export type Policy = z.infer<typeof PolicySchema>;
/** The suppression mode of the transition gate. */
export type SuppressionMode = Policy['attribution']['suppression'];
