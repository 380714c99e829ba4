import { listNotificationDeliveries, queueNotificationReplay } from '../graph/notifications.js';
import { notFound } from '../model/index.js';
import type { NotificationDeliveryRecord, NotificationDeliveryStatus } from '../model/notifications.js';
import { audited } from './audit.js';
import type { ServiceDeps } from './deps.js';
import { assertCan, type Principal } from './permissions.js';

/**
 * The operators' view of notifications out: the deliveries kept after their retry budget (dead
 * letters) and their replay. A replay only queues the delivery; the leader's notifier sends it,
 * so one replica sends, with the same idempotency key the target may already have seen.
 */

/** Kept deliveries (operators), optionally of one target and one status. */
export async function notificationDeliveries(
  deps: Pick<ServiceDeps, 'driver'>,
  principal: Principal,
  filter: { target?: string | null; status?: NotificationDeliveryStatus | null },
): Promise<NotificationDeliveryRecord[]> {
  assertCan(principal, 'notification:read');
  const rows = await listNotificationDeliveries(deps.driver, {
    target: filter.target ?? null,
    status: filter.status ?? null,
    limit: 500,
  });
  return rows.map(({ message: _m, ...d }) => d);
}

/** Queues a kept delivery to be sent again (operators; audited). An unknown id is NOT_FOUND. */
export function replayNotification(
  deps: ServiceDeps,
  principal: Principal,
  input: { id: string },
): Promise<NotificationDeliveryRecord> {
  return audited(
    deps,
    principal,
    'replayNotification',
    [`notification:${input.id}`],
    async () => {
      assertCan(principal, 'notification:replay');
      const queued = await queueNotificationReplay(deps.driver, input.id, principal.name, new Date().toISOString());
      if (!queued) throw notFound('id', `notification delivery ${input.id}`);
      return queued;
    },
    (d) => `${d.event} to ${d.target}, ${d.attempts} attempts so far`,
    { args: input },
  );
}
