import { embeddedFiles } from '../graph/db/driver.js';
import { resolveClasspath } from '../graph/embedded/classpath.js';
import { startSupervisedNeo4j } from '../graph/embedded/supervisor.js';
import type { CliCommand } from './context.js';

/** `aitia neo4j prepare|start`: build the embedded launcher (Maven, cached) or run it alone, supervised. */
export const neo4jCommand: CliCommand = {
  name: 'neo4j',
  summary: 'prepare (download + compile, cached) or start the embedded Neo4j',
  usage: 'aitia neo4j prepare | aitia neo4j start',
  async run(args, ctx) {
    const sub = args[0];
    if (sub === 'prepare') {
      const started = Date.now();
      const cp = resolveClasspath({ log: (m) => ctx.print(m) });
      ctx.print(
        `embedded Neo4j ready to start: ${cp.split(':').length} classpath entries (${((Date.now() - started) / 1000).toFixed(1)} s)`,
      );
      return 0;
    }
    if (sub === 'start') {
      const { home, passwordFile } = embeddedFiles(ctx.config.dataDir);
      // Supervised as under `aitia serve`: restarted when it dies or freezes.
      const neo = await startSupervisedNeo4j({ dataDir: home, passwordFile, log: (m) => ctx.print(m) });
      ctx.print(`${neo.uri} as user ${neo.user}, password in ${neo.passwordFile} (Ctrl-C to stop)`);
      await new Promise<void>((r) => {
        process.once('SIGINT', r);
        process.once('SIGTERM', r);
      });
      await neo.stop();
      return 0;
    }
    ctx.print(`usage: ${this.usage}`);
    return 2;
  },
};
