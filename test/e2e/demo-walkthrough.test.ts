import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoResult, runDemo } from '../../src/demo/run-demo.js';
import { resetScope } from '../../src/graph/resources/demo-scope.js';
import { DEMO_SERVICES } from '../../src/demo/story.js';
import { useGraph } from '../support/graph.js';
import { startTestServer, type TestServer } from '../support/server.js';

const { driver } = useGraph();
let srv: TestServer;
/** The same service with every operation on graphql-js's executor (srv runs them compiled). */
let interpreted: TestServer;
let demo: DemoResult;
const printed: string[] = [];

/** The tutorial's operations and answers, in its order: each `query '…'` block and the json block after it. */
function walkthrough(): Array<{ title: string; operation: string; answer: string }> {
  const tutorial = readFileSync(join(process.cwd(), 'docs', 'tutorial.md'), 'utf8');
  const steps = [
    ...tutorial.matchAll(
      /^## (\d\. [^\n]+)[\s\S]*?```sh\nnode dist\/src\/main\.js query '([\s\S]*?)'\n```\s*```json\n([\s\S]*?)\n```/gm,
    ),
  ];
  return steps.map((m) => ({ title: m[1]!, operation: m[2]!, answer: m[3]! }));
}

beforeAll(async () => {
  demo = await runDemo({ driver, suppression: 'shadow' }, { print: (l) => printed.push(l) });
  srv = await startTestServer(driver, { tokenPrefix: 'demo' });
  interpreted = await startTestServer(driver, { tokenPrefix: 'demo', http: { compileAfter: Infinity } });
}, 180_000);
afterAll(async () => {
  await srv?.close();
  await interpreted?.close();
  await resetScope(
    driver,
    ['proxmox:homelab/'],
    DEMO_SERVICES.map((s) => `manual:service/${s.name}`),
  );
});

describe('the demo homelab', () => {
  it('plays its story through the real ingest, correlator and gate', () => {
    expect(demo.resources).toBe(23);
    expect(
      demo.transitions.map((t) => [
        t.transition.resourceId,
        t.transition.from,
        t.transition.to,
        t.transition.attribution.confidence,
      ]),
    ).toEqual([
      ['proxmox:homelab/qemu/101', 'running', 'stopped', 'high'],
      ['proxmox:homelab/qemu/110', 'running', 'stopped', 'high'],
      ['proxmox:homelab/qemu/102', 'running', 'stopped', 'none'],
      ['proxmox:homelab/qemu/113', 'running', 'paused_io_error', 'none'],
    ]);
    const [stop, ha, unknown] = demo.transitions.map((t) => t.transition);
    expect(stop!.attribution).toMatchObject({ actor: 'alice@pve', actorKind: 'human' });
    expect(ha!.attribution).toMatchObject({
      actor: 'bob@pve',
      requestedBy: 'bob@pve',
      executor: 'root@pam',
      executorKind: 'ha_manager',
    });
    expect(unknown!.narrative).toMatch(/the cause is unknown\.$/);
    expect(printed.join('\n')).toContain('first poll: 23 resources');
  });

  it('opened a paused_io_error condition on db13', async () => {
    const { body } = await srv.gql(srv.tokens.agent, '{ openConditions(resourceId: "vm:db13") { type status } }');
    expect(body.data.openConditions).toEqual(expect.arrayContaining([{ type: 'paused_io_error', status: 'open' }]));
  });

  const steps = walkthrough();
  it('docs/tutorial.md has the five walkthrough steps', () => {
    expect(steps.map((s) => s.title.slice(0, 2))).toEqual(['1.', '2.', '3.', '4.', '5.']);
  });

  // The README's own try-it line: a reader's first question, answered by the demo with a narrative.
  it("the README demo query answers with the narrative of web01's stop", async () => {
    const readme = readFileSync(join(process.cwd(), 'README.md'), 'utf8');
    const queries = [...readme.matchAll(/^node dist\/src\/main\.js query '(.+)'$/gm)].map((m) => m[1]!);
    expect(queries).toHaveLength(1);
    const { status, body } = await srv.gql(srv.tokens.agent, queries[0]!);
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    const [edge] = body.data.transitions.edges;
    expect(edge.node.narrative).toMatch(/alice@pve/);
  });

  // In order: step 4 records an edge, as the reader does.
  it.each(steps)('tutorial step $title gives exactly the printed answer', async ({ operation, answer }) => {
    const { status, body } = await srv.gql(srv.tokens.agent, operation);
    expect(status).toBe(200);
    // As `aitia query` prints it: the same text, key order included.
    expect(JSON.stringify(body, null, 2)).toBe(answer);
  });

  // Reads only (a repeated write answers differently the second time), with the ways a question can
  // go wrong: variables that do not coerce, a refusal from a service, nulls, fragments, paths.
  const questions: Array<[string, Record<string, unknown>?]> = [
    ...steps.filter((s) => !s.operation.trimStart().startsWith('mutation')).map((s): [string] => [s.operation]),
    [
      'query($id: ID!) { dependents(id: $id, maxDepth: 2) { count reached { depth path { id } resource { __typename id name ... on Vm { state } } } } }',
      { id: 'proxmox:homelab/node/pve1' },
    ],
    ['{ dependencies(id: "vm:db13") { count reached { resource { id kind health } } } }'],
    [
      '{ resources(filter: {kind: vm}, first: 3) { edges { cursor node { id slug ...V } } pageInfo { hasNextPage } } } fragment V on Vm { state }',
    ],
    [
      'query($r: String) { transitions(resourceId: $r, first: 5) { edges { node { from to attribution { confidence actor } } } } }',
      { r: 'proxmox:homelab/qemu/101' },
    ],
    ['{ resource(id: "proxmox:homelab/qemu/999") { id } about { role principal } }'],
    ['{ dependents(id: "nope:1") { count } }'],
    ['query($d: Int) { dependents(id: "vm:db13", maxDepth: $d) { count } }', { d: 'two' }],
    [
      'query($y: Boolean!) { resource(slug: "vm:db13") { id name @include(if: $y) health @skip(if: $y) } }',
      { y: true },
    ],
    ['{ __type(name: "Vm") { name fields { name } } }'],
  ];
  it.each(questions)('graphql-js gives the compiled answer, byte for byte: %s', async (query, variables) => {
    const compiled = await srv.gql(srv.tokens.agent, query, variables);
    const reference = await interpreted.gql(interpreted.tokens.agent, query, variables);
    expect(compiled.status).toBe(reference.status);
    expect(JSON.stringify(compiled.body)).toBe(JSON.stringify(reference.body));
  });
});

describe('the demo keeps to its own data', () => {
  it('refuses a database holding resources under its scope that it did not create, deleting nothing', async () => {
    // Not the demo's: no DemoScope marker, and a real cluster named homelab has a node there.
    await driver.executeQuery("MATCH (m:DemoScope {prefix: 'proxmox:homelab/'}) DELETE m");
    const foreign = 'proxmox:homelab/node/real-pve1';
    await driver.executeQuery(
      "MERGE (r:Resource:Host {id: $id}) SET r.kind = 'host', r.provider = 'proxmox', r.name = 'real-pve1', r.state = 'online'",
      { id: foreign },
    );
    try {
      await expect(runDemo({ driver, suppression: 'shadow' }, { print: () => {} })).rejects.toMatchObject({
        code: 'BAD_USER_INPUT',
        message: expect.stringMatching(
          /already holds \d+ resource\(s\) the demo did not create .*will not delete them/,
        ),
      });
      const { records } = await driver.executeQuery('MATCH (r:Resource {id: $id}) RETURN count(r) AS n', {
        id: foreign,
      });
      expect(records[0]!.get('n').toNumber()).toBe(1);
      // On its own embedded database everything is the demo's: it claims the scope and replays.
      const replay = await runDemo({ driver, suppression: 'shadow' }, { print: () => {}, ownDatabase: true });
      expect(replay.transitions).toHaveLength(demo.transitions.length);
    } finally {
      await driver.executeQuery('MATCH (r:Resource {id: $id}) DETACH DELETE r', { id: foreign });
    }
  }, 180_000);
});
