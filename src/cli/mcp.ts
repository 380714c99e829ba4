import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createMcpServer } from '../mcp/server.js';
import { packageVersion } from '../package-root.js';
import { createFeedBus } from '../pipeline/bus.js';
import { loadStartupPolicy } from '../policy/startup.js';
import { TokenStore } from '../services/token-store.js';
import type { CliCommand } from './context.js';

/**
 * `aitia mcp`: the MCP tools over stdio for one agent, whose bearer token is AITIA_TOKEN (checked
 * against the tokens file before anything opens). It answers until the client closes stdin; stdout
 * carries only the protocol, so logs go to stderr. The graph is NEO4J_URI's, or the embedded Neo4j
 * a running `aitia serve` shares under AITIA_DATA_DIR (or one it starts).
 */
export const mcpCommand: CliCommand = {
  name: 'mcp',
  summary: 'serve the MCP tools over stdio to one agent (its token in AITIA_TOKEN); logs go to stderr',
  usage: 'AITIA_TOKEN=<token> aitia mcp',
  stdoutIsProtocol: true,
  async run(args, ctx) {
    try {
      parseArgs({ args, options: {}, allowPositionals: false });
    } catch (err) {
      ctx.print(`aitia mcp: ${(err as Error).message}\nusage: ${this.usage}`);
      return 2;
    }
    const { config, log } = ctx;
    if (!config.token) {
      ctx.print(
        'aitia mcp: no token: set AITIA_TOKEN to your bearer token (`aitia tokens add --name <name> --role agent` prints a new one)',
      );
      return 2;
    }
    if (!existsSync(config.tokensFile)) {
      ctx.print(
        `aitia mcp: no tokens file at ${config.tokensFile} (AITIA_TOKENS_FILE): start \`aitia serve\` once or add a token with \`aitia tokens add\``,
      );
      return 2;
    }
    const tokens = new TokenStore(config.tokensFile);
    const principal = tokens.authenticate(config.token);
    if (!principal) {
      ctx.print(
        `aitia mcp: AITIA_TOKEN is not a token of ${config.tokensFile} (unknown bearer token): use the token printed when it was added, or add one with \`aitia tokens add\``,
      );
      return 1;
    }
    const policy = await loadStartupPolicy(config.policyFile);
    const graph = await ctx.openGraph();
    const deps = {
      driver: graph.driver,
      log,
      version: packageVersion(),
      policy,
      clockSkewSeconds: config.clockSkewSeconds,
      bus: createFeedBus(),
      // Approvals compare requester and approver by the person their tokens belong to.
      tokens,
    };
    const ended = new Promise<void>((resolve) => {
      process.stdin.once('end', resolve);
      process.stdin.once('close', resolve);
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    // One session, one principal: the factory serves this connection (and a discarded era probe).
    const session = serveStdio(() => createMcpServer(deps, principal), {
      onerror: (err) => log.warn({ err }, 'MCP stdio error'),
    });
    log.info(
      { principal: principal.name, role: principal.role, neo4j: graph.uri, via: graph.via },
      'aitia mcp on stdio',
    );
    await ended;
    await session.close();
    await graph.close();
    return 0;
  },
};
