import { badInput } from '../src/model/index.js';
import type { Resolvers } from '../src/generated/graphql.js';
import { setResourceLifecycle } from '../src/graph/resources.js';
import { planLifecycleChange } from '../src/policy/index.js';
import { audited } from '../src/server/audited.js';
import { resolveInputResource } from '../src/server/gate-target.js';
import { assertCan } from '../src/server/permissions.js';

export const lifecycleResolvers: Resolvers = {
  Mutation: {
    setLifecycle: (_p, args, ctx) =>
      audited(ctx, 'setLifecycle', [args.id], async () => {
        assertCan(ctx.principal, 'resource:lifecycle');
        const isId = /^(proxmox|vcenter|manual):/.test(args.id);
        const current = await resolveInputResource(
          ctx.driver,
          isId ? { id: args.id } : { slug: args.id },
          args.id,
          'id',
        );
        const plan = planLifecycleChange({
          id: current.id,
          current: current.lifecycle,
          wanted: args.lifecycle,
          reason: args.reason,
        });
        if (!plan.ok) throw badInput(plan.field, plan.reason);
        if (!plan.changed) return { resource: current, previous: current.lifecycle, changed: false };
        const written = await setResourceLifecycle(ctx.driver, current.id, {
          lifecycle: plan.lifecycle,
          reason: plan.reason,
          by: ctx.principal.name,
        });
        // Gone between the read and the write: the same answer an unknown id gets.
        if (!written) throw badInput('id', `no resource ${args.id}`);
        ctx.loaders.resourceById.prime(written.resource.id, written.resource);
        return { resource: written.resource, previous: written.previous, changed: written.previous !== plan.lifecycle };
      }),
  },
};
