import { z } from 'zod';

/** Who a bearer token speaks for. Field ownership follows the role, never the prompt. */
export const ROLES = ['agent', 'scheduler', 'ingester', 'operator'] as const;
export const RoleSchema = z.enum(ROLES);
export type Role = z.infer<typeof RoleSchema>;
