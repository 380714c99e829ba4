import { parseArgs } from 'node:util';
import { configuredIntegrations } from '../integrations/integrations-file.js';
import type { NotificationMessage } from '../integrations/notification-events.js';
import { sendNotification } from '../integrations/send.js';
import type { CliCommand } from './context.js';

const USAGE = 'aitia notify test <target>';

/** The sample sent: a condition opened on a made-up VM, with the narrative a real one carries. */
export function sampleNotification(at: string): NotificationMessage {
  return {
    seq: 0,
    event: 'condition.opened',
    at,
    resourceId: 'sample:vm/aitia-notify-test',
    payload: {
      sample: true,
      condition: { id: 'sample', type: 'unexpected_stop', status: 'open', openedAt: at, resolvedAt: null },
      cause: null,
      expected: false,
      suppressed: false,
      suppressionReasons: [],
      narrative: 'a sample from aitia notify test — cause unknown',
    },
  };
}

/**
 * `aitia notify test <target>`: sends one signed sample to a target of the integrations file
 * (AITIA_INTEGRATIONS_FILE) and prints the status and the answer's body, so an operator sees
 * whether the receiver takes aitia's signature before a real notification depends on it. Its
 * idempotency key is `<target>:test-<ms>`, new each run. Exits 0 on a 2xx, 1 otherwise, 2 on bad
 * arguments or configuration.
 */
export const notifyCommand: CliCommand = {
  name: 'notify',
  summary: 'send one signed sample notification to a target of the integrations file',
  usage: USAGE,
  async run(args, ctx) {
    const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
    const [verb, name] = positionals;
    if (verb !== 'test' || !name || positionals.length !== 2) {
      ctx.print(`usage: ${USAGE}`);
      return 2;
    }
    const { notifications } = configuredIntegrations(ctx.config);
    const target = notifications.find((t) => t.name === name);
    if (!target) {
      const known = notifications.map((t) => t.name).join(', ') || 'none';
      ctx.print(`${name}: no such notification target in AITIA_INTEGRATIONS_FILE (targets: ${known})`);
      return 2;
    }
    const now = Date.now();
    const key = `${target.name}:test-${now}`;
    try {
      const answer = await sendNotification(target, sampleNotification(new Date(now).toISOString()), {
        publicUrl: ctx.config.publicUrl,
        timeoutMs: 10_000,
        nowMs: now,
        key,
      });
      ctx.print(`${target.name} (${target.kind} ${target.url}): HTTP ${answer.status} — Idempotency-Key ${key}`);
      if (answer.body !== '') ctx.print(answer.body);
      return answer.status >= 200 && answer.status < 300 ? 0 : 1;
    } catch (err) {
      ctx.print(`${target.name} (${target.kind} ${target.url}): not delivered: ${(err as Error).message}`);
      return 1;
    }
  },
};
