import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { CliCommand } from './context.js';

/** Reads the operation: the argument, a file with --file, or stdin when neither is given. */
function readOperation(positional: string | undefined, file: string | undefined): string {
  if (file) return readFileSync(file, 'utf8');
  if (positional) return positional;
  return readFileSync(0, 'utf8');
}

/**
 * `aitia query '<graphql>'`: sends one operation to a running aitia (AITIA_HOST:AITIA_PORT) with a
 * bearer token and prints the JSON answer, as an agent would see it. Exit 1 when it has errors.
 */
export const queryCommand: CliCommand = {
  name: 'query',
  summary: 'send one GraphQL operation to a running aitia and print the answer',
  usage: "aitia query [--token <t> | AITIA_TOKEN] [--variables '<json>'] [--file <f>] ['<graphql>' | stdin]",
  async run(args, ctx) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        token: { type: 'string' },
        variables: { type: 'string' },
        file: { type: 'string' },
        url: { type: 'string' },
      },
    });
    const token = values.token ?? ctx.config.token;
    if (!token) {
      ctx.print(
        'query: give a bearer token with --token or AITIA_TOKEN (npm start prints the agent token on first run)',
      );
      return 2;
    }
    let variables: unknown;
    try {
      variables = values.variables ? JSON.parse(values.variables) : undefined;
    } catch (err) {
      ctx.print(`--variables: not JSON (${(err as Error).message})`);
      return 2;
    }
    const host = ctx.config.host === '0.0.0.0' ? '127.0.0.1' : ctx.config.host;
    const url = values.url ?? `http://${host}:${ctx.config.port}/graphql`;
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: readOperation(positionals[0], values.file), variables }),
    });
    const body = (await res.json()) as { errors?: unknown[] };
    console.log(JSON.stringify(body, null, 2));
    return res.ok && !body.errors ? 0 : 1;
  },
};
