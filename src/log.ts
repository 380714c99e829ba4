import { pino, type Logger } from 'pino';

/** JSON-lines logger on stdout (DESIGN.md "Conventions"), or on stderr where stdout carries a protocol. */
export function createLogger(level: string = 'info', to: 'stdout' | 'stderr' = 'stdout'): Logger {
  const options = { level, base: { service: 'aitia' }, timestamp: pino.stdTimeFunctions.isoTime };
  return to === 'stderr' ? pino(options, pino.destination(2)) : pino(options);
}
export type { Logger };
