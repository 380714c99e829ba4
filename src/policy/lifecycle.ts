import type { TargetFacts } from './target-facts.js';

/** Whether a new inbound edge may be created, and if not, why. */
export type EdgeCheck = { ok: true } | { ok: false; reason: string };

/**
 * Lifecycle refusal of new inbound dependency edges (createRelationship to the target): nothing
 * new may come to depend on a deprecated or destroyed resource. Existing edges are untouched.
 */
export function checkNewInboundEdge(target: Pick<TargetFacts, 'slug' | 'lifecycle'>): EdgeCheck {
  if (target.lifecycle === 'destroyed') {
    return { ok: false, reason: `${target.slug} is destroyed: nothing may depend on it` };
  }
  if (target.lifecycle === 'deprecated') {
    return {
      ok: false,
      reason: `${target.slug} is deprecated: new dependencies on it are refused (existing ones stay)`,
    };
  }
  return { ok: true };
}

/** Why every action on `target` is refused, or null: a destroyed resource refuses all actions. */
export function lifecycleRefusal(target: Pick<TargetFacts, 'slug' | 'lifecycle'>): string | null {
  return target.lifecycle === 'destroyed' ? `${target.slug} is destroyed: every action is refused` : null;
}
