import { buildSchema, isEnumType } from 'graphql';
import { describe, expect, it } from 'vitest';
import {
  CHECK_KINDS,
  CHECK_RESULT_STATUSES,
  CONDITION_STATUSES,
  CONDITION_TYPES,
  EDGE_CONFIDENCES,
  HEALTHS,
  KINDS,
  LIFECYCLES,
  PROVENANCES,
  PROVIDERS,
  RELATIONSHIP_TYPES,
  ROLES,
  STATES,
} from '../../../src/model/index.js';
import { ACTOR_KINDS, ATTRIBUTION_CONFIDENCES, EVENT_TYPES, STATUS_CLASSES } from '../../../src/model/events.js';
import { APPROVAL_REQUIREMENTS, AUTONOMY_LEVELS, RISK_CLASSES } from '../../../src/policy/index.js';
import { loadTypeDefs } from '../../../src/server/graphql-schema.js';
import { KIND_TYPENAMES } from '../../../resolvers/resources.js';

const schema = buildSchema(loadTypeDefs().join('\n'));
const enumValues = (name: string) => {
  const t = schema.getType(name);
  if (!isEnumType(t)) throw new Error(`${name} is not an enum in the SDL`);
  return t
    .getValues()
    .map((v) => v.name)
    .sort();
};

/** Each SDL enum mirrors one vocabulary in src/model; they must never drift apart. */
const MIRRORS: Array<[string, readonly string[]]> = [
  ['Kind', KINDS],
  ['Provider', PROVIDERS],
  ['Lifecycle', LIFECYCLES],
  ['Health', HEALTHS],
  ['RelationshipType', RELATIONSHIP_TYPES],
  ['Provenance', PROVENANCES],
  ['EdgeConfidence', EDGE_CONFIDENCES],
  ['ConditionType', CONDITION_TYPES],
  ['ConditionStatus', CONDITION_STATUSES],
  ['Role', ROLES],
  ['CheckKind', CHECK_KINDS],
  ['CheckStatus', CHECK_RESULT_STATUSES],
  ['RiskClass', RISK_CLASSES],
  ['AutonomyLevel', AUTONOMY_LEVELS],
  ['ApprovalRequirement', APPROVAL_REQUIREMENTS],
  ['Approval', [...APPROVAL_REQUIREMENTS, 'not_approvable']],
  ['AttributionConfidence', ATTRIBUTION_CONFIDENCES],
  ['ActorKind', ACTOR_KINDS],
  ['EventStatusClass', STATUS_CLASSES],
  ['EventType', EVENT_TYPES],
  ...KINDS.map((k) => [`${KIND_TYPENAMES[k]}State`, STATES[k]] as [string, readonly string[]]),
];

describe('the SDL mirrors src/model', () => {
  it.each(MIRRORS)('enum %s has exactly the model values', (name, values) => {
    expect(enumValues(name)).toEqual([...values].sort());
  });

  it.each(KINDS)('kind %s has an object type implementing Resource with its own state enum', (kind) => {
    const t = schema.getType(KIND_TYPENAMES[kind]) as any;
    expect(t.getInterfaces().map((i: any) => i.name)).toContain('Resource');
    expect(String(t.getFields().state.type)).toBe(`${KIND_TYPENAMES[kind]}State!`);
  });

  it.each(KINDS)("kind %s's object type has exactly Resource's fields, and state", (kind) => {
    const shape = (t: any) =>
      Object.values(t.getFields()).map((f: any) => ({
        name: f.name,
        type: String(f.type),
        args: f.args.map((a: any) => `${a.name}: ${String(a.type)} = ${JSON.stringify(a.defaultValue)}`),
      }));
    const own = shape(schema.getType(KIND_TYPENAMES[kind]));
    expect(own.filter((f) => f.name !== 'state')).toEqual(shape(schema.getType('Resource')));
    expect(own.map((f) => f.name)).toContain('state');
  });
});
