import { type FragmentDefinitionNode, type GraphQLResolveInfo, Kind, type SelectionSetNode } from 'graphql';
import type { TraverseView } from '../src/services/relationships.js';

/**
 * The names of the fields a query selects at `path` below the field being resolved, through
 * aliases, inline fragments and named fragments (`... on Vm { state }` counts as `state`).
 */
export function selectedAt(info: GraphQLResolveInfo, path: readonly string[]): Set<string> {
  let sets = info.fieldNodes.flatMap((f) => (f.selectionSet ? [f.selectionSet] : []));
  for (const name of path) {
    sets = fieldsOf(sets, info.fragments)
      .filter((f) => f.name === name)
      .flatMap((f) => (f.selectionSet ? [f.selectionSet] : []));
  }
  return new Set(fieldsOf(sets, info.fragments).map((f) => f.name));
}

function fieldsOf(
  sets: readonly SelectionSetNode[],
  fragments: Record<string, FragmentDefinitionNode>,
): { name: string; selectionSet?: SelectionSetNode }[] {
  const out: { name: string; selectionSet?: SelectionSetNode }[] = [];
  const visit = (set: SelectionSetNode) => {
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) out.push({ name: s.name.value, selectionSet: s.selectionSet });
      else if (s.kind === Kind.INLINE_FRAGMENT) visit(s.selectionSet);
      else {
        const fragment = fragments[s.name.value];
        if (fragment) visit(fragment.selectionSet);
      }
    }
  };
  sets.forEach(visit);
  return out;
}

/** Resource fields answered from a resource's identity alone (relations and conditions load by id). */
const IDENTITY_FIELDS = new Set(['__typename', 'id', 'kind', 'provider', 'name', 'slug', 'relations', 'conditions']);

/**
 * How much of a traversal a `dependents`/`dependencies` query needs: every property of each
 * reached resource only when it selects more than its identity, the paths only when selected.
 */
export function traverseViewOf(info: GraphQLResolveInfo): TraverseView {
  const fields = selectedAt(info, ['reached', 'resource']);
  return {
    resources: [...fields].every((f) => IDENTITY_FIELDS.has(f)) ? 'identity' : 'full',
    path: selectedAt(info, ['reached']).has('path'),
  };
}
