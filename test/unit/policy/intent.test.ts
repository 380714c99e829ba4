import { describe, expect, it } from 'vitest';
import { classifyAction, respectIntent, type LastChangeFact } from '../../../src/policy/index.js';
import { DEFAULT, target, TRUSTING, variant } from './helpers.js';

const stop = (over: Partial<LastChangeFact> = {}): LastChangeFact => ({
  transitionId: 'proxmox:lab/qemu/101#running>stopped@1778724511000',
  from: 'running',
  to: 'stopped',
  observedAt: '2026-05-14T02:08:31Z',
  confidence: 'high',
  actor: 'alice@pve',
  actorKind: 'human',
  cause: 'task qmstop UPID:pve1:001A2B01:00A1B2C3:6A052E9D:qmstop:101:alice@pve:',
  ...over,
});
const web01 = (change: LastChangeFact | null, state = 'stopped') => target('vm:web01', { state, lastChange: change });
const at = (minutes: number) =>
  `2026-05-14T${String(2 + Math.floor((8 + minutes) / 60)).padStart(2, '0')}:${String((8 + minutes) % 60).padStart(2, '0')}:31Z`;

describe('respecting intent (attribution.respect_intent_seconds, default 3600)', () => {
  it.each([
    ['start two minutes after a person stopped it', 'start', stop(), at(2), true],
    ['restart', 'restart', stop(), at(2), true],
    ['resume', 'resume', stop({ to: 'paused' }), at(2), true],
    ['migrate', 'migrate', stop(), at(2), true],
    ['exactly at the window’s end', 'start', stop(), at(60), true],
    ['after the window', 'start', stop(), at(61), false],
    ['an API token is a principal', 'start', stop({ actor: 'ops@pve!deploy', actorKind: 'api_token' }), at(2), true],
    ['an HA request credited to a user', 'start', stop({ actorKind: 'ha_manager' }), at(2), true],
    ['medium confidence is not intent', 'start', stop({ confidence: 'medium' }), at(2), false],
    ['the system is nobody', 'start', stop({ actor: 'root@pam', actorKind: 'system' }), at(2), false],
    ['no actor', 'start', stop({ actor: null, actorKind: null, confidence: 'none' }), at(2), false],
    ['not a remediation', 'apt-upgrade', stop(), at(2), false],
    ['a question from before the change', 'start', stop(), '2026-05-14T02:00:00Z', false],
  ])('%s', (_title, action, change, asked, escalates) => {
    const reason = respectIntent(DEFAULT.policy, web01(change), action, asked);
    if (!escalates) {
      expect(reason).toBeNull();
      return;
    }
    expect(reason).toContain(`by ${change.actor}`);
    expect(reason).toContain(change.cause!);
    expect(reason).toContain('2026-05-14 02:08:31 UTC');
    expect(reason).toMatch(/respect_intent_seconds \(3600 s\)/);
  });

  it('is off with respect_intent_seconds: 0', () => {
    const off = variant((doc) => {
      doc.attribution.respect_intent_seconds = 0;
    });
    expect(respectIntent(off.policy, web01(stop()), 'start', at(2))).toBeNull();
  });
});

describe('the gate reads intent', () => {
  it('an auto start of a VM a person just stopped escalates, naming who, which task and when', () => {
    const d = classifyAction(TRUSTING.policy, TRUSTING.digest, { target: web01(stop()), action: 'start', at: at(2) });
    expect(d).toMatchObject({ riskClass: 'reversible_low', autonomy: 'escalate', approval: 'operator' });
    expect(d.reasons.at(-1)).toMatch(
      /^intent: vm:web01 went running → stopped at 2026-05-14 02:08:31 UTC, 120 s ago, by alice@pve \(task qmstop UPID:.*\).*\(auto → escalate\)$/,
    );
    expect(d.facts).toEqual({ lifecycle: 'active', state: 'stopped', lastChange: stop(), at: at(2) });
  });

  it('after the window the rule applies again: starting a stopped VM is auto', () => {
    const d = classifyAction(TRUSTING.policy, TRUSTING.digest, { target: web01(stop()), action: 'start', at: at(90) });
    expect(d.autonomy).toBe('auto');
    expect(d.reasons.some((r) => r.startsWith('intent:'))).toBe(false);
  });

  it('never stays never, and the same question replays to the same answer', () => {
    const q = { target: web01(stop()), action: 'destroy', at: at(2) };
    expect(classifyAction(TRUSTING.policy, TRUSTING.digest, q).autonomy).toBe('never');
    const restart = { target: web01(stop()), action: 'restart', at: at(2) };
    expect(classifyAction(TRUSTING.policy, TRUSTING.digest, restart)).toEqual(
      classifyAction(TRUSTING.policy, TRUSTING.digest, restart),
    );
  });
});
