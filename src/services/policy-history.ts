import { swapPolicyRecord, type PolicyRecord } from '../graph/policy-record.js';
import { canonicalJson, type Policy, policyChanges } from '../policy/index.js';
import { nowOf, type ServiceDeps } from './deps.js';

/** The audit principal of what the service records on its own at start. */
export const SERVICE_PRINCIPAL = 'aitia';

/**
 * Records the policy the service starts with. When its digest differs from the one in force before
 * (the file changed between starts), an audit entry `policyChanged` names both digests and the
 * rules and sections that changed; grants approved under the old digest are refused from now on
 * (POLICY_CHANGED). Returns the previous record (null the first time).
 */
export async function recordPolicyInForce(deps: ServiceDeps): Promise<PolicyRecord | null> {
  if (!deps.policy) return null;
  const { policy, digest, path } = deps.policy;
  return swapPolicyRecord(
    deps.driver,
    { digest, policy: canonicalJson(policy), path, recordedAt: nowOf(deps) },
    (previous) => {
      let changed: string[];
      try {
        changed = policyChanges(JSON.parse(previous.policy) as Policy, policy);
      } catch {
        changed = ['(the previous policy could not be read)'];
      }
      return {
        principal: SERVICE_PRINCIPAL,
        role: 'operator',
        operation: 'policyChanged',
        targetIds: [],
        outcome: 'ok',
        detail: `policy digest ${previous.digest} (${previous.path}, in force since ${previous.recordedAt}) → ${digest} (${path}); changed: ${changed.join(', ') || 'nothing the diff names'}`,
      };
    },
  );
}
