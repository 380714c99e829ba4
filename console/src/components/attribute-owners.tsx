// A resource's attributes with who owns each, as the API answers it (Resource.attributeOwners): the
// provider's ingest, an operator or an agent by name (the writer aitia recorded), or declared (a
// declared resource's declarer, or a writer from before writers were recorded).

export interface AttributeOwnerData {
  key: string;
  owner: 'provider' | 'operator' | 'agent' | 'declared';
  principal: string | null;
  at: string | null;
}

function show(v: unknown): string {
  if (Array.isArray(v)) return v.map(show).join(', ');
  if (v === null || v === undefined) return '—';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** "provider (proxmox)", "operator (alice)", "agent (rhodes)", "declared (rhodes)", or "declared". */
export function ownerLabel(o: Pick<AttributeOwnerData, 'owner' | 'principal'>): string {
  return o.principal ? `${o.owner} (${o.principal})` : o.owner;
}

export function AttributesTable(props: { attributes: Record<string, unknown>; owners: AttributeOwnerData[] }) {
  const keys = Object.keys(props.attributes).sort();
  if (keys.length === 0) return <p class="muted">No attributes.</p>;
  const owners = new Map(props.owners.map((o) => [o.key, o]));
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
            const o = owners.get(k) ?? { key: k, owner: 'declared' as const, principal: null, at: null };
            return (
              <tr key={k} data-owner={o.owner} data-principal={o.principal ?? ''}>
                <th scope="row">
                  <code>{k}</code>
                </th>
                <td>{show(props.attributes[k])}</td>
                <td>
                  <span class={`owner owner-${o.owner}`} title={o.at ? `written ${o.at}` : undefined}>
                    {ownerLabel(o)}
                  </span>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
