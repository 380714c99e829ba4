import type { Config } from '../config.js';
import { openGraph, type GraphHandle } from '../graph/db/driver.js';
import type { Logger } from '../log.js';

/** What every CLI command gets: parsed config, a logger, and a way to open the graph. */
export interface CliContext {
  config: Config;
  log: Logger;
  openGraph(): Promise<GraphHandle>;
  /** Human-facing output (progress, tables); logs stay JSON on stdout via `log`. */
  print(line: string): void;
}

/** A subcommand: `aitia <name> …`. Returns the process exit code. */
export interface CliCommand {
  name: string;
  summary: string;
  usage: string;
  /** Its stdout carries a protocol (`aitia mcp`): the JSON logs go to stderr instead. */
  stdoutIsProtocol?: boolean;
  run(args: string[], ctx: CliContext): Promise<number>;
}

/** Opens the graph the configuration names (NEO4J_URI, else the embedded one under AITIA_DATA_DIR). */
export function openConfiguredGraph(config: Config, log: Logger): Promise<GraphHandle> {
  const { uri, user, password, bounds } = config.neo4j;
  return openGraph(
    { external: uri ? { uri, user, password } : undefined, dataDir: config.dataDir, bounds },
    (msg, detail, level = 'info') => log[level](detail ?? {}, msg),
  );
}
