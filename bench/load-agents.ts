/**
 * The simulated agents of bench:load, in their own process (forked by bench/load.ts): real agents
 * run elsewhere, so their HTTP client work must not share the service's event loop. The parent
 * sends one message per phase; this process runs it and answers with the samples and its own CPU.
 */
import { Agent, request } from 'node:http';

/** What the parent sends: where the service is and what the seeded graph holds. */
export interface AgentsSetup {
  url: string;
  token: string;
  scope: string;
  vms: number;
  hosts: number;
  services: number;
}

/** One phase: `agents` loops over `ops` for `seconds`, or `count` calls in all when given. */
export interface PhaseRequest {
  ops: string[];
  agents: number;
  seconds?: number;
  count?: number;
  /** Another server of the same service to send this phase to (default: the setup's). */
  url?: string;
}

export interface PhaseReport {
  perOp: Record<string, number[]>;
  errors: number;
  firstError: string | null;
  elapsedS: number;
  /** This process's CPU during the phase, ms. */
  cpuMs: number;
}

interface Op {
  name: string;
  query: string;
  vars: (i: number) => Record<string, unknown>;
}

/** The operations: the read mix (resource, dependents, transitions), then the two that write. */
export function operations(s: Omit<AgentsSetup, 'url' | 'token'>): Op[] {
  const vmSlug = (i: number) => `vm:vm${(i * 7919) % s.vms}-${s.scope}`;
  const vmId = (i: number) => `proxmox:${s.scope}/qemu/${100 + (i % s.vms)}`;
  return [
    {
      name: 'resource',
      query: 'query($s: String) { resource(slug: $s) { id name health ... on Vm { state } } }',
      vars: (i) => ({ s: vmSlug(i) }),
    },
    {
      name: 'dependents',
      query: 'query($id: ID!) { dependents(id: $id, maxDepth: 3) { count reached { depth resource { id } } } }',
      vars: (i) => ({ id: `proxmox:${s.scope}/node/n${i % s.hosts}` }),
    },
    {
      name: 'transitions',
      query:
        'query($r: String) { transitions(resourceId: $r, first: 10) { edges { node { id from to attribution { confidence actor } } } } }',
      vars: (i) => ({ r: vmSlug(i) }),
    },
    {
      name: 'classifyAction',
      query:
        'query($t: ID!) { classifyAction(input: {target: $t, action: "restart"}) { riskClass autonomy approval reasons } }',
      vars: (i) => ({ t: vmId(i * 31) }),
    },
    {
      name: 'createRelationship',
      query:
        'mutation($s: ID!, $t: ID!) { createRelationship(input: {source: $s, target: $t, type: DEPENDS_ON}) { created } }',
      vars: (i) => ({ s: `manual:service/svc${i % s.services}-${s.scope}`, t: vmId(i * 13) }),
    },
  ];
}

function runAgents(setup: AgentsSetup) {
  const all = new Map(operations(setup).map((o) => [o.name, o]));
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });

  /** One GraphQL POST over a kept-alive connection; anything but 200 without errors throws. */
  function call(endpoint: URL, op: Op, i: number): Promise<void> {
    const payload = JSON.stringify({ query: op.query, variables: op.vars(i) });
    return new Promise((resolve, reject) => {
      const req = request(
        endpoint,
        {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(payload),
            authorization: `Bearer ${setup.token}`,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const body = JSON.parse(text) as { errors?: unknown };
            if (res.statusCode !== 200 || body.errors) reject(new Error(`${op.name}: HTTP ${res.statusCode} ${text}`));
            else resolve();
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  return async function phase(p: PhaseRequest): Promise<PhaseReport> {
    const ops = p.ops.map((n) => all.get(n)!);
    const endpoint = new URL(`${p.url ?? setup.url}/graphql`);
    const perOp: Record<string, number[]> = Object.fromEntries(ops.map((o) => [o.name, []]));
    let errors = 0;
    let firstError: string | null = null;
    let seq = 0;
    const cpu0 = process.cpuUsage();
    const started = performance.now();
    const deadline = started + (p.seconds ?? Infinity) * 1000;
    const more = () => (p.count === undefined ? performance.now() < deadline : seq < p.count);
    await Promise.all(
      Array.from({ length: p.agents }, async (_, a) => {
        while (more()) {
          const i = seq++;
          const op = ops[(i + a) % ops.length]!;
          const t0 = performance.now();
          try {
            await call(endpoint, op, i);
            perOp[op.name]!.push(performance.now() - t0);
          } catch (err) {
            errors++;
            firstError ??= String(err).slice(0, 300);
          }
        }
      }),
    );
    const cpu = process.cpuUsage(cpu0);
    return {
      perOp,
      errors,
      firstError,
      elapsedS: (performance.now() - started) / 1000,
      cpuMs: (cpu.user + cpu.system) / 1000,
    };
  };
}

// Forked: the first message is the setup, each later one a phase; `exit` ends the process.
if (process.send) {
  let phase: ((p: PhaseRequest) => Promise<PhaseReport>) | null = null;
  process.on('message', (msg: { setup?: AgentsSetup; phase?: PhaseRequest; exit?: true }) => {
    if (msg.setup) phase = runAgents(msg.setup);
    else if (msg.phase && phase) void phase(msg.phase).then((r) => process.send!({ report: r }));
    else if (msg.exit) process.exit(0);
  });
}
