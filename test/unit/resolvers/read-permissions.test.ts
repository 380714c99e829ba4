import { getNamedType, type GraphQLObjectType, isInterfaceType, isObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { FIELD_PERMISSIONS, fieldPermission, READ_PERMISSIONS } from '../../../resolvers/read-permissions.js';
import { TOOLS } from '../../../src/mcp/tools.js';
import { ROLES, type Role } from '../../../src/model/index.js';
import { buildSchema } from '../../../src/server/graphql-schema.js';
import { PERMISSIONS, type Permission } from '../../../src/services/permissions.js';

const schema = buildSchema();
const ROOTS = ['Query', 'Mutation', 'Subscription'];
const types = Object.values(schema.getTypeMap()).filter(
  (t) => !t.name.startsWith('__') && !ROOTS.includes(t.name) && (isObjectType(t) || isInterfaceType(t)),
);
const holders = (p: Permission | null): Role[] =>
  p === null ? [...ROLES] : ROLES.filter((r) => (PERMISSIONS[p] as readonly Role[]).includes(r));
const field = (type: string, name: string) => (schema.getType(type) as GraphQLObjectType).getFields()[name]!;

describe('READ_PERMISSIONS: what reading each GraphQL type needs', () => {
  it('classifies every object and interface type of the schema, and names no other', () => {
    expect(types.map((t) => t.name).sort()).toEqual(Object.keys(READ_PERMISSIONS).sort());
  });

  it('FIELD_PERMISSIONS names fields that exist', () => {
    for (const key of Object.keys(FIELD_PERMISSIONS)) {
      const [type, name] = key.split('.');
      expect(field(type!, name!), key).toBeDefined();
    }
  });

  // The MCP tools name the permission of each top-level read (the same service function as GraphQL).
  const reads = TOOLS.filter((t) => t.graphql.startsWith('Query.'));
  it.each(reads.map((t) => ({ tool: t.name, graphql: t.graphql, permission: t.permission })))(
    '$graphql: its type is read by exactly the roles holding $permission',
    ({ graphql, permission }) => {
      const type = getNamedType(field('Query', graphql.slice('Query.'.length)).type).name;
      const needed = READ_PERMISSIONS[type] ?? null;
      if (needed !== null) expect(holders(needed)).toEqual(holders(permission));
    },
  );

  it('the nested ways to a transition or an event need transition:read; every role reads the rest of a cause', () => {
    expect(fieldPermission('ConditionCause', field('ConditionCause', 'transition'))).toBe('transition:read');
    expect(fieldPermission('AttributionEvent', field('AttributionEvent', 'event'))).toBe('transition:read');
    expect(fieldPermission('StateAt', field('StateAt', 'transition'))).toBe('transition:read');
    expect(fieldPermission('IncidentContext', field('IncidentContext', 'transitions'))).toBe('transition:read');
    // Held by every role: no check on the hot paths.
    expect(fieldPermission('ConditionCause', field('ConditionCause', 'resource'))).toBeNull();
    expect(fieldPermission('Vm', field('Vm', 'conditions'))).toBeNull();
    expect(fieldPermission('Condition', field('Condition', 'cause'))).toBeNull();
    // An import reports its own transitions to the ingester that pushed it.
    expect(fieldPermission('InventoryIngestResult', field('InventoryIngestResult', 'transitions'))).toBe(
      'inventory:ingest',
    );
  });
});

describe('guardNestedReads: the field resolvers check before they answer', () => {
  const transition = { id: 't1' };
  const resolve = (role: Role) =>
    field('ConditionCause', 'transition').resolve!({ transition }, {}, { principal: { name: `x-${role}`, role } }, {
      fieldName: 'transition',
    } as never);

  it.each(ROLES)('%s: FORBIDDEN naming transition:read unless it holds it', (role) => {
    if (holders('transition:read').includes(role)) expect(resolve(role)).toBe(transition);
    else
      expect(() => resolve(role)).toThrow(
        expect.objectContaining({ code: 'FORBIDDEN', details: { permission: 'transition:read' } }),
      );
  });

  it('every field below the root answering a type not every role reads has a checking resolver', () => {
    for (const t of types) {
      for (const f of Object.values((t as GraphQLObjectType).getFields())) {
        const needed = fieldPermission(t.name, f);
        if (!needed || isInterfaceType(t)) continue;
        const lacking = ROLES.find((r) => !holders(needed).includes(r))!;
        expect(
          () => f.resolve!({}, {}, { principal: { name: 'x', role: lacking } }, { fieldName: f.name } as never),
          `${t.name}.${f.name}`,
        ).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
      }
    }
  });
});
