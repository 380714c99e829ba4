import { pino, type Logger } from 'pino';

/** JSON-lines logger on stdout (DESIGN.md "Conventions"). */
export function createLogger(level: string = 'info'): Logger {
  return pino({ level, base: { service: 'aitia' }, timestamp: pino.stdTimeFunctions.isoTime });
}
export type { Logger };
