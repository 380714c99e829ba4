import type { Resolvers } from '../src/generated/graphql.js';
import { incidentContext } from '../src/services/incident.js';

export const incidentResolvers: Resolvers = {
  Query: {
    incidentContext: async (_p, args, ctx) => {
      const found = await incidentContext(ctx.deps, ctx.principal, args);
      // Everything in it is read already: conditions' and transitions' resources come from here.
      for (const r of [
        found.resource,
        ...found.dependencies.map((d) => d.resource),
        ...found.dependents.map((d) => d.resource),
      ]) {
        ctx.loaders.resourceById.prime(r.id, r);
      }
      for (const t of found.transitions) ctx.loaders.transitionById.prime(t.id, t);
      return found;
    },
  },
};
