/**
 * Peak memory of one aitia load, measured in a process of its own: maxRSS only ever grows, so the
 * bench process (which ran every round, the reference and the per-row slices) cannot say what one
 * load of N resources needs. The child connects to the bench's Neo4j, loads the generated shape
 * once into its own scope and prints its peak RSS, its RSS before the load (Node, driver, modules)
 * and the load's rate; the parent wipes the scope.
 *
 * The child runs with V8's old space capped (`heapMb`, BENCH_RSS_HEAP_MB, default 128; `none` for
 * V8's own sizing): a load that finishes under the cap holds no more than that live. Uncapped, V8
 * lets the heap grow with the allocation rate, so RSS then shows collectable garbage as well
 * (about 180 MB at 50,000 and 310 MB at 200,000 on a 24 GB machine), not what the load keeps.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { isoNow } from '../src/graph/db/statements.js';
import { loadInventory } from '../src/ingest/inventory-load.js';
import { createReport } from '../src/ingest/report.js';
import { syntheticShape } from './ingest-shape.js';
import { benchNeo4j } from './support.js';

export interface RssSample {
  resources: number;
  items: number;
  peakMb: number;
  baseMb: number;
  seconds: number;
}

const MARK = 'RSS_SAMPLE ';
const maxRssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);

/** Runs this module as a child for `resources` under `scope`; resolves with what it measured. */
export function measureInChild(
  env: Record<string, string>,
  scope: string,
  resources: number,
  batchSize: number,
  heapMb: number | null,
): Promise<RssSample> {
  const script = fileURLToPath(import.meta.url);
  const cap = heapMb === null ? [] : [`--max-old-space-size=${heapMb}`];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...cap, script, String(resources), scope, String(batchSize)], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith(MARK));
      if (code !== 0 || !line) reject(new Error(`the RSS child for ${resources} resources exited ${code}: ${out}`));
      else resolve(JSON.parse(line.slice(MARK.length)) as RssSample);
    });
  });
}

async function child(resources: number, scope: string, batchSize: number): Promise<void> {
  const neo = await benchNeo4j();
  try {
    const shape = syntheticShape(scope, resources);
    const baseMb = maxRssMb();
    const report = createReport('proxmox', `proxmox:${scope}`, 'rss');
    const t = process.hrtime.bigint();
    await loadInventory(neo.driver, shape.rows, [], { updateTag: 'rss', observedAt: isoNow(), batchSize }, report);
    const seconds = Number(process.hrtime.bigint() - t) / 1e9;
    if (report.resources.created !== shape.resources || report.edges.created !== shape.edges)
      throw new Error(`created ${report.resources.created} resources / ${report.edges.created} edges`);
    const sample: RssSample = { resources, items: shape.items, peakMb: maxRssMb(), baseMb, seconds };
    if (process.env.BENCH_RSS_DEBUG) {
      (globalThis as { gc?: () => void }).gc?.();
      console.error(JSON.stringify(process.memoryUsage()));
    }
    console.log(MARK + JSON.stringify(sample));
  } finally {
    await neo.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [n, scope, batch] = process.argv.slice(2);
  await child(Number(n), scope!, Number(batch));
}
