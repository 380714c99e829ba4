import type { Driver } from 'neo4j-driver';
import type { Logger } from '../log.js';
import { type LeaseSettings, runUnderLease } from '../scheduler/lease-keeper.js';
import type { IntegrationsSpec } from './integrations-file.js';
import { type NotifierOptions, startNotifier } from './notifier.js';

/**
 * The notifier as a leader-only loop, beside the pollers and the health scheduler: it runs only
 * while this replica holds the `notifier` lease, through the term's fenced driver, so one replica
 * delivers and a replica that lost the lease writes no cursor. No targets: nothing runs.
 */

export const NOTIFIER_LEASE = 'notifier';

export function startNotifications(options: {
  driver: Driver;
  integrations: IntegrationsSpec;
  publicUrl: string;
  lease: LeaseSettings;
  log: Logger;
  /** This process's feed bus: a new entry wakes the notifier instead of its next poll. */
  wake?: NotifierOptions['wake'];
  tuning?: Pick<NotifierOptions, 'retry' | 'pollMs' | 'timeoutMs' | 'batch' | 'random'>;
}): { stop(): Promise<void> } {
  const { integrations, log } = options;
  if (integrations.notifications.length === 0) return { stop: async () => {} };
  log.info(
    { targets: integrations.notifications.map((t) => t.name) },
    'notifications: delivering the feed (leader only)',
  );
  return runUnderLease({
    driver: options.driver,
    name: NOTIFIER_LEASE,
    lease: options.lease,
    log,
    start: (driver) =>
      startNotifier({
        driver,
        targets: integrations.notifications,
        publicUrl: options.publicUrl,
        log,
        wake: options.wake,
        ...options.tuning,
      }),
  });
}
