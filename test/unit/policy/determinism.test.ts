import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { LIFECYCLES, KINDS } from '../../../src/model/kinds.js';
import {
  classifyAction,
  ENTITY_TYPES,
  parsePolicy,
  RISK_CLASSES,
  type ActionRequest,
} from '../../../src/policy/index.js';
import { DEFAULT, DEFAULT_YAML, TRUSTING } from './helpers.js';

/** A small seeded PRNG (mulberry32): the generated inputs are the same on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ACTIONS = [
  'restart',
  'run',
  'destroy',
  'reboot',
  'apt-upgrade',
  'cache-clear',
  'db-wipe',
  'unmonitored',
  'change',
  'frobnicate',
  'wipe_all',
  'Format-Disk',
  'migrate',
];
const COMMANDS = [
  'uptime',
  'apt-get install -y nfs-kernel-server',
  'rm -rf /',
  'ps aux | grep x',
  'echo uptime | sh',
  'sudo systemctl enable x',
  '',
];
const NAMES = ['web', 'dns', 'sso', 'reverse-proxy', 'db'];

function generate(random: () => number): ActionRequest {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const kind = pick(KINDS);
  const name = pick(NAMES);
  const params: Record<string, unknown> = {};
  if (random() < 0.3) params.count = Math.floor(random() * 4);
  if (random() < 0.2) params.memory = Math.floor(random() * 40000);
  if (random() < 0.2) params.disk = Math.floor(random() * 1000);
  if (random() < 0.1) params.force = random() < 0.5;
  if (random() < 0.1) params.skip_checks = true;
  return {
    target: {
      id: `manual:${kind}/${name}`,
      kind,
      slug: `${kind}:${name}`,
      name,
      entityType: random() < 0.3 ? pick([...ENTITY_TYPES, 'toaster']) : null,
      lifecycle: pick(LIFECYCLES),
      attributes: random() < 0.5 ? { qemu_guest_agent: pick(['running', 'stopped']), os: 'debian' } : {},
    },
    action: pick(ACTIONS),
    params,
    ...(random() < 0.6 ? { command: pick(COMMANDS) } : {}),
    ...(random() < 0.3 ? { targets: Array.from({ length: Math.floor(random() * 6) }, (_, i) => `t${i}`) } : {}),
    ...(random() < 0.3 ? { declaredRiskClass: pick(RISK_CLASSES) } : {}),
  };
}

/** The same value with every object's keys in a shuffled order. */
function shuffleKeys(value: unknown, random: () => number): unknown {
  if (Array.isArray(value)) return value.map((v) => shuffleKeys(v, random));
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    for (let i = entries.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [entries[i], entries[j]] = [entries[j]!, entries[i]!];
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, shuffleKeys(v, random)]));
  }
  return value;
}

describe('determinism: same input and same policy digest → the same decision', () => {
  it('holds for 2000 generated inputs, asked twice and with shuffled keys', () => {
    const random = prng(7);
    for (let i = 0; i < 2000; i++) {
      const input = generate(random);
      for (const { policy, digest } of [DEFAULT, TRUSTING]) {
        const first = classifyAction(policy, digest, input);
        expect(classifyAction(policy, digest, input)).toEqual(first);
        expect(classifyAction(policy, digest, shuffleKeys(input, random) as ActionRequest)).toEqual(first);
        expect(first.policyDigest).toBe(digest);
        expect(first.reasons.length).toBeGreaterThan(0);
        // invariants every decision keeps
        if (first.riskClass === 'destructive') expect(first.autonomy).not.toBe('auto');
        if (input.target.lifecycle === 'destroyed') expect(first.autonomy).toBe('never');
        if (first.autonomy === 'never') expect(first.approval).toBe('not_approvable');
        if (policy === DEFAULT.policy) expect(first.autonomy).not.toBe('auto');
      }
    }
  }, 60_000); // 4,000 classifications: CPU-bound, slower on a loaded 2-core machine

  it('holds for a policy written with its keys shuffled (same digest, same decisions)', () => {
    const random = prng(11);
    const shuffled = parsePolicy(stringify(shuffleKeys(parse(DEFAULT_YAML), random)));
    expect(shuffled.ok && shuffled.digest).toBe(DEFAULT.digest);
    if (!shuffled.ok) return;
    for (let i = 0; i < 500; i++) {
      const input = generate(random);
      expect(classifyAction(shuffled.policy, shuffled.digest, input)).toEqual(
        classifyAction(DEFAULT.policy, DEFAULT.digest, input),
      );
    }
  });
});
