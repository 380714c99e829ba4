import { z } from 'zod';
import type { Kind } from './kinds.js';

/**
 * The closed state vocabulary of each kind. Every enum has `unknown`: a provider word we cannot
 * map becomes `unknown` (with the word kept in `rawState`), never an error and never dropped.
 */
export const STATES = {
  cluster: ['online', 'degraded', 'offline', 'unreachable', 'unknown'],
  host: ['online', 'offline', 'maintenance', 'unreachable', 'unknown'],
  vm: [
    'running',
    'stopped',
    'paused',
    'suspended',
    'paused_io_error',
    'migrating',
    'crashed',
    'unreachable',
    'unknown',
  ],
  lxc: ['running', 'stopped', 'frozen', 'unknown'],
  storage: ['available', 'unavailable', 'disabled', 'unknown'],
  network: ['up', 'down', 'unknown'],
  service: ['up', 'down', 'unknown'],
} as const satisfies Record<Kind, readonly [string, ...string[]]>;

export type StateOf<K extends Kind> = (typeof STATES)[K][number];
/** Any state of any kind; narrow with {@link isStateOf}. */
export type AnyState = StateOf<Kind>;

/** One zod enum per kind, built from {@link STATES}. */
export const StateSchemas = {
  cluster: z.enum(STATES.cluster),
  host: z.enum(STATES.host),
  vm: z.enum(STATES.vm),
  lxc: z.enum(STATES.lxc),
  storage: z.enum(STATES.storage),
  network: z.enum(STATES.network),
  service: z.enum(STATES.service),
} satisfies { [K in Kind]: z.ZodEnum };

/** True when `state` belongs to `kind`'s closed enum. */
export function isStateOf<K extends Kind>(kind: K, state: string): state is StateOf<K> {
  return (STATES[kind] as readonly string[]).includes(state);
}
