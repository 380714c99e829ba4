import {
  type ActorMappingSource,
  type ActorMappingEntry,
  resolveActorMapping,
  unknownPrincipalsWarning,
} from '../model/index.js';
import type { Logger } from '../log.js';
import type { TokenStore } from './token-store.js';

/*
 * The integrations file's `actors:` resolved against the tokens as they stand when asked: the
 * tokens file changes while aitia runs (a token added for the agent, one revoked), so each
 * observation pass resolves again. A principal no token is named keeps role null: its identity is
 * credited by name but never counted as an agent's.
 */

/** A source of the resolved mapping, read at each call (the correlation read calls it once per pass). */
export type { ActorMappingSource };

export function actorMappingSource(
  actors: readonly ActorMappingEntry[],
  tokens: Pick<TokenStore, 'list'> | undefined,
): ActorMappingSource {
  return () => resolveActorMapping(actors, actors.length === 0 ? [] : (tokens?.list() ?? []));
}

/** At start: warns once about principals of the mapping no token is named (resolved again at use). */
export function warnUnknownActorPrincipals(source: ActorMappingSource, log: Pick<Logger, 'warn'>): string | null {
  const resolved = source();
  const warning = unknownPrincipalsWarning(resolved);
  if (warning) log.warn({ unknownPrincipals: resolved.unknownPrincipals }, warning);
  return warning;
}
