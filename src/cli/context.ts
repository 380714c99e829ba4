import type { Config } from '../config.js';
import type { GraphHandle } from '../graph/connect.js';
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
  run(args: string[], ctx: CliContext): Promise<number>;
}
