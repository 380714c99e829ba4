/**
 * Action names no one may approve, whatever the policy says. A policy can add patterns
 * (`forbidden_actions`) but never remove these: they are the floor the gate stands on.
 * `*` matches any run of characters; names are compared lower-case with `-` read as `_`, so
 * `wipe-disks` and `Wipe_Disks` are both caught by `wipe*`.
 */
export const BUILT_IN_FORBIDDEN_ACTIONS = [
  'delete_all',
  'format_storage',
  'modify_host_config',
  'disable_firewall',
  'destroy_cluster',
  'wipe*',
  'rm_rf*',
] as const;

function normalise(name: string): string {
  return name.trim().toLowerCase().replace(/-/g, '_');
}

function globToRegExp(pattern: string): RegExp {
  const body = normalise(pattern)
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`);
}

/** The first forbidden pattern `action` matches (built-ins first, then the policy's), or null. */
export function matchForbiddenAction(action: string, extraPatterns: readonly string[] = []): string | null {
  const name = normalise(action);
  for (const pattern of [...BUILT_IN_FORBIDDEN_ACTIONS, ...extraPatterns]) {
    if (globToRegExp(pattern).test(name)) return pattern;
  }
  return null;
}

/** The canonical form of an action name for rule matching: trimmed, lower-case, kebab-case. */
export function canonicalAction(action: string): string {
  return action.trim().toLowerCase().replace(/_/g, '-');
}
