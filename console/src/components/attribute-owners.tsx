// A resource's attributes with who owns each. The API gives the attributes, not their writers, so
// ownership is read from the same catalogue the service enforces (src/model): a key a provider can
// report for the kind is the provider's, entity_type is the operator's, the rest were declared by a
// principal (an agent or an operator; on a manual resource, its declarer).
import { canonicalAttributeKey, OPERATOR_OWNED_KEYS } from '../../../src/model/attribute-keys.js';
import { PROVIDER_ATTRIBUTE_KEYS } from '../../../src/model/provider-attributes.js';

export type AttributeOwner = 'provider' | 'operator' | 'declared';

function keyIn(keys: readonly string[], key: string): boolean {
  const c = canonicalAttributeKey(key);
  return keys.some((k) => canonicalAttributeKey(k) === c);
}

export function ownerOf(key: string, provider: string, kind: string): AttributeOwner {
  if (keyIn(OPERATOR_OWNED_KEYS, key)) return 'operator';
  const catalogues = Object.values(PROVIDER_ATTRIBUTE_KEYS) as Partial<Record<string, readonly string[]>>[];
  if (provider !== 'manual' && catalogues.some((c) => keyIn(c[kind] ?? [], key))) return 'provider';
  return 'declared';
}

function show(v: unknown): string {
  if (Array.isArray(v)) return v.map(show).join(', ');
  if (v === null || v === undefined) return '—';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

export function AttributesTable(props: {
  attributes: Record<string, unknown>;
  provider: string;
  kind: string;
  declaredBy: string | null;
}) {
  const keys = Object.keys(props.attributes).sort();
  if (keys.length === 0) return <p class="muted">No attributes.</p>;
  const ownerLabel = (o: AttributeOwner) =>
    o === 'provider'
      ? `provider (${props.provider})`
      : o === 'operator'
        ? 'operator'
        : props.declaredBy
          ? `declared (${props.declaredBy})`
          : 'declared (agent or operator)';
  return (
    <div class="table-wrap">
      <table class="attributes" data-testid="attributes">
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Value</th>
            <th scope="col">Owner</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => {
            const owner = ownerOf(k, props.provider, props.kind);
            return (
              <tr key={k} data-owner={owner}>
                <th scope="row">
                  <code>{k}</code>
                </th>
                <td>{show(props.attributes[k])}</td>
                <td>
                  <span class={`owner owner-${owner}`}>{ownerLabel(owner)}</span>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
