import { ConfigError } from '../model/index.js';
import { DEFAULT_POLICY_PATH, loadPolicyFile, type PolicyError } from './load.js';
import type { Policy } from './policy-document.js';

/** The policy the service runs with: what it says, its digest, and the file it came from. */
export interface LoadedPolicy {
  policy: Policy;
  digest: string;
  path: string;
}

/**
 * A policy file that cannot be used: the service must not start on it. A ConfigError, so the CLI
 * prints the message as it is (no stack), naming the file and every error in it.
 */
export class PolicyLoadError extends ConfigError {
  override name = 'PolicyLoadError';
  constructor(
    readonly path: string,
    readonly errors: readonly PolicyError[],
  ) {
    super(formatPolicyErrors(path, errors));
  }
}

/** "policy <path> is invalid: …", one error per line as `<path in the file>: <reason>`. */
export function formatPolicyErrors(path: string, errors: readonly PolicyError[]): string {
  const lines = errors.map((e) => `  ${e.path}: ${e.reason}`);
  return `AITIA_POLICY_FILE: policy ${path} is invalid (${errors.length} error${errors.length === 1 ? '' : 's'}); the service does not start on it:\n${lines.join('\n')}`;
}

/**
 * Loads the policy the service starts with: `path` (AITIA_POLICY_FILE, already resolved) or the
 * shipped config/policy.yaml. Throws PolicyLoadError when it is unreadable or invalid.
 */
export async function loadStartupPolicy(path: string | undefined): Promise<LoadedPolicy> {
  const file = path ?? DEFAULT_POLICY_PATH;
  const result = await loadPolicyFile(file);
  if (!result.ok) throw new PolicyLoadError(file, result.errors);
  return { policy: result.policy, digest: result.digest, path: file };
}
