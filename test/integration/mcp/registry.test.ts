import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { resolvers } from '../../../resolvers/index.js';
import { createRequestContext } from '../../../resolvers/context.js';
import { callTool, listTools, toolsFor } from '../../../src/mcp/server.js';
import { TOOLS } from '../../../src/mcp/tools.js';
import { AitiaError, ROLES, type Role } from '../../../src/model/index.js';
import { findPackageRoot } from '../../../src/package-root.js';
import { PERMISSIONS, type Principal } from '../../../src/services/permissions.js';
import { useGraph } from '../../support/graph.js';
import { serviceDeps } from '../../support/services.js';

// The real graph: a refusal is audited there (under a principal named for this file's scope).
const { driver, scope } = useGraph();
const graphDeps = () => serviceDeps(driver);

/*
 * Every service module is wrapped so each call of an exported function is recorded by name: a
 * GraphQL field and the MCP tool said to do the same thing must call the same service function.
 */
const { calls, recorded } = vi.hoisted(() => {
  const calls: string[] = [];
  const recorded = (area: string, mod: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(mod).map(([name, value]) => [
        name,
        typeof value === 'function' && /^[a-z]/.test(name)
          ? (...args: unknown[]) => {
              calls.push(`${area}.${name}`);
              return (value as (...a: unknown[]) => unknown)(...args);
            }
          : value,
      ]),
    );
  return { calls, recorded };
});
vi.mock('../../../src/services/resources.js', async (orig) => recorded('resources', await orig()));
vi.mock('../../../src/services/relationships.js', async (orig) => recorded('relationships', await orig()));
vi.mock('../../../src/services/transitions.js', async (orig) => recorded('transitions', await orig()));
vi.mock('../../../src/services/coverage.js', async (orig) => recorded('coverage', await orig()));
vi.mock('../../../src/services/health.js', async (orig) => recorded('health', await orig()));
vi.mock('../../../src/services/checks.js', async (orig) => recorded('checks', await orig()));
vi.mock('../../../src/services/gate.js', async (orig) => recorded('gate', await orig()));
vi.mock('../../../src/services/audit.js', async (orig) => recorded('audit', await orig()));
vi.mock('../../../src/services/declared.js', async (orig) => recorded('declared', await orig()));
vi.mock('../../../src/services/incident.js', async (orig) => recorded('incident', await orig()));
vi.mock('../../../src/services/approvals.js', async (orig) => recorded('approvals', await orig()));
vi.mock('../../../src/services/grants.js', async (orig) => recorded('grants', await orig()));
vi.mock('../../../src/services/replay.js', async (orig) => recorded('replay', await orig()));
vi.mock('../../../src/services/actions.js', async (orig) => recorded('actions', await orig()));
vi.mock('../../../src/services/search.js', async (orig) => recorded('search', await orig()));
vi.mock('../../../src/services/grant-history.js', async (orig) => recorded('grantHistory', await orig()));
vi.mock('../../../src/services/notifications.js', async (orig) => recorded('notifications', await orig()));

/** A caller holding no permission at all: every service refuses it naming the one permission it checks. */
const nobody = { name: `nobody-${scope}`, role: 'nobody' as Role } satisfies Principal;

/** Arguments valid for each tool and for its GraphQL field (the field's own argument names). */
const SAMPLES: Record<string, { mcp: Record<string, unknown>; graphql: Record<string, unknown> }> = {
  resource_get: { mcp: { id: 'vm:web01' }, graphql: { slug: 'vm:web01' } },
  resources_search: { mcp: {}, graphql: { first: 50 } },
  resources_find: { mcp: { query: 'web' }, graphql: { query: 'web', first: 20 } },
  relations: { mcp: { id: 'vm:web01' }, graphql: { id: 'vm:web01', direction: 'BOTH', includeStale: false } },
  dependents: { mcp: { id: 'vm:web01' }, graphql: { id: 'vm:web01', maxDepth: 3 } },
  dependencies: { mcp: { id: 'vm:web01' }, graphql: { id: 'vm:web01', maxDepth: 3 } },
  identity: { mcp: { id: 'vm:web01' }, graphql: { id: 'vm:web01' } },
  transitions: { mcp: {}, graphql: { first: 50 } },
  explain_transition: {
    mcp: { resourceId: 'vm:web01', from: 'running', to: 'stopped', at: '2026-05-14T02:08:31Z' },
    graphql: { resourceId: 'vm:web01', from: 'running', to: 'stopped', at: '2026-05-14T02:08:31Z' },
  },
  state_at: {
    mcp: { resourceId: 'vm:web01', at: '2026-05-14T02:08:31Z' },
    graphql: { resourceId: 'vm:web01', at: '2026-05-14T02:08:31Z' },
  },
  attribution_coverage: {
    mcp: { since: '2026-05-14T00:00:00Z', until: '2026-05-14T03:00:00Z' },
    graphql: { since: '2026-05-14T00:00:00Z', until: '2026-05-14T03:00:00Z' },
  },
  health_summary: { mcp: {}, graphql: {} },
  open_conditions: { mcp: {}, graphql: {} },
  review_unauthorized_action: {
    mcp: { resourceId: 'vm:web01', note: 'asked the agent' },
    graphql: { resourceId: 'vm:web01', note: 'asked the agent' },
  },
  list_checks: { mcp: { resourceId: 'vm:web01' }, graphql: { resourceId: 'vm:web01' } },
  create_relationship: {
    mcp: { source: 'service:shop', target: 'service:dns', type: 'DEPENDS_ON' },
    graphql: { input: { source: 'service:shop', target: 'service:dns', type: 'DEPENDS_ON' } },
  },
  update_entity_attributes: {
    mcp: { id: 'manual:service/shop', attributes: { owner: 'team-a' } },
    graphql: { id: 'manual:service/shop', attributes: { owner: 'team-a' } },
  },
  classify_action: {
    mcp: { target: 'vm:web01', action: 'restart' },
    graphql: { input: { target: 'vm:web01', action: 'restart' } },
  },
  audit_log: { mcp: {}, graphql: { first: 50 } },
  declare_resource: {
    mcp: { kind: 'service', name: 'postgres', runsOn: 'vm:db13', evidence: 'listening on :5432' },
    graphql: { input: { kind: 'service', name: 'postgres', runsOn: 'vm:db13', evidence: 'listening on :5432' } },
  },
  incident_context: { mcp: { resourceId: 'vm:web01' }, graphql: { resourceId: 'vm:web01', depth: 2, zone: 'UTC' } },
  request_approval: {
    mcp: { target: 'vm:web01', action: 'restart', reason: 'wedged' },
    graphql: { input: { target: 'vm:web01', action: 'restart', reason: 'wedged' } },
  },
  approvals: { mcp: {}, graphql: { first: 50 } },
  approve: { mcp: { id: 'apr-1' }, graphql: { id: 'apr-1' } },
  deny: { mcp: { id: 'apr-1', reason: 'no' }, graphql: { id: 'apr-1', reason: 'no' } },
  redeem_grant: {
    mcp: { token: 'aitia-grant-x', input: { target: 'vm:web01', action: 'restart' } },
    graphql: { token: 'aitia-grant-x', input: { target: 'vm:web01', action: 'restart' } },
  },
  grant_redeems: { mcp: {}, graphql: { first: 50 } },
  set_autonomy: { mcp: { mode: 'halt', reason: 'x' }, graphql: { mode: 'halt', reason: 'x' } },
  replay_decision: { mcp: { id: 'dec-1' }, graphql: { id: 'dec-1' } },
  report_action_taken: {
    mcp: { target: 'vm:web01', action: 'restart' },
    graphql: { input: { target: 'vm:web01', action: 'restart' } },
  },
  notification_deliveries: { mcp: {}, graphql: {} },
  replay_notification: { mcp: { id: 'ops:1' }, graphql: { id: 'ops:1' } },
};

type Resolver = (parent: unknown, args: unknown, ctx: unknown, info: unknown) => unknown;

/** Calls a GraphQL field's resolver as `nobody`: the refusal, and the service functions it called. */
async function viaGraphql(field: string, args: Record<string, unknown>) {
  const [type, name] = field.split('.') as [string, string];
  const resolve = (resolvers as unknown as Record<string, Record<string, Resolver>>)[type]![name]!;
  const deps = graphDeps();
  calls.length = 0;
  const refusal = await Promise.resolve()
    // An info with no selection: the fields that read it (dependents' view) see an empty query.
    .then(() => resolve(undefined, args, createRequestContext(deps, nobody), { fieldNodes: [], fragments: {} }))
    .then(
      () => null,
      (err: unknown) => err,
    );
  return { refusal, called: [...calls] };
}

/** Calls a tool as `nobody`: its error, and the service functions it called. */
async function viaMcp(tool: string, args: Record<string, unknown>) {
  const deps = graphDeps();
  calls.length = 0;
  const result = await callTool(deps, nobody, tool, args);
  return { result, called: [...calls] };
}

describe('the MCP tool registry', () => {
  it('has the tools the issue names, snake_case and unique, each with a sample here', () => {
    const names = TOOLS.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(n).toMatch(/^[a-z]+(_[a-z]+)*$/);
    expect(names.sort()).toEqual(Object.keys(SAMPLES).sort());
  });

  it.each(TOOLS.map((t) => [t.name, t] as const))(
    '%s ↔ one permission ↔ the GraphQL field calling the same service function',
    async (name, tool) => {
      expect(Object.keys(PERMISSIONS)).toContain(tool.permission);
      const sample = SAMPLES[name]!;
      const gql = await viaGraphql(tool.graphql, sample.graphql);
      const mcp = await viaMcp(name, sample.mcp);
      // Both refused by the service with FORBIDDEN naming the tool's permission …
      expect(gql.refusal).toBeInstanceOf(AitiaError);
      expect(gql.refusal).toMatchObject({ code: 'FORBIDDEN', details: { permission: tool.permission } });
      expect(mcp.result.isError).toBe(true);
      expect(mcp.result.structuredContent).toMatchObject({
        error: { code: 'FORBIDDEN', permission: tool.permission },
      });
      // … by the same service function, reached the same way.
      expect(gql.called.length).toBeGreaterThan(0);
      expect(mcp.called).toEqual(gql.called);
    },
  );

  it('lists to each role exactly the tools whose permission the catalogue gives it', () => {
    for (const role of ROLES) {
      const principal = { name: `unit-${role}`, role };
      const expected = TOOLS.filter((t) => (PERMISSIONS[t.permission] as readonly Role[]).includes(role));
      expect(listTools(principal).map((t) => t.name)).toEqual(expected.map((t) => t.name));
      expect(toolsFor(principal)).toEqual(expected);
    }
    const names = (role: Role) => listTools({ name: 'x', role }).map((t) => t.name);
    expect(names('operator')).toContain('audit_log');
    expect(names('agent')).not.toContain('audit_log');
    expect(names('agent')).toContain('classify_action');
    expect(listTools(nobody)).toEqual([]);
  });
});

describe('docs/mcp.md', () => {
  it('lists every tool with its permission, the roles that hold it and its GraphQL field', () => {
    const section = readFileSync(join(findPackageRoot(), 'docs', 'mcp.md'), 'utf8');
    const rows = [...section.matchAll(/^\| `([a-z_]+)` \| [^|]+ \| `([a-z:-]+)` \| ([a-z, ]+) \| `(\w+)` \|$/gm)].map(
      (m) => ({ name: m[1], permission: m[2], roles: m[3]!.split(', '), graphql: m[4] }),
    );
    expect(rows).toEqual(
      TOOLS.map((t) => ({
        name: t.name,
        permission: t.permission,
        roles: [...PERMISSIONS[t.permission]],
        graphql: t.graphql.split('.')[1],
      })),
    );
  });
});
