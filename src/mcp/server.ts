import {
  type CallToolResult,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type Tool as ListedTool,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { AitiaError, badInput } from '../model/index.js';
import type { ServiceDeps } from '../services/deps.js';
import { withNeo4jDeadline } from '../services/deadline.js';
import { can, type Principal } from '../services/permissions.js';
import { PAGE } from './inputs.js';
import { type Tool, TOOLS } from './tools.js';
import { answerText } from './text-content.js';

/** No tool answer is larger than this much JSON; a larger one is refused with how to narrow it. */
export const MAX_ANSWER_BYTES = 256 * 1024;

const BY_NAME = new Map(TOOLS.map((t) => [t.name, t]));

/** What agents are told when they connect. */
const INSTRUCTIONS = [
  'aitia is an infrastructure knowledge graph that says who or what changed a resource, and how sure it is.',
  'Name resources by id (proxmox:homelab/qemu/101) or kind:name slug (vm:web01).',
  'Before acting on a resource, ask classify_action; record dependencies you discover with create_relationship.',
  `List tools answer ${PAGE.default} items by default (first ≤ ${PAGE.max}) and give a nextCursor to pass as after.`,
].join(' ');

/** `format: date-time` says it; zod's long regex beside it would only cost every agent context. */
const jsonSchemaOptions = {
  override: (ctx: { jsonSchema: Record<string, unknown> }) => {
    if (ctx.jsonSchema.format === 'date-time') delete ctx.jsonSchema.pattern;
  },
};

/** Each tool's MCP definition, its JSON Schemas generated once from its zod schemas. */
const LISTED = new Map<string, ListedTool>(
  TOOLS.map((t) => [
    t.name,
    {
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: z.toJSONSchema(t.input, { io: 'input', ...jsonSchemaOptions }) as ListedTool['inputSchema'],
      outputSchema: z.toJSONSchema(t.output, { io: 'output', ...jsonSchemaOptions }) as ListedTool['outputSchema'],
      annotations: { title: t.title, ...t.annotations },
    },
  ]),
);

/** The tools a principal's role may call, in registry order. */
export function toolsFor(principal: Principal): Tool[] {
  return TOOLS.filter((t) => can(principal, t.permission));
}

/** `tools/list`: only what the principal may call (a call is still checked by its service). */
export function listTools(principal: Principal): ListedTool[] {
  return toolsFor(principal).map((t) => LISTED.get(t.name)!);
}

/** The field as the tool's caller names it: `input.` dropped, the tool's own renames applied. */
function toolField(tool: Tool, field: string): string {
  return tool.fields?.[field] ?? field.replace(/^input\./, '');
}

/** A tool error result: `CODE: message` as text, and the error as structured content. */
function errorResult(error: { code: string; message: string; [key: string]: unknown }): CallToolResult {
  return {
    content: [{ type: 'text', text: `${error.code}: ${error.message}` }],
    structuredContent: { error },
    isError: true,
  };
}

/** An expected failure as a tool error: GraphQL's `extensions.code`, and a message naming the field. */
function toolError(tool: Tool, err: AitiaError): CallToolResult {
  const field = err.field ? toolField(tool, err.field) : undefined;
  const message =
    err.field && field !== err.field && err.message.startsWith(`${err.field}: `)
      ? `${field}: ${err.message.slice(err.field.length + 2)}`
      : err.message;
  return errorResult({ code: err.code, message, ...(field ? { field } : {}), ...(err.details ?? {}) });
}

/** The first zod issue as BAD_USER_INPUT naming the argument (an unknown key names that key). */
function inputError(issues: readonly z.core.$ZodIssue[]): AitiaError {
  const issue = issues[0]!;
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    return badInput([...path, issue.keys[0]!].join('.'), 'unknown argument; see the tool’s input schema');
  }
  return badInput(path.join('.') || '(arguments)', issue.message);
}

/**
 * `tools/call`: parse the arguments with the tool's schema, run its one service operation (which
 * checks the permission again, and audits), parse the answer with the output schema and bound its
 * size. Expected failures are tool errors with their code; anything else is logged and masked.
 */
export async function callTool(
  deps: ServiceDeps,
  principal: Principal,
  name: string,
  args: Record<string, unknown> | undefined,
): Promise<CallToolResult> {
  const tool = BY_NAME.get(name);
  if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
  const parsed = tool.input.safeParse(args ?? {});
  if (!parsed.success) return toolError(tool, inputError(parsed.error.issues));
  try {
    const answer = tool.output.parse(await withNeo4jDeadline(deps, () => tool.run(deps, principal, parsed.data)));
    const text = answerText(answer);
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > MAX_ANSWER_BYTES) return toolError(tool, tooLarge(tool, bytes));
    return { content: [{ type: 'text', text }], structuredContent: answer };
  } catch (err) {
    if (err instanceof AitiaError) return toolError(tool, err);
    deps.log.error({ err, tool: tool.name, principal: principal.name }, 'unexpected error in an MCP tool');
    return errorResult({ code: 'INTERNAL_SERVER_ERROR', message: 'Unexpected error.' });
  }
}

function tooLarge(tool: Tool, bytes: number): AitiaError {
  const size = `the answer is ${Math.ceil(bytes / 1024)} KiB of JSON, over the ${MAX_ANSWER_BYTES / 1024} KiB limit`;
  return tool.narrow
    ? badInput(tool.narrow, `${size}: ask for fewer (a smaller ${tool.narrow}) or narrow the other arguments`)
    : badInput('(arguments)', `${size}: narrow the arguments`);
}

/**
 * A fresh MCP server for one principal (one HTTP request, or one stdio session): its tools are
 * the registry's, listed as the principal's role allows, and every call is made as this principal
 * through the `mcp` surface. Nothing in it outlives the request or session.
 */
export function createMcpServer(deps: ServiceDeps, principal: Principal): Server {
  const caller: Principal = { ...principal, via: 'mcp' };
  const server = new Server(
    { name: 'aitia', version: deps.version },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler('tools/list', () => ({ tools: listTools(caller) }));
  server.setRequestHandler('tools/call', async (request) => {
    const result = await callTool(deps, caller, request.params.name, request.params.arguments);
    return server.projectCallToolResult(
      result,
      result.isError ? undefined : LISTED.get(request.params.name)?.outputSchema,
    ) as CallToolResult;
  });
  return server;
}
