import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { AitiaError } from '../model/index.js';
import { packageVersion } from '../package-root.js';
import { createFeedBus } from '../pipeline/bus.js';
import type { ServiceDeps } from '../services/deps.js';
import { isoSeconds, TokenStore } from '../services/token-store.js';
import {
  cliPrincipal,
  createToken,
  listTokens,
  parseCreateTokenInput,
  revokeToken,
  type TokenInfo,
} from '../services/tokens.js';
import type { CliCommand, CliContext } from './context.js';

const USAGE = [
  'aitia tokens add --name <name> --role agent|scheduler|ingester|operator [--owner <person>] [--expires-at <ISO-8601> | --expires-in <N>d|h]',
  'aitia tokens list',
  'aitia tokens revoke --name <name>',
].join('\n');

/** `--expires-in 90d` / `12h` as an ISO-8601 instant after `now`; null when it is not of that form. */
export function expiryFromDuration(text: string, now: Date): string | null {
  const m = /^(\d{1,5})([dh])$/.exec(text.trim());
  if (!m) return null;
  const hours = Number(m[1]) * (m[2] === 'd' ? 24 : 1);
  if (hours === 0) return null;
  return isoSeconds(new Date(now.getTime() + hours * 3_600_000));
}

/** The account running the command, as the audit log names it. */
function localUser(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid ${process.getuid?.() ?? 'unknown'}`;
  }
}

/** A service error about `input.expiresAt` speaks of the flag the user typed, `--expires-at`. */
function asFlags(err: unknown): unknown {
  if (!(err instanceof AitiaError)) return err;
  const flag = (f: string) => `--${f.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  return new AitiaError(
    err.code,
    err.message.replace(/^(?:input\.)?(\w+):/, (_m, f: string) => `${flag(f)}:`),
    {
      cause: err,
    },
  );
}

function table(tokens: TokenInfo[]): string[] {
  const rows = [
    ['NAME', 'ROLE', 'OWNER', 'CREATED', 'EXPIRES'],
    ...tokens.map((t) => [
      t.name,
      t.role,
      t.owner,
      t.createdAt ?? '-',
      t.expiresAt ? `${t.expiresAt}${t.expired ? ' (expired)' : ''}` : 'never',
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
}

/**
 * Opens the graph for the audit line (every change to the tokens is audited), runs `fn` with the
 * service deps over the tokens file, and closes the graph.
 */
async function withServiceDeps<T>(ctx: CliContext, fn: (deps: ServiceDeps) => Promise<T>): Promise<T> {
  const tokens = new TokenStore(ctx.config.tokensFile);
  const graph = await ctx.openGraph();
  try {
    return await fn({
      driver: graph.driver,
      log: ctx.log,
      version: packageVersion(),
      policy: undefined,
      bus: createFeedBus(),
      tokens,
    });
  } finally {
    await graph.close();
  }
}

/**
 * `aitia tokens add|list|revoke`: the tokens file (AITIA_TOKENS_FILE), which a running service
 * re-reads within a second. A new token is printed once; only its hash is stored. Changes are
 * audited, as `cli:<local user>`, so they need the graph (a running aitia's embedded Neo4j is shared).
 */
export const tokensCommand: CliCommand = {
  name: 'tokens',
  summary: 'add, list or revoke bearer tokens (the tokens file; a running service picks changes up without a restart)',
  usage: USAGE,
  async run(args, ctx) {
    const { positionals, values } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        name: { type: 'string' },
        role: { type: 'string' },
        owner: { type: 'string' },
        'expires-at': { type: 'string' },
        'expires-in': { type: 'string' },
      },
    });
    const sub = positionals[0];
    const principal = cliPrincipal(localUser());
    if (sub === 'list' && positionals.length === 1) {
      const tokens = listTokens({ tokens: new TokenStore(ctx.config.tokensFile) }, principal);
      ctx.print(`${tokens.length} token${tokens.length === 1 ? '' : 's'} in ${ctx.config.tokensFile}`);
      for (const line of table(tokens)) ctx.print(line);
      return 0;
    }
    if (sub === 'add' && values.name && values.role && positionals.length === 1) {
      if (values['expires-at'] && values['expires-in']) {
        ctx.print('--expires-at, --expires-in: give one of them');
        return 2;
      }
      let expiresAt = values['expires-at'];
      if (values['expires-in']) {
        expiresAt = expiryFromDuration(values['expires-in'], new Date()) ?? undefined;
        if (!expiresAt) {
          ctx.print(`--expires-in: ${JSON.stringify(values['expires-in'])} is not a duration like 90d or 12h`);
          return 2;
        }
      }
      const input = { name: values.name, role: values.role, expiresAt, owner: values.owner };
      try {
        // Checked before the graph opens: a typo is answered at once.
        parseCreateTokenInput(input, new Date());
      } catch (err) {
        throw asFlags(err);
      }
      const { token, tokenInfo } = await withServiceDeps(ctx, (deps) =>
        createToken(deps, principal, input).catch((err: unknown) => Promise.reject(asFlags(err))),
      );
      const expiry = tokenInfo.expiresAt ? `, expires ${tokenInfo.expiresAt}` : '';
      const owner = tokenInfo.owner === tokenInfo.name ? '' : `, owner ${tokenInfo.owner}`;
      ctx.print(
        `added ${tokenInfo.name} (${tokenInfo.role}${owner}${expiry}) to ${ctx.config.tokensFile}; token (shown once):`,
      );
      ctx.print(token);
      return 0;
    }
    const name = values.name ?? positionals[1];
    if (sub === 'revoke' && name && positionals.length <= 2) {
      const revoked = await withServiceDeps(ctx, (deps) =>
        revokeToken(deps, principal, { name }).catch((err: unknown) => Promise.reject(asFlags(err))),
      );
      ctx.print(
        `revoked ${revoked.name} (${revoked.role}): removed from ${ctx.config.tokensFile}; a running service refuses it within a second`,
      );
      return 0;
    }
    ctx.print(`usage: ${USAGE.split('\n').join('\n       ')}`);
    return 2;
  },
};
