import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import { z } from 'zod';
import type { GraphQLError } from 'graphql';
import type { YogaServerInstance } from 'graphql-yoga';
import { createRequestContext, type RequestContext } from '../../resolvers/context.js';
import type { ServiceDeps } from '../services/deps.js';
import type { Principal } from '../services/permissions.js';
import { consoleDir } from './console.js';

/**
 * The console's first page is slow on a fresh process: Neo4j plans every Cypher text the first time
 * it sees it (measured 0.2–1.4 s per console request on the demo, planning alone), and the executor
 * compiles each GraphQL document on a later run. So once the server listens, the documents the
 * console's pages ask on a first visit — the very texts, written by the console's build from the
 * module the pages import (console/src/queries.ts → dist/console/queries.json) — are run through
 * the server's own yoga, estate-wide and for one resource by id and by slug — its
 * parser cache, validation, limits and executor — as an in-process principal. Queries only: nothing
 * is written, and reads are not audited. One at a time, so a real request is never queued behind
 * more than one; every failure is only logged (the console works unwarmed, just slower at first).
 */
/** Passes over the documents: the texts' first runs, their joining the shared statement, its plan. */
const WARM_UP_PASSES = 3;

export const WARM_UP_PRINCIPAL: Principal = { name: 'aitia (console warm-up)', role: 'operator' };

/** One document of dist/console/queries.json (console/src/queries.ts WARM_UP). */
const WarmUpFile = z.object({
  warmUp: z.array(
    z.object({
      name: z.string(),
      scope: z.enum(['estate', 'resource']),
      query: z.string(),
      variables: z.record(z.string(), z.unknown()),
    }),
  ),
});
type WarmUpDocument = z.infer<typeof WarmUpFile>['warmUp'][number];

/** The console build's warm-up documents; none when the console is not built (it then serves a 503). */
export function readWarmUpDocuments(dir: string): WarmUpDocument[] {
  const path = join(dir, 'queries.json');
  if (!existsSync(path)) return [];
  return WarmUpFile.parse(JSON.parse(readFileSync(path, 'utf8'))).warmUp;
}

/** A document's variables with the page's placeholders (`"$id"`, `"$slug"`, …) filled in. */
function fill(variables: Record<string, unknown>, values: Record<string, string>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(variables).map(([k, v]) => [k, typeof v === 'string' && v in values ? values[v] : v]),
  );
}

export interface WarmUpReport {
  ms: number;
  documents: number;
  /** What failed, each `<document>: <first error>`. */
  failed: string[];
}

export interface WarmUp {
  done: Promise<WarmUpReport>;
  /** Skips what has not started and waits for the one in flight (before the driver closes). */
  stop(): Promise<void>;
}

type Yoga = YogaServerInstance<Record<string, never>, RequestContext>;

/** Runs the console's queries `runs` times each (the executor's compileAfter + 1: planned, then compiled). */
export function startConsoleWarmUp(yoga: Yoga, deps: ServiceDeps, runs: number, dir = consoleDir()): WarmUp {
  let stopped = false;
  const run = async (name: string, query: string, variables: Record<string, unknown>): Promise<unknown> => {
    const { parse, validate, execute, schema } = yoga.getEnveloped({} as never);
    const document = parse(query);
    const invalid = validate(schema, document) as readonly GraphQLError[];
    if (invalid.length) throw new Error(`${name}: ${invalid[0]!.message}`);
    let data: unknown;
    for (let i = 0; i < runs && !stopped; i += 1) {
      const contextValue = createRequestContext(deps, WARM_UP_PRINCIPAL);
      const result = (await execute({ schema, document, variableValues: variables, contextValue })) as {
        data?: unknown;
        errors?: readonly { message: string }[];
      };
      if (result.errors?.length) throw new Error(`${name}: ${result.errors[0]!.message}`);
      data = result.data;
    }
    return data;
  };

  const warm = async (): Promise<WarmUpReport> => {
    const started = Date.now();
    const failed: string[] = [];
    let documents = 0;
    const attempt = async (name: string, query: string, variables: Record<string, unknown>, counted = true) => {
      if (stopped) return undefined;
      if (counted) documents += 1;
      return run(name, query, variables).catch((err: unknown) => {
        failed.push(err instanceof Error ? err.message : name);
        deps.log.debug({ err, document: name }, 'console warm-up: a query failed');
        return undefined;
      });
    };
    const warmUp = readWarmUpDocuments(dir);
    const zone = 'UTC';
    // A host if there is one (it has the most neighbours), else any resource; none on an empty graph.
    type Picked = { nodes: { id: string; slug: string }[] };
    const found = (await attempt(
      'pick',
      `{ hosts: resources(filter: {kind: host}, first: 1) { nodes { id slug } }
      any: resources(first: 1) { nodes { id slug } } }`,
      {},
    )) as { hosts: Picked; any: Picked } | undefined;
    const picked = found?.hosts.nodes[0] ?? found?.any.nodes[0];
    const until = DateTime.utc();
    const values = {
      $zone: zone,
      ...(picked ? { $id: picked.id, $slug: picked.slug } : {}),
      $since: until.minus({ hours: 6 }).toISO(),
      $until: until.toISO(),
    };
    const todo = warmUp.filter((d) => d.scope === 'estate' || picked);
    // Passes until the shared statement is compiled in its final shape: a read text joins it on a
    // run after its first (src/graph/db/shared-statement.ts) and each join is a new UNION for Neo4j
    // to plan — measured 1.1–2.7 s for the first visitor when the warm-up stopped right after the
    // last join. The later passes find everything planned and take milliseconds.
    for (let pass = 0; pass < WARM_UP_PASSES && !stopped; pass += 1)
      for (const d of todo) await attempt(d.name, d.query, fill(d.variables, values), pass === 0);
    return { ms: Date.now() - started, documents, failed };
  };

  const done = warm().then(
    (report) => {
      deps.log.info(report, 'console queries warmed');
      return report;
    },
    (err: unknown) => {
      deps.log.warn({ err }, 'console warm-up failed');
      return { ms: 0, documents: 0, failed: ['warm-up'] };
    },
  );
  return {
    done,
    async stop() {
      stopped = true;
      await done;
    },
  };
}
