import { z } from 'zod';

/** Who a bearer token speaks for. Field ownership follows the role, never the prompt. */
export const ROLES = ['agent', 'scheduler', 'ingester', 'operator'] as const;
export const RoleSchema = z.enum(ROLES);
export type Role = z.infer<typeof RoleSchema>;

/** The API surfaces a principal calls through (GraphQL, the Model Context Protocol); audit entries record which. */
export const SURFACES = ['graphql', 'mcp'] as const;
export const SurfaceSchema = z.enum(SURFACES).describe('The API surface a call came through.');
export type Surface = z.infer<typeof SurfaceSchema>;
