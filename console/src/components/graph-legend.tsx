// The graph's legend: edge colour = type, line style = provenance, border = blast radius. Swatches
// are coloured from the graph's own tables through the CSSOM (allowed under the console's CSP).
import { BLAST_COLOUR, EDGE_COLOURS, PROVENANCE_LINES } from './graph-style';

export function GraphLegend() {
  return (
    <div class="graph-legend" data-testid="graph-legend" aria-label="Legend">
      <h3>Edge type</h3>
      <ul>
        {Object.entries(EDGE_COLOURS).map(([type, colour]) => (
          <li key={type}>
            <span class="swatch-line" style={{ borderTopColor: colour }} aria-hidden="true" /> {type}
          </li>
        ))}
      </ul>
      <h3>Provenance</h3>
      <ul>
        {Object.entries(PROVENANCE_LINES).map(([provenance, line]) => (
          <li key={provenance}>
            <span class={`swatch-line swatch-${line}`} aria-hidden="true" /> {provenance} ({line})
          </li>
        ))}
      </ul>
      <h3>Nodes</h3>
      <ul>
        <li>
          <span class="swatch-node swatch-root" aria-hidden="true" /> this resource
        </li>
        <li>
          <span class="swatch-node" style={{ borderColor: BLAST_COLOUR }} aria-hidden="true" /> in the blast radius
        </li>
        <li>fill: health (green healthy, amber degraded, red unhealthy, grey unknown)</li>
      </ul>
    </div>
  );
}
