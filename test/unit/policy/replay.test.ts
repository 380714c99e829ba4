import { describe, expect, it } from 'vitest';
import type { AutonomyState } from '../../../src/model/index.js';
import {
  classifyAction,
  recordOf,
  replayDecision,
  type ActionRequest,
  type RateFacts,
} from '../../../src/policy/index.js';
import { DEFAULT, target, TRUSTING, variant } from './helpers.js';

const LIMITED = variant((doc) => {
  doc.autonomy_settings.global.auto_act = 'reversible_low';
  doc.cooldowns = { restart: 120 };
  doc.breaker = { max_auto_actions: 5, window_seconds: 600 };
});

const SLUGS = ['service:cache', 'service:dns', 'vm:web01', 'lxc:ct1', 'host:pve1', 'storage:local', 'service:new'];
const ACTIONS = ['restart', 'stop', 'start', 'destroy', 'run', 'cache_clear', 'reconfigure', 'snapshot', 'get'];
const COMMANDS = [
  'systemctl restart nginx',
  'mysql --password hunter2 -e "drop table x"',
  'rm -rf /var/lib/x',
  'curl -H "Authorization: Bearer abc" http://x',
  'ls',
];
const LIFECYCLES = ['active', 'provisioning', 'deprecated', 'missing', 'destroyed'] as const;
const halt: AutonomyState = {
  mode: 'halt',
  setBy: 'op',
  setAt: '2026-05-14T01:00:00Z',
  reason: 'incident',
  breakerOpenedAt: null,
  breakerReason: null,
};

/** The i-th of a deterministic spread of questions over targets, actions, params, commands and facts. */
function question(i: number): ActionRequest {
  const slug = SLUGS[i % SLUGS.length]!;
  const action = ACTIONS[(i * 7) % ACTIONS.length]!;
  const rate: RateFacts = {
    last: i % 5 === 0 ? { id: `auth-${i}`, at: '2026-05-14T02:09:00Z', principal: 'agent', source: 'auto' } : null,
    autoCount: i % 11,
    breakerOpenedAt: i % 13 === 0 ? '2026-05-14T01:00:00Z' : null,
    breakerReason: i % 13 === 0 ? 'tripped' : null,
  };
  return {
    target: target(slug, {
      lifecycle: LIFECYCLES[(i * 3) % LIFECYCLES.length],
      state: i % 2 === 0 ? 'running' : 'stopped',
      attributes: i % 4 === 0 ? { qemu_guest_agent: 'running', api_token: 'zzz' } : {},
      observations: i % 8 === 0 ? { qemu_guest_agent: 'running' } : {},
    }),
    action,
    params: i % 3 === 0 ? { count: i % 7, force: i % 6 === 0, password: 'p4ss' } : {},
    command: action === 'run' || i % 9 === 0 ? COMMANDS[i % COMMANDS.length]! : null,
    ...(i % 8 === 0 ? { targets: ['a', 'b', 'c', 'd', 'e'].slice(0, i % 6) } : {}),
    declaredRiskClass: i % 17 === 0 ? 'destructive' : null,
    at: '2026-05-14T02:10:00Z',
    autonomyState: i % 19 === 0 ? halt : null,
    rate,
  };
}

describe('replaying recorded decisions', () => {
  it('1,000 recorded decisions replay identically, with no secret stored', () => {
    const policies = [DEFAULT, TRUSTING, LIMITED];
    let differing = 0;
    for (let i = 0; i < 1000; i++) {
      const { policy, digest } = policies[i % policies.length]!;
      const request = question(i);
      // Stored and read back as the graph would: strings only.
      const stored = JSON.parse(JSON.stringify(recordOf(request, classifyAction(policy, digest, request))));
      expect(JSON.stringify(stored)).not.toMatch(/hunter2|p4ss|zzz|Bearer abc/);
      const replayed = replayDecision(policy, digest, stored);
      if (!replayed.identical) differing++;
      expect(replayed.samePolicy).toBe(true);
    }
    expect(differing).toBe(0);
  });

  it('a record from before observations were kept apart replays on the facts it read (its attributes)', () => {
    const request: ActionRequest = {
      target: target('vm:web01', { attributes: { qemu_guest_agent: 'running' } }),
      action: 'run',
      command: 'uptime',
      at: '2026-05-14T02:10:00Z',
    };
    // Then the preflight read attributes: the decision passed it.
    const then = classifyAction(TRUSTING.policy, TRUSTING.digest, {
      ...request,
      target: { ...request.target, observations: { qemu_guest_agent: 'running' } },
    });
    expect(then.preflight).toMatchObject([{ ok: true }]);
    const stored = recordOf(request, then);
    const old = { ...stored, target: JSON.stringify({ ...JSON.parse(stored.target), observations: undefined }) };
    expect(old.target).not.toMatch(/observations/);
    expect(replayDecision(TRUSTING.policy, TRUSTING.digest, old).identical).toBe(true);
    // A record made now keeps the observations it read (none): the preflight fails again on replay.
    const now = recordOf(request, classifyAction(TRUSTING.policy, TRUSTING.digest, request));
    expect(JSON.parse(now.target).observations).toEqual({});
    expect(replayDecision(TRUSTING.policy, TRUSTING.digest, now)).toMatchObject({ identical: true });
    expect(replayDecision(TRUSTING.policy, TRUSTING.digest, now).decision.preflight).toMatchObject([{ ok: false }]);
  });

  it('names what differs when the policy in force is another', () => {
    const request: ActionRequest = { target: target('service:cache'), action: 'restart', at: '2026-05-14T02:10:00Z' };
    const stored = recordOf(request, classifyAction(DEFAULT.policy, DEFAULT.digest, request));
    const replayed = replayDecision(TRUSTING.policy, TRUSTING.digest, stored);
    expect(replayed).toMatchObject({ identical: false, samePolicy: false });
    expect(replayed.differences).toContain('autonomy');
  });
});
