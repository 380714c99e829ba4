// The GraphQL selection for a resource's closed state. `state` lives on each kind's type with its own
// enum, and GraphQL refuses one response key for fields of different types, so each kind's is
// selected under its own alias (stateOfVm: state) and foldState (applied by gql) puts it back as `state`.
export const KIND_TYPES = ['Cluster', 'Host', 'Vm', 'Lxc', 'Storage', 'Network', 'Service'] as const;

const ALIAS = 'stateOf';

/** `... on Vm { stateOfVm: state } …` for every kind: the answer has `state` once gql folded it. */
export const STATE_FIELDS = KIND_TYPES.map((t) => `... on ${t} { ${ALIAS}${t}: state }`).join(' ');

/** Renames every stateOf<Kind> key in an answer to `state`, in place. */
export function foldState(value: unknown): void {
  if (Array.isArray(value)) {
    for (const v of value) foldState(v);
    return;
  }
  if (!value || typeof value !== 'object') return;
  const obj = value as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    if (key.startsWith(ALIAS) && KIND_TYPES.includes(key.slice(ALIAS.length) as (typeof KIND_TYPES)[number])) {
      obj.state = obj[key];
      delete obj[key];
    } else foldState(obj[key]);
  }
}

export interface ResourceSummary {
  id: string;
  kind: string;
  name: string;
  slug: string;
  provider: string;
  lifecycle: string;
  rawState: string | null;
  state?: string;
}
