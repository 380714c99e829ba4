import { toMillis } from './timing.js';

/** How a past state was derived; `unknown` when aitia was not watching yet. */
export type StateAtBasis = 'transition' | 'before_first_transition' | 'current_state' | 'unknown';

export interface StateAtAnswer {
  state: string;
  basis: StateAtBasis;
  /** The transition the answer rests on, when one does. */
  transitionId: string | null;
  reason: string;
}

/** A stored transition as far as the history needs it. */
export interface HistoryTransition {
  id: string;
  from: string;
  to: string;
  observedAt: string;
}

/**
 * A resource's state at `at` from its transition history, without inventing one:
 * 1. the `to` of the last transition observed at or before `at`;
 * 2. before the first transition: that transition's `from`, if `at` is at or after the resource's
 *    first sighting (aitia saw it in that state from then until the change);
 * 3. no transitions at all: the current state, if `at` is at or after the first sighting (nothing
 *    changed since);
 * 4. otherwise `unknown`: before aitia first saw the resource there is no record of it.
 * States are as observed by polls: a change between two polls is dated by the later poll.
 */
export function stateAt(input: {
  at: string;
  lastAtOrBefore: HistoryTransition | null;
  first: HistoryTransition | null;
  current: { state: string; firstSeen: string | null };
}): StateAtAnswer {
  const { lastAtOrBefore: last, first, current } = input;
  if (last) {
    return {
      state: last.to,
      basis: 'transition',
      transitionId: last.id,
      reason: `the last transition at or before then (${last.from} → ${last.to} observed ${last.observedAt}) left it ${last.to}`,
    };
  }
  const atMs = toMillis(input.at);
  const seenMs = toMillis(current.firstSeen);
  const watching = atMs !== null && seenMs !== null && atMs >= seenMs;
  if (!watching) {
    const since = current.firstSeen ? `first seen ${current.firstSeen}` : 'no first sighting recorded';
    return {
      state: 'unknown',
      basis: 'unknown',
      transitionId: null,
      reason: `before aitia first saw the resource (${since}) there is no record of its state`,
    };
  }
  if (first) {
    return {
      state: first.from,
      basis: 'before_first_transition',
      transitionId: first.id,
      reason: `seen since ${current.firstSeen} and unchanged until the first transition (${first.from} → ${first.to} observed ${first.observedAt})`,
    };
  }
  return {
    state: current.state,
    basis: 'current_state',
    transitionId: null,
    reason: `seen since ${current.firstSeen} with no transition recorded: the current state`,
  };
}
