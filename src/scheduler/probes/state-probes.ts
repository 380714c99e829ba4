import {
  ATTRIBUTE_PREFIX,
  GUEST_AGENT_VERDICTS,
  PROVIDER_STATE_VERDICTS,
  isStateOf,
  type Kind,
  type StateVerdict,
} from '../../model/index.js';
import type { ProbeOutcome } from './outcome.js';

/** What the state checks read from the resource node (as the graph stores it). */
export interface ResourceFacts {
  kind: Kind;
  state: string | null;
  rawState: string | null;
  lifecycle: string | null;
  /** Node properties, so `attr.qemu_guest_agent` is readable. */
  properties: Record<string, unknown>;
}

const outcome = (v: StateVerdict, reason: string | null): ProbeOutcome => ({
  status: v.status,
  reason: v.status === 'pass' ? null : reason,
  unreachable: v.unreachable,
});

/** A resource the provider no longer reports has a stale state: nothing can be concluded from it. */
function stale(facts: ResourceFacts): ProbeOutcome | null {
  if (facts.lifecycle === 'missing' || facts.lifecycle === 'destroyed') {
    return {
      status: 'unknown',
      reason: `resource is ${facts.lifecycle}: its recorded state is stale`,
      unreachable: false,
    };
  }
  return null;
}

/** provider_state: the resource's own state through PROVIDER_STATE_VERDICTS. Pure. */
export function probeProviderState(facts: ResourceFacts): ProbeOutcome {
  const s = stale(facts);
  if (s) return s;
  const state = facts.state ?? 'unknown';
  if (!isStateOf(facts.kind, state))
    return { status: 'unknown', reason: `state "${state}" is not a ${facts.kind} state`, unreachable: false };
  const verdict = (PROVIDER_STATE_VERDICTS[facts.kind] as Record<string, StateVerdict>)[state]!;
  const raw = facts.rawState && facts.rawState !== state ? ` (provider says "${facts.rawState}")` : '';
  return outcome(verdict, `${facts.kind} is ${state}${raw}`);
}

/** proxmox_agent: the `qemu_guest_agent` attribute through GUEST_AGENT_VERDICTS. Pure. */
export function probeGuestAgent(facts: ResourceFacts): ProbeOutcome {
  const s = stale(facts);
  if (s) return s;
  // Only the provider's value: one an agent wrote (before such writes were refused) proves nothing.
  const observed = facts.properties.providerAttrKeys;
  const value =
    Array.isArray(observed) && observed.includes('qemu_guest_agent')
      ? facts.properties[`${ATTRIBUTE_PREFIX}qemu_guest_agent`]
      : undefined;
  if (typeof value !== 'string' || !(value in GUEST_AGENT_VERDICTS)) {
    return { status: 'unknown', reason: 'qemu_guest_agent not reported by the Proxmox ingest yet', unreachable: false };
  }
  const verdict = GUEST_AGENT_VERDICTS[value as keyof typeof GUEST_AGENT_VERDICTS];
  const reason =
    value === 'not_configured' ? 'no QEMU guest agent configured on this VM' : 'QEMU guest agent is not running';
  return outcome(verdict, reason);
}
