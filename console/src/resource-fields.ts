// The GraphQL selection for a resource's closed state: `state` lives on each kind's type.
export const KIND_TYPES = ['Cluster', 'Host', 'Vm', 'Lxc', 'Storage', 'Network', 'Service'] as const;

/** `... on Vm { state } …` for every kind. */
export const STATE_FIELDS = KIND_TYPES.map((t) => `... on ${t} { state }`).join(' ');

/** The summary fields the lists show. */
export const RESOURCE_SUMMARY = `id kind name slug provider lifecycle rawState ${STATE_FIELDS}`;

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
