import { LIFECYCLES, type Lifecycle } from '../model/kinds.js';
import { BUILT_IN_FORBIDDEN_ACTIONS } from './forbidden.js';
import { ruleSummary } from './match-rule.js';
import { AUTONOMY_LEVELS, RISK_CLASSES, type AutonomyLevel, type RiskClass } from './risk.js';
import type { Policy } from './policy-document.js';
import type { LoadedPolicy } from './startup.js';

/** A policy as agents and operators read it: lists in a fixed order, names in camelCase. */
export interface PolicyView {
  digest: string;
  path: string;
  suppression: Policy['attribution']['suppression'];
  globalAutoAct: Policy['autonomy_settings']['global']['auto_act'];
  riskClasses: Array<{
    riskClass: RiskClass;
    approvalRequired: Policy['risk_classes'][RiskClass]['approval_required'];
    autonomyAllowed: boolean;
    description: string | null;
  }>;
  approvalRules: Array<{
    index: number;
    entityType: string;
    action: string;
    scopeEntity: string | null;
    riskClass: RiskClass;
    autonomyLevel: AutonomyLevel;
    note: string | null;
  }>;
  forbiddenActions: string[];
  neverAutoAct: Array<{ entity: string; reason: string }>;
  lifecycleOverrides: Array<{ lifecycle: Lifecycle; riskClass: RiskClass; autonomy: AutonomyLevel }>;
  /** Provisioning targets' risk classes loosened to a lower one (the only loosening a policy may make). */
  lifecycleLoosenings: Array<{ lifecycle: Lifecycle; riskClass: RiskClass; to: RiskClass }>;
}

/**
 * The loaded policy as a view. Orders are fixed (risk classes and lifecycles by their vocabulary,
 * never_auto_act by key), so two services with the same digest answer identically.
 */
export function viewPolicy({ policy, digest, path }: LoadedPolicy): PolicyView {
  const settings = policy.autonomy_settings;
  return {
    digest,
    path,
    suppression: policy.attribution.suppression,
    globalAutoAct: settings.global.auto_act,
    riskClasses: RISK_CLASSES.map((riskClass) => {
      const def = policy.risk_classes[riskClass];
      return {
        riskClass,
        approvalRequired: def.approval_required,
        autonomyAllowed: def.autonomy_allowed,
        description: def.description ?? null,
      };
    }),
    approvalRules: policy.approval_rules.map((rule, index) => ({
      ...ruleSummary(rule, index),
      note: rule.note ?? null,
    })),
    forbiddenActions: [...new Set([...BUILT_IN_FORBIDDEN_ACTIONS, ...policy.forbidden_actions])],
    neverAutoAct: Object.keys(settings.never_auto_act)
      .sort()
      .map((entity) => ({ entity, reason: settings.never_auto_act[entity]! })),
    lifecycleOverrides: LIFECYCLES.flatMap((lifecycle) => {
      const overrides = settings.lifecycle_override[lifecycle] ?? {};
      return RISK_CLASSES.flatMap((riskClass) => {
        const autonomy = overrides[riskClass];
        return autonomy === undefined || !(AUTONOMY_LEVELS as readonly string[]).includes(autonomy)
          ? []
          : [{ lifecycle, riskClass, autonomy: autonomy as AutonomyLevel }];
      });
    }),
    lifecycleLoosenings: LIFECYCLES.flatMap((lifecycle) => {
      const overrides = settings.lifecycle_override[lifecycle] ?? {};
      return RISK_CLASSES.flatMap((riskClass) => {
        const to = overrides[riskClass];
        return to === undefined || !(RISK_CLASSES as readonly string[]).includes(to)
          ? []
          : [{ lifecycle, riskClass, to: to as RiskClass }];
      });
    }),
  };
}
