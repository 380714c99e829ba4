// A resource's checks: what each probes, how often, whether it is failing or unreachable, and its
// latest result (checks(resourceId)).
import { Time } from '../time';
import { Badge } from './ui';

export interface CheckData {
  id: string;
  kind: string;
  target: string;
  intervalSeconds: number;
  critical: boolean;
  createdBy: string;
  failing: boolean;
  unreachable: boolean;
  lastRunAt: string | null;
  latest: { status: string; at: string; durationMs: number; reason: string | null; unreachable: boolean } | null;
}

export function ChecksTable(props: { checks: CheckData[] }) {
  if (props.checks.length === 0) return <p class="muted">No checks: health comes from checks, so it is unknown.</p>;
  return (
    <div class="table-wrap">
      <table class="checks" data-testid="checks">
        <thead>
          <tr>
            <th scope="col">Kind</th>
            <th scope="col">Target</th>
            <th scope="col">Every</th>
            <th scope="col">State</th>
            <th scope="col">Latest</th>
            <th scope="col">Created by</th>
          </tr>
        </thead>
        <tbody>
          {props.checks.map((c) => (
            <tr key={c.id}>
              <td>
                {c.kind}
                {c.critical && <span class="muted"> (critical)</span>}
              </td>
              <td>
                <code>{c.target}</code>
              </td>
              <td>{c.intervalSeconds} s</td>
              <td>
                {c.failing ? <Badge value="failing" kind="check" /> : <Badge value="passing" kind="check" />}
                {c.unreachable && <Badge value="unreachable" kind="check" />}
              </td>
              <td>
                {c.latest ? (
                  <>
                    <Badge value={c.latest.status} kind="check" /> <Time iso={c.latest.at} /> ({c.latest.durationMs} ms)
                    {c.latest.reason && <div class="muted">{c.latest.reason}</div>}
                  </>
                ) : (
                  <span class="muted">not run yet</span>
                )}
              </td>
              <td>{c.createdBy}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
