import { createPubSub, type PubSubEventTarget, SlidingBuffer } from 'graphql-yoga';
import type { TransitionRecord } from '../model/index.js';

/** Topics of the transition bus and what each carries. */
type TransitionTopics = { transitionObserved: [TransitionRecord] };

/** The in-process bus between the observation pipeline (publishes) and `transitionObserved` subscribers. */
export interface TransitionBus {
  publish(transition: TransitionRecord): void;
  /** Every transition published from now on, until the iterator is returned. */
  subscribe(): AsyncIterableIterator<TransitionRecord>;
}

/**
 * A bus on graphql-yoga's createPubSub over one shared event target. Each subscriber gets its own
 * sliding buffer: a slow one drops its oldest undelivered transitions instead of overflowing
 * (a shared buffer instance, or none, would let one stalled agent fail the publishing poll).
 * One per process, created at start and passed to the pipeline and the API; never a singleton.
 */
export function createTransitionBus(): TransitionBus {
  const target = new EventTarget() as unknown as PubSubEventTarget<TransitionTopics>;
  const publisher = createPubSub<TransitionTopics>({ eventTarget: target });
  return {
    publish: (transition) => publisher.publish('transitionObserved', transition),
    subscribe: () =>
      createPubSub<TransitionTopics>({ eventTarget: target, repeaterBuffer: new SlidingBuffer(256) }).subscribe(
        'transitionObserved',
      ) as AsyncIterableIterator<TransitionRecord>,
  };
}
