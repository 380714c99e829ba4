// How the neighbourhood graph looks: an edge's colour is its type and its line style its
// provenance (observed solid, inferred dashed, declared dotted); a node's shape is its kind. The
// legend beside the graph is drawn from the same tables.
import type cytoscape from 'cytoscape';

export const EDGE_COLOURS: Record<string, string> = {
  RUNS_ON: '#1565c0',
  MEMBER_OF: '#6a1b9a',
  DEPENDS_ON: '#e65100',
  STORED_ON: '#2e7d32',
  MANIFESTS_AS: '#00838f',
};

export const PROVENANCE_LINES: Record<string, 'solid' | 'dashed' | 'dotted'> = {
  observed: 'solid',
  inferred: 'dashed',
  declared: 'dotted',
};

const KIND_SHAPES: Record<string, cytoscape.Css.NodeShape> = {
  cluster: 'hexagon',
  host: 'round-rectangle',
  vm: 'ellipse',
  lxc: 'diamond',
  storage: 'barrel',
  network: 'triangle',
  service: 'round-tag',
};

const HEALTH_COLOURS: Record<string, string> = {
  healthy: '#a5d6a7',
  degraded: '#ffe082',
  unhealthy: '#ef9a9a',
  unknown: '#cfd8dc',
};

export const BLAST_COLOUR = '#c62828';

export function graphStyle(): cytoscape.StylesheetJson {
  return [
    {
      selector: 'node',
      style: {
        label: 'data(label)',
        'font-size': 11,
        'text-valign': 'bottom',
        'text-margin-y': 4,
        color: '#1a1a1a',
        'text-background-color': '#ffffff',
        'text-background-opacity': 0.8,
        'text-background-padding': '2px',
        width: 34,
        height: 34,
        'border-width': 1,
        'border-color': '#546e7a',
        'background-color': '#cfd8dc',
      },
    },
    ...Object.entries(KIND_SHAPES).map(([kind, shape]) => ({
      selector: `node[kind = "${kind}"]`,
      style: { shape },
    })),
    ...Object.entries(HEALTH_COLOURS).map(([health, colour]) => ({
      selector: `node[health = "${health}"]`,
      style: { 'background-color': colour },
    })),
    { selector: 'node.root', style: { width: 48, height: 48, 'border-width': 4, 'border-color': '#111111' } },
    { selector: 'node.blast', style: { 'border-width': 4, 'border-color': BLAST_COLOUR } },
    { selector: 'node.root.blast', style: { 'border-color': '#111111' } },
    {
      selector: 'edge',
      style: {
        width: 2,
        'curve-style': 'bezier',
        'target-arrow-shape': 'triangle',
        'arrow-scale': 1.1,
        label: 'data(type)',
        'font-size': 8,
        'text-rotation': 'autorotate',
        'text-background-color': '#ffffff',
        'text-background-opacity': 0.8,
        color: '#37474f',
      },
    },
    ...Object.entries(EDGE_COLOURS).map(([type, colour]) => ({
      selector: `edge[type = "${type}"]`,
      style: { 'line-color': colour, 'target-arrow-color': colour },
    })),
    ...Object.entries(PROVENANCE_LINES).map(([provenance, line]) => ({
      selector: `edge[provenance = "${provenance}"]`,
      style: { 'line-style': line },
    })),
    { selector: 'edge.blast', style: { width: 4 } },
    { selector: 'node:selected', style: { 'overlay-opacity': 0.15 } },
  ];
}
