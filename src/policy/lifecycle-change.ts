import type { Lifecycle } from '../model/kinds.js';

/** Longest reason an operator may give for a lifecycle change. */
export const LIFECYCLE_REASON_MAX = 1000;

/** A lifecycle change that may be written, or the field and reason it is refused for. */
export type LifecycleChangePlan =
  | { ok: true; lifecycle: Lifecycle; reason: string; changed: boolean }
  | { ok: false; field: 'lifecycle' | 'reason'; reason: string };

/**
 * Checks an operator's lifecycle change. `missing` is an observation ingest makes after a complete
 * sync no longer sees the resource, so nobody sets it by hand; and a missing resource is not made
 * active or provisioning by hand either, because only its provider seeing it again can say so
 * (the next complete sync would mark it missing again). Deprecated and destroyed may always be set.
 */
export function planLifecycleChange(input: {
  id: string;
  current: Lifecycle;
  wanted: Lifecycle;
  reason: string;
}): LifecycleChangePlan {
  const reason = input.reason.trim();
  if (input.wanted === 'missing') {
    return {
      ok: false,
      field: 'lifecycle',
      reason: 'missing is set by ingest when a complete sync no longer sees a resource; it cannot be set by hand',
    };
  }
  if (input.current === 'missing' && (input.wanted === 'active' || input.wanted === 'provisioning')) {
    return {
      ok: false,
      field: 'lifecycle',
      reason: `${input.id} is missing: its provider no longer reports it, and it becomes active again when the provider sees it; set deprecated or destroyed instead`,
    };
  }
  if (reason === '')
    return {
      ok: false,
      field: 'reason',
      reason: 'say why the lifecycle changes (it is kept on the resource for auditors)',
    };
  if (reason.length > LIFECYCLE_REASON_MAX)
    return { ok: false, field: 'reason', reason: `at most ${LIFECYCLE_REASON_MAX} characters, got ${reason.length}` };
  return { ok: true, lifecycle: input.wanted, reason, changed: input.current !== input.wanted };
}
