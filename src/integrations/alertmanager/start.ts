import type { Driver } from 'neo4j-driver';
import type { Logger } from '../../log.js';
import type { LoadedPolicy } from '../../policy/startup.js';
import type { LeaseSettings } from '../../scheduler/lease-keeper.js';
import type { AlertmanagerSpec } from '../integrations-file.js';
import { createAlertmanagerClient } from './client.js';
import { startLeaderSilencer } from './silencer.js';

/**
 * What `aitia serve` starts for the integrations file's `alertmanager:` section: the silencer on
 * the leader replica, its silences lasting the policy's attribution.respect_intent_seconds.
 * Nothing without the section. Wired in src/cli/serve.ts beside startNotifications:
 * `const silencing = startAlertmanagerSilencing({ driver: graph.driver, log, spec: integrations.alertmanager, policy, lease });`
 * and `await silencing.stop();` after `await notifications.stop();`.
 */
export function startAlertmanagerSilencing(options: {
  driver: Driver;
  log: Logger;
  spec: AlertmanagerSpec | null;
  policy: LoadedPolicy;
  lease: LeaseSettings;
}): { stop(): Promise<void> } {
  const { spec } = options;
  if (!spec) return { stop: async () => undefined };
  const client = createAlertmanagerClient(spec);
  options.log.info(
    { url: spec.url, labels: spec.labels, silenceDependents: spec.silenceDependents },
    'alertmanager: silences for intentional changes (leader replica only)',
  );
  const loop = startLeaderSilencer({
    driver: options.driver,
    log: options.log,
    client,
    config: spec,
    respectIntentSeconds: () => options.policy.policy.attribution.respect_intent_seconds,
    lease: options.lease,
  });
  return {
    async stop() {
      await loop.stop();
      client.close();
    },
  };
}
