import type { CliCommand } from './context.js';
import { eventsCommand } from './events.js';
import { ingestCommand } from './ingest.js';
import { mcpCommand } from './mcp.js';
import { neo4jCommand } from './neo4j.js';
import { notifyCommand } from './notify.js';
import { queryCommand } from './query.js';
import { serveCommand } from './serve.js';
import { tokensCommand } from './tokens.js';

/** Every subcommand, in the order `aitia --help` lists them. */
export const COMMANDS: CliCommand[] = [
  serveCommand,
  queryCommand,
  mcpCommand,
  ingestCommand,
  eventsCommand,
  tokensCommand,
  notifyCommand,
  neo4jCommand,
];
