import { observe } from '../src/pipeline/observe.js';
import { vcenterDocumentSource } from '../src/pipeline/sources.js';
import { assertCan } from '../src/server/permissions.js';
import { audited } from '../src/server/audited.js';
import type { Resolvers } from '../src/generated/graphql.js';

export const ingestResolvers: Resolvers = {
  Mutation: {
    ingestVcenterInventory: (_p, { server, document, complete }, ctx) =>
      audited(ctx, 'ingestVcenterInventory', [`vcenter:${server}`], async () => {
        assertCan(ctx.principal, 'inventory:ingest');
        const { report, correlation } = await observe(
          {
            driver: ctx.driver,
            suppression: ctx.services.policy?.policy.attribution.suppression ?? 'shadow',
            correlator:
              ctx.services.clockSkewSeconds === undefined ? {} : { clockSkewSeconds: ctx.services.clockSkewSeconds },
            publish: (t) => ctx.services.bus.publish(t),
          },
          vcenterDocumentSource(document, { server, complete: complete ?? false }),
        );
        return {
          scope: report.scope,
          complete: report.complete,
          fetched: report.fetched,
          resources: report.resources,
          edges: report.edges,
          skipped: report.skipped,
          errors: report.errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)),
          markedMissing: report.markedMissing,
          transitions: correlation.created as never,
        };
      }),
  },
};
