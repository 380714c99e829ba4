import type { z } from 'zod';
import type { ServiceDeps } from '../services/deps.js';
import type { Permission, Principal } from '../services/permissions.js';

/**
 * The MCP tools: each is one service operation (validation, permission, audit and the domain rule
 * are the service's), its input and output schemas, the one permission of the catalogue it needs,
 * and the GraphQL field that calls the same service function. `run` only parses → calls → maps, as
 * a resolver does. Adding a tool is defining it in the module of its area and listing it in TOOLS
 * (tools.ts).
 */
export interface ToolDefinition<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  /** snake_case, what the agent calls. */
  name: string;
  title: string;
  description: string;
  /** The one permission (src/services/permissions.ts) its service operation asserts. */
  permission: Permission;
  /** The GraphQL field that calls the same service function (`Query.resources`). */
  graphql: `Query.${string}` | `Mutation.${string}`;
  input: I;
  output: O;
  /** MCP behaviour hints, set truthfully: clients use them to decide what needs a person's approval. */
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: false };
  /**
   * Fields the service names in its errors → this tool's argument names, where they differ. A
   * leading `input.` is always dropped: the tools take their arguments flat.
   */
  fields?: Readonly<Record<string, string>>;
  /** The argument that narrows the answer, named when an answer is over the size limit. */
  narrow?: string;
  run(deps: ServiceDeps, principal: Principal, input: z.output<I>): Promise<z.input<O>>;
}

/** A tool whatever its schemas: what the registry holds. */
export type Tool = ToolDefinition<z.ZodObject, z.ZodObject>;

export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(tool: ToolDefinition<I, O>): Tool {
  return tool as unknown as Tool;
}

export const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
/** Adds a record each call (an approval, a decision, an authorization): never idempotent, never destructive. */
export const RECORD = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
} as const;
