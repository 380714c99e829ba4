import { AitiaError, type Role, type Surface } from '../model/index.js';

/**
 * The one catalogue of `area:verb` permissions and the roles that hold them. Field ownership is
 * enforced here, not in prompts: only the scheduler writes health, only ingesters write observed
 * inventory and events, agents declare relationships and descriptive attributes, operators own
 * policy and removals.
 */
export const PERMISSIONS = {
  'resource:read': ['agent', 'scheduler', 'ingester', 'operator'],
  'attribute:update': ['agent', 'operator'],
  'relationship:declare': ['agent', 'operator'],
  'relationship:remove': ['operator'],
  'resource:declare': ['agent', 'operator'],
  'resource:remove-declared': ['operator'],
  'inventory:ingest': ['ingester'],
  'event:ingest': ['ingester'],
  'alert:receive': ['ingester'],
  'health:write': ['scheduler'],
  'check:read': ['agent', 'scheduler', 'operator'],
  'check:manage': ['operator'],
  'condition:read': ['agent', 'scheduler', 'ingester', 'operator'],
  'transition:read': ['agent', 'scheduler', 'operator'],
  'incident:read': ['agent', 'operator'],
  'policy:read': ['agent', 'operator'],
  'policy:classify': ['agent', 'operator'],
  'audit:read': ['operator'],
  'resource:list-missing': ['operator'],
  'resource:lifecycle': ['operator'],
  'token:read': ['operator'],
  'token:manage': ['operator'],
  'approval:request': ['agent', 'operator'],
  'approval:read': ['agent', 'operator'],
  'approval:decide': ['operator'],
  'grant:redeem': ['agent', 'ingester'],
  'autonomy:set': ['operator'],
  'action:report': ['agent', 'ingester'],
  'notification:read': ['operator'],
  'notification:replay': ['operator'],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;

/** A caller resolved from its bearer token, and the surface its call came through. */
export interface Principal {
  name: string;
  role: Role;
  /** Set by the surface (GraphQL, MCP) that resolved the token; unset for in-process callers. */
  via?: Surface;
}

export function can(principal: Principal, permission: Permission): boolean {
  return (PERMISSIONS[permission] as readonly Role[]).includes(principal.role);
}

/** Throws FORBIDDEN naming the permission and the roles that hold it. */
export function assertCan(principal: Principal, permission: Permission): void {
  if (!can(principal, permission)) {
    throw new AitiaError(
      'FORBIDDEN',
      `${principal.name} (role ${principal.role}) lacks permission ${permission}; it is held by: ${PERMISSIONS[permission].join(', ')}`,
      { details: { permission } },
    );
  }
}
