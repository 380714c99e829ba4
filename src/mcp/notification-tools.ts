import { z } from 'zod';
import * as G from '../generated/mcp-inputs.js';
import { NOTIFICATION_DELIVERY_STATUSES } from '../model/notifications.js';
import { notificationDeliveries, replayNotification } from '../services/notifications.js';
import { Time } from './records.js';
import { defineTool, READ, RECORD } from './tool.js';

/*
 * The tools of notifications out, for operators: the deliveries kept after their retry budget
 * (dead letters) and their replay, which the leader replica sends with the same idempotency key.
 */

const DeliveryOut = z.object({
  id: z.string().describe('The idempotency key the target got: <target>:<feed sequence>.'),
  target: z.string(),
  seq: z.number().int(),
  event: z.string(),
  resourceId: z.string(),
  status: z.enum(NOTIFICATION_DELIVERY_STATUSES),
  attempts: z.number().int(),
  lastError: z.string(),
  at: Time,
  replayRequestedBy: z.string().nullable(),
  replayRequestedAt: Time.nullable(),
  replayedAt: Time.nullable(),
});

export const notificationDeliveriesTool = defineTool({
  name: 'notification_deliveries',
  title: 'Notifications that did not go through',
  description:
    'Operators only. Notification deliveries kept after their retry budget (dead letters), queued for replay or replayed, by target and sequence; optionally of one target and one status.',
  permission: 'notification:read',
  graphql: 'Query.notificationDeliveries',
  input: G.QueryNotificationDeliveriesArgs,
  output: z.object({ deliveries: z.array(DeliveryOut) }),
  annotations: READ,
  narrow: 'target',
  run: async (deps, principal, input) => ({ deliveries: await notificationDeliveries(deps, principal, input) }),
});

export const replayNotificationTool = defineTool({
  name: 'replay_notification',
  title: 'Send a notification again',
  description:
    'Operators only. Queues a kept delivery (its id from notification_deliveries) to be sent again with its idempotency key; the leader replica sends it and marks it replayed on a 2xx. Audited.',
  permission: 'notification:replay',
  graphql: 'Mutation.replayNotification',
  input: G.MutationReplayNotificationArgs,
  output: z.object({ delivery: DeliveryOut }),
  annotations: RECORD,
  run: async (deps, principal, input) => ({ delivery: await replayNotification(deps, principal, input) }),
});
