// The resource's neighbourhood, drawn with cytoscape on a canvas: its edges (relations), and its
// blast radius (dependents) to a chosen depth highlighted — nodes beyond one hop are added. Click a
// node to walk to its page; the table under the graph lists the same edges for the keyboard.
import cytoscape from 'cytoscape';
import { useEffect, useRef, useState } from 'preact/hooks';
import { gql } from '../api';
import { GRAPH_QUERY } from '../queries';
import { resourceHref } from '../router';
import { graphStyle } from './graph-style';
import { GraphLegend } from './graph-legend';
import { ErrorBox, Loading } from './ui';

export interface GraphNode {
  id: string;
  name: string;
  slug: string;
  kind: string;
  health: string;
}

interface Edge {
  type: string;
  fromId: string;
  toId: string;
  provenance: string;
}

interface Relation extends Edge {
  source: string;
  from: GraphNode;
  to: GraphNode;
}

interface GraphAnswer {
  relations: Relation[];
  dependents: { count: number; reached: { depth: number; resource: GraphNode & { relations: Edge[] } }[] };
}

// Cytoscape adds a <style> to the head unless an element with this id exists; a strict CSP
// (style-src 'self') refuses that style, so the marker goes first and pages.css carries its rule.
const CYTOSCAPE_STYLE_ID = '__________cytoscape_stylesheet';
function markCytoscapeStylesheet(): void {
  if (document.getElementById(CYTOSCAPE_STYLE_ID)) return;
  const marker = document.createElement('meta');
  marker.id = CYTOSCAPE_STYLE_ID;
  document.head.appendChild(marker);
}

function edgeKey(e: Edge): string {
  return `${e.type}|${e.fromId}|${e.toId}|${e.provenance}`;
}

/** Nodes (with their hop count) and edges to draw, and which of them are in the blast radius. */
function elements(
  root: GraphNode,
  d: GraphAnswer,
): { defs: cytoscape.ElementDefinition[]; nodes: number; blast: number } {
  const nodes = new Map<string, GraphNode & { level: number }>([[root.id, { ...root, level: 0 }]]);
  for (const r of d.relations) {
    for (const n of [r.from, r.to]) if (!nodes.has(n.id)) nodes.set(n.id, { ...n, level: 1 });
  }
  for (const { depth, resource } of d.dependents.reached) {
    if (!nodes.has(resource.id)) nodes.set(resource.id, { ...resource, level: depth });
  }
  const blast = new Set(d.dependents.reached.map((r) => r.resource.id));
  const edges = new Map<string, Edge>();
  const candidates = [...d.relations, ...d.dependents.reached.flatMap((r) => r.resource.relations)];
  for (const e of candidates) if (nodes.has(e.fromId) && nodes.has(e.toId)) edges.set(edgeKey(e), e);
  const inBlast = (id: string) => id === root.id || blast.has(id);
  const defs: cytoscape.ElementDefinition[] = [
    ...[...nodes.values()].map((n) => ({
      group: 'nodes' as const,
      data: { id: n.id, label: n.name, kind: n.kind, health: n.health, level: n.level },
      classes: [n.id === root.id ? 'root' : '', blast.has(n.id) ? 'blast' : ''].filter(Boolean).join(' '),
    })),
    ...[...edges.entries()].map(([key, e]) => ({
      group: 'edges' as const,
      data: { id: key, source: e.fromId, target: e.toId, type: e.type, provenance: e.provenance },
      classes: inBlast(e.fromId) && inBlast(e.toId) ? 'blast' : '',
    })),
  ];
  return { defs, nodes: nodes.size, blast: blast.size };
}

export function NeighbourhoodGraph(props: { root: GraphNode; onWalk: (id: string) => void }) {
  const box = useRef<HTMLDivElement>(null);
  const [depth, setDepth] = useState(1);
  const [data, setData] = useState<GraphAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [counts, setCounts] = useState<{ nodes: number; blast: number } | null>(null);
  const { root, onWalk } = props;

  useEffect(() => {
    let cancelled = false;
    setError(null);
    gql<GraphAnswer>(GRAPH_QUERY, { id: root.id, depth }).then(
      (d) => !cancelled && setData(d),
      (e: Error) => !cancelled && setError(e.message),
    );
    return () => {
      cancelled = true;
    };
  }, [root.id, depth]);

  useEffect(() => {
    if (!data || !box.current) return;
    markCytoscapeStylesheet();
    const built = elements(root, data);
    const cy = cytoscape({
      container: box.current,
      elements: built.defs,
      style: graphStyle(),
      layout: {
        name: 'concentric',
        concentric: (n: cytoscape.NodeSingular) => 10 - Number(n.data('level')),
        levelWidth: () => 1,
        minNodeSpacing: 40,
        animate: false,
        padding: 30,
      },
      minZoom: 0.2,
      maxZoom: 3,
    });
    cy.on('tap', 'node', (e) => {
      const id = (e.target as cytoscape.NodeSingular).id();
      if (id !== root.id) onWalk(id);
    });
    setCounts({ nodes: built.nodes, blast: built.blast });
    return () => cy.destroy();
  }, [data, root.id]);

  return (
    <section class="neighbourhood" aria-labelledby="neighbourhood-title">
      <h2 id="neighbourhood-title">Neighbourhood</h2>
      <div class="graph-controls">
        <label class="field">
          <span>Blast radius depth</span>
          <select data-testid="blast-depth" value={depth} onChange={(e) => setDepth(Number(e.currentTarget.value))}>
            {[1, 2, 3, 4, 5].map((d) => (
              <option key={d} value={d}>
                {d}
              </option>
            ))}
          </select>
        </label>
        {counts && (
          <p class="blast-count" data-testid="blast-count" role="status">
            {counts.blast} resource{counts.blast === 1 ? '' : 's'} depend on it within {depth} hop
            {depth === 1 ? '' : 's'} (highlighted)
          </p>
        )}
      </div>
      {error && <ErrorBox message={error} />}
      {!data && !error && <Loading what="the neighbourhood" />}
      <div class="graph-layout">
        <div
          class="graph-box"
          data-testid="neighbourhood"
          data-node-count={counts?.nodes}
          data-blast-count={counts?.blast}
          data-depth={depth}
          role="img"
          aria-label={`Graph of ${root.slug} and ${counts ? counts.nodes - 1 : 'its'} neighbours; the table below lists its edges`}
        >
          <div class="graph-canvas" ref={box} />
        </div>
        <GraphLegend />
      </div>
      {data && <NeighbourTable root={root} relations={data.relations} />}
    </section>
  );
}

function NeighbourTable(props: { root: GraphNode; relations: Relation[] }) {
  if (props.relations.length === 0) return <p class="muted">No edges.</p>;
  return (
    <div class="table-wrap">
      <table class="neighbours" data-testid="neighbours">
        <caption>Edges</caption>
        <thead>
          <tr>
            <th scope="col">Direction</th>
            <th scope="col">Type</th>
            <th scope="col">Resource</th>
            <th scope="col">Provenance</th>
            <th scope="col">Asserted by</th>
          </tr>
        </thead>
        <tbody>
          {props.relations.map((r) => {
            const out = r.fromId === props.root.id;
            const other = out ? r.to : r.from;
            return (
              <tr key={edgeKey(r)}>
                <td>{out ? 'out →' : '← in'}</td>
                <td>{r.type}</td>
                <td>
                  <a href={resourceHref(other.id)}>{other.slug}</a>
                </td>
                <td>
                  <span class={`provenance provenance-${r.provenance}`}>{r.provenance}</span>
                </td>
                <td>{r.source}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
