import { DateTime } from 'luxon';
import { AitiaError, badInput, checkTarget, notFound, parseCreateCheckInput } from '../src/model/index.js';
import { checksOfResources, createCheck, getCheck, removeCheck } from '../src/graph/checks.js';
import { audited } from '../src/server/audited.js';
import { assertCan } from '../src/server/permissions.js';
import type { Resolvers } from '../src/generated/graphql.js';
import { resolveRef } from './relationships.js';

/** In mutation input an unknown resource is bad input named by its field. */
async function inputResource(driver: Parameters<typeof resolveRef>[0], ref: string) {
  try {
    return await resolveRef(driver, ref, 'input.resourceId');
  } catch (err) {
    if (err instanceof AitiaError && err.code === 'NOT_FOUND') throw badInput('input.resourceId', `no resource ${ref}`);
    throw err;
  }
}

export const checkResolvers: Resolvers = {
  Check: {
    resource: (c, _a, ctx) => ctx.loaders.resourceById.load(c.resourceId),
    http: (c) => (c.kind === 'http' ? (c.spec as never) : null),
    tcp: (c) => (c.kind === 'tcp' ? (c.spec as never) : null),
    target: (c) => checkTarget(c),
    failing: (c) => c.failing.active,
    unreachable: (c) => c.unreachable.active,
    latest: (c) => c.results[0] ?? null,
    results: (c, { last }) => {
      if (last != null && (!Number.isInteger(last) || last < 1)) throw badInput('last', 'must be a positive integer');
      return last != null ? c.results.slice(0, last) : c.results;
    },
  },
  Query: {
    checks: async (_p, { resourceId }, ctx) => {
      assertCan(ctx.principal, 'check:read');
      const resource = await resolveRef(ctx.driver, resourceId, 'resourceId');
      return (await checksOfResources(ctx.driver, [resource.id])).get(resource.id) ?? [];
    },
  },
  Mutation: {
    createCheck: (_p, { input }, ctx) =>
      audited(ctx, 'createCheck', [input.resourceId], async () => {
        assertCan(ctx.principal, 'check:manage');
        const parsed = parseCreateCheckInput(input);
        if (!parsed.ok) throw badInput(parsed.field, parsed.reason);
        const resource = await inputResource(ctx.driver, input.resourceId);
        if (parsed.definition.kind === 'proxmox_agent' && (resource.provider !== 'proxmox' || resource.kind !== 'vm')) {
          throw badInput(
            'input.kind',
            `proxmox_agent checks the QEMU guest agent of a Proxmox VM; ${resource.id} is a ${resource.provider} ${resource.kind}`,
          );
        }
        return createCheck(ctx.driver, {
          resourceId: resource.id,
          definition: parsed.definition,
          intervalSeconds: parsed.intervalSeconds,
          critical: parsed.critical,
          createdBy: ctx.principal.name,
          at: DateTime.utc().toISO(),
        });
      }),
    removeCheck: (_p, { id }, ctx) =>
      audited(ctx, 'removeCheck', [id], async () => {
        assertCan(ctx.principal, 'check:manage');
        if (!(await getCheck(ctx.driver, id))) throw notFound('id', `check ${id}`);
        const removed = await removeCheck(ctx.driver, id);
        if (!removed) throw notFound('id', `check ${id}`);
        return {
          id,
          resourceId: removed.resourceId,
          message:
            'Check removed. The resource’s health and its check conditions follow at the scheduler’s next tick (health returns to unknown when no check remains).',
        };
      }),
  },
};
