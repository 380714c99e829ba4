import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { resolvers } from '../../resolvers/index.js';
import { guardNestedReads } from '../../resolvers/read-permissions.js';
import { findPackageRoot } from '../package-root.js';

/** The SDL of every area, in file-name order (schema/*.graphql). */
export function loadTypeDefs(): string[] {
  const dir = join(findPackageRoot(), 'schema');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.graphql'))
    .sort()
    .map((f) => readFileSync(join(dir, f), 'utf8'));
}

/** Schema-first: the SDL files plus the resolvers, one file per area; nested reads check their permission. */
export function buildSchema(): GraphQLSchema {
  return guardNestedReads(
    makeExecutableSchema({
      typeDefs: loadTypeDefs(),
      resolvers,
      inheritResolversFromInterfaces: true,
    }),
  );
}
