import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findPackageRoot } from '../../src/package-root.js';

/**
 * Imports point down the data flow (docs/architecture.md, "What may import what"): provider → ingest → graph → pipeline
 * (correlator, gate) → services → API surfaces. Read from the code's own import statements.
 */
const root = findPackageRoot();
const AREAS_ROOTS = ['src', 'resolvers', 'correlator'];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.startsWith('generated/'))
    .map((f) => join(dir, f));
}

/** file → the project files it imports (relative imports, `.js` → `.ts`). */
const graph = new Map<string, string[]>(
  AREAS_ROOTS.flatMap(sourceFiles).map((file) => {
    const text = readFileSync(join(root, file), 'utf8');
    const targets = [...text.matchAll(/^(?:import|export)[^'"]*?from '(\.[^']+)'/gm)].map((m) =>
      relative(root, resolve(root, dirname(file), m[1]!)).replace(/\.js$/, '.ts'),
    );
    return [file, targets];
  }),
);

/** The area a file belongs to: `src/graph`, `resolvers`, …; the entry point and the base helpers at src/ apart. */
function areaOf(file: string): string {
  const [top, second] = file.split('/');
  if (top !== 'src') return top!;
  if (file === 'src/main.ts') return 'src/main';
  return file.split('/').length > 2 ? `src/${second}` : 'src/(base)';
}

/** Imports from files under `from` to anything outside `allowed`. */
function importsOutside(from: string, allowed: string[]): string[] {
  return [...graph]
    .filter(([file]) => file.startsWith(from))
    .flatMap(([file, targets]) =>
      targets.filter((t) => !allowed.some((a) => t.startsWith(a))).map((t) => `${file} → ${t}`),
    );
}

/** Strongly connected components with more than one member (Tarjan), i.e. import cycles. */
function cycles(edges: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** The condition write primitives of src/graph/conditions.ts: every open or resolve goes through them. */
const CONDITION_WRITES = ['openConditionsTx', 'resolveConditionsTx', 'openCondition', 'resolveCondition'];

/**
 * The files (path → source text) that import any of `names` from `module` (a path like
 * `src/graph/conditions.ts`): named imports, aliased or not, and namespace imports (which reach all).
 */
function importersOf(files: ReadonlyMap<string, string>, module: string, names: readonly string[]): string[] {
  const found = new Set<string>();
  for (const [file, text] of files) {
    for (const m of text.matchAll(/^(?:import|export)\s+(?:type\s+)?([^'"]*?)\s*from\s*'(\.[^']+)'/gm)) {
      const target = relative(root, resolve(root, dirname(file), m[2]!)).replace(/\.js$/, '.ts');
      if (target !== module) continue;
      const clause = m[1]!;
      const named = /\{([^}]*)\}/.exec(clause)?.[1] ?? '';
      const imported = named
        .split(',')
        .map(
          (n) =>
            n
              .trim()
              .replace(/^type\s+/, '')
              .split(/\s+as\s+/)[0]!,
        )
        .filter(Boolean);
      if (/\*\s+as\s+/.test(clause) || imported.some((n) => names.includes(n))) found.add(file);
    }
  }
  return [...found].sort();
}

describe('architecture: imports point down the data flow', () => {
  it('finds the source files and their imports', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('src/graph/edges.ts')).toContain('src/model/index.ts');
  });

  it('src/model imports nothing but itself', () => {
    expect(importsOutside('src/model/', ['src/model/'])).toEqual([]);
  });

  it('src/graph imports only src/model and its own files', () => {
    expect(importsOutside('src/graph/', ['src/graph/', 'src/model/'])).toEqual([]);
  });

  it('the pure cores (correlator, the gate) import only src/model and their own files', () => {
    expect(importsOutside('correlator/', ['correlator/', 'src/model/'])).toEqual([]);
    expect(importsOutside('src/policy/', ['src/policy/', 'src/model/'])).toEqual([]);
  });

  it('resolvers call only the services (plus the model and the generated types)', () => {
    expect(importsOutside('resolvers/', ['resolvers/', 'src/services/', 'src/model/', 'src/generated/'])).toEqual([]);
  });

  it('the MCP tools call only the services (plus the model and the inputs generated from the SDL): the same operations as GraphQL', () => {
    expect(importsOutside('src/mcp/', ['src/mcp/', 'src/services/', 'src/model/', 'src/generated/'])).toEqual([]);
  });

  it('the MCP tools are served only by the HTTP server (/mcp) and the CLI (aitia mcp, stdio)', () => {
    const users = [...graph]
      .filter(([file, targets]) => !file.startsWith('src/mcp/') && targets.some((t) => t.startsWith('src/mcp/')))
      .map(([file]) => file);
    expect(users.sort()).toEqual(['src/cli/mcp.ts', 'src/server/mcp-http.ts']);
  });

  it('the services are the API side’s only way into the graph, the pipeline, the correlator and ingest', () => {
    const below = ['src/graph/', 'src/pipeline/', 'correlator/', 'src/ingest/', 'src/scheduler/'];
    expect(
      importsOutside('src/server/', [
        'src/server/',
        'resolvers/',
        'src/mcp/',
        'src/services/',
        'src/model/',
        'src/generated/',
        'src/package-root.ts',
        'src/log.ts',
      ]),
    ).toEqual([]);
    expect(
      importsOutside('src/services/', ['src/services/', 'src/model/', 'src/policy/', 'src/log.ts', ...below]),
    ).toEqual([]);
  });

  it('the integrations (notifications out) read the graph and the gate, send through the bounded request, run under a lease; nothing of the API side', () => {
    expect(
      importsOutside('src/integrations/', [
        'src/integrations/',
        'src/graph/',
        'src/model/',
        'src/policy/',
        'src/ingest/bounded-request.ts',
        'src/scheduler/lease-keeper.ts',
        'src/sources-file.ts',
        'src/log.ts',
      ]),
    ).toEqual([]);
  });

  it('only the pipeline sequences an observation: ingest and the graph never call the correlator or the gate', () => {
    expect(importsOutside('src/ingest/', ['src/ingest/', 'src/graph/', 'src/model/'])).toEqual([]);
  });

  it('the import reader finds who imports a condition write, however it is spelt (so the check below can fail)', () => {
    const files = new Map([
      ['src/a/one.ts', "import { searchConditions } from '../graph/conditions.js';"],
      [
        'src/a/two.ts',
        "import {\n  type ConditionOpen,\n  openConditionsTx as open,\n} from '../graph/conditions.js';",
      ],
      ['src/a/three.ts', "import * as conditions from '../graph/conditions.js';"],
      ['src/graph/four.ts', "import { resolveCondition } from './conditions.js';"],
      ['src/a/five.ts', "import { openConditionsTx } from '../graph/elsewhere.js';"],
    ]);
    expect(importersOf(files, 'src/graph/conditions.ts', CONDITION_WRITES)).toEqual([
      'src/a/three.ts',
      'src/a/two.ts',
      'src/graph/four.ts',
    ]);
  });

  it('conditions are written from two places only: the observation (recordTransitions) and the health scheduler (writeConditions)', () => {
    const files = new Map(
      AREAS_ROOTS.flatMap(sourceFiles).map((file) => [file, readFileSync(join(root, file), 'utf8')] as const),
    );
    expect(importersOf(files, 'src/graph/conditions.ts', CONDITION_WRITES)).toEqual([
      'src/graph/transitions/record.ts',
      'src/scheduler/condition-write.ts',
    ]);
  });

  it('the cycle finder finds a cycle (so the two checks below can fail)', () => {
    const edges = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(cycles(edges)).toEqual([['a', 'b', 'c']]);
  });

  it('no import cycle between files', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('no import cycle between areas (folders)', () => {
    const areas = new Map<string, string[]>();
    for (const [file, targets] of graph) {
      const from = areaOf(file);
      const to = new Set(areas.get(from) ?? []);
      for (const t of targets) if (areaOf(t) !== from) to.add(areaOf(t));
      areas.set(from, [...to]);
    }
    expect(cycles(areas)).toEqual([]);
  });
});
