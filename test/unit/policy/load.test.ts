import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { DEFAULT_POLICY_PATH, loadPolicyFile, parsePolicy } from '../../../src/policy/index.js';
import { DEFAULT, DEFAULT_YAML } from './helpers.js';

/** The default policy document with one change, as YAML text. */
function edited(change: (doc: Record<string, any>) => void): string {
  const doc = parse(DEFAULT_YAML) as Record<string, any>;
  change(doc);
  return stringify(doc);
}

describe('loading the shipped policy', () => {
  it('resolves config/policy.yaml at the package root', () => {
    expect(DEFAULT_POLICY_PATH.endsWith('/config/policy.yaml')).toBe(true);
    expect(existsSync(DEFAULT_POLICY_PATH)).toBe(true);
  });

  it('loads it from disk with the same digest as parsing its text', async () => {
    const loaded = await loadPolicyFile(DEFAULT_POLICY_PATH);
    expect(loaded).toEqual({ ok: true, policy: DEFAULT.policy, digest: DEFAULT.digest });
    expect(DEFAULT.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('reports an unreadable file as an error, not a throw', async () => {
    const loaded = await loadPolicyFile('/nonexistent/policy.yaml');
    expect(loaded.ok).toBe(false);
    if (!loaded.ok)
      expect(loaded.errors).toEqual([
        { path: '(file)', reason: expect.stringMatching(/^cannot read \/nonexistent\/policy.yaml: ENOENT/) },
      ]);
  });
});

describe('validation errors name the path and the reason', () => {
  const cases: Array<[string, string, string, RegExp]> = [
    ['missing version', edited((d) => delete d.version), 'version', /expected 1/],
    ['wrong version', edited((d) => (d.version = 2)), 'version', /expected 1/],
    ['unknown top-level key', edited((d) => (d.bogus = 1)), 'bogus', /^unknown key$/],
    [
      'misspelt rule key',
      edited((d) => (d.approval_rules[0].autonomy_levle = 'auto')),
      'approval_rules.0.autonomy_levle',
      /^unknown key$/,
    ],
    [
      'missing risk class',
      edited((d) => delete d.risk_classes.read_only),
      'risk_classes.read_only',
      /^required \(object\)$/,
    ],
    [
      'bad approval',
      edited((d) => (d.risk_classes.read_only.approval_required = 'maybe')),
      'risk_classes.read_only.approval_required',
      /expected one of "none"\|"operator"\|"operator_confirmed"/,
    ],
    [
      'unknown risk class in a rule',
      edited((d) => (d.approval_rules[2].risk_class = 'risky')),
      'approval_rules.2.risk_class',
      /expected one of "read_only"/,
    ],
    [
      'unknown autonomy level',
      edited((d) => (d.approval_rules[2].autonomy_level = 'sometimes')),
      'approval_rules.2.autonomy_level',
      /expected one of "auto"\|"escalate"\|"never"/,
    ],
    [
      'unknown entity type',
      edited((d) => (d.approval_rules[1].entity_type = 'toaster')),
      'approval_rules.1.entity_type',
      /^unknown entity type \(known: entity, machine/,
    ],
    [
      'action not kebab-case',
      edited((d) => (d.approval_rules[0].action = 'Cache_Clear')),
      'approval_rules.0.action',
      /must be kebab-case/,
    ],
    [
      'scope that is no entity',
      edited((d) => (d.approval_rules[5].scope_entity = 'nonsense')),
      'approval_rules.5.scope_entity',
      /must be a kind:name slug/,
    ],
    [
      'scope of an unrelated kind',
      edited((d) => (d.approval_rules[5].entity_type = 'vm')),
      'approval_rules.5.scope_entity',
      /service:reverse-proxy is a service, which is never a vm/,
    ],
    [
      'duplicate rule',
      edited((d) => d.approval_rules.push({ ...d.approval_rules[0] })),
      `approval_rules.${DEFAULT.policy.approval_rules.length}`,
      /^duplicates approval_rules\.0 /,
    ],
    [
      'destructive rule set to auto',
      edited((d) => (d.approval_rules[10].autonomy_level = 'auto')),
      'approval_rules.10.autonomy_level',
      /destructive rule cannot be auto/,
    ],
    [
      'autonomous destructive class',
      edited((d) => (d.risk_classes.destructive.autonomy_allowed = true)),
      'risk_classes.destructive.autonomy_allowed',
      /never autonomous/,
    ],
    [
      'destructive without approval',
      edited((d) => (d.risk_classes.destructive.approval_required = 'none')),
      'risk_classes.destructive.approval_required',
      /always needs an operator/,
    ],
    ['no rules at all', edited((d) => (d.approval_rules = [])), 'approval_rules', /at least 1|>=1/],
    [
      'global switch value',
      edited((d) => (d.autonomy_settings.global.auto_act = 'always')),
      'autonomy_settings.global.auto_act',
      /expected one of "off"\|"reversible_low"/,
    ],
    [
      'unknown lifecycle',
      edited((d) => (d.autonomy_settings.lifecycle_override.retired = { reversible_low: 'escalate' })),
      'autonomy_settings.lifecycle_override.retired',
      /./,
    ],
    [
      'override of an unknown class',
      edited((d) => (d.autonomy_settings.lifecycle_override.deprecated.risky = 'never')),
      'autonomy_settings.lifecycle_override.deprecated.risky',
      /./,
    ],
    [
      'never_auto_act of nothing known',
      edited((d) => (d.autonomy_settings.never_auto_act.toaster = 'x')),
      'autonomy_settings.never_auto_act.toaster',
      /must be a slug, resource id or entity type/,
    ],
    [
      'suppression mode',
      edited((d) => (d.attribution.suppression = 'maybe')),
      'attribution.suppression',
      /expected one of "off"\|"shadow"\|"on"/,
    ],
    [
      'forbidden pattern characters',
      edited((d) => (d.forbidden_actions = ['rm -rf'])),
      'forbidden_actions.0',
      /letters, digits/,
    ],
    ['an empty document', '', '(root)', /expected object/],
    ['YAML syntax', 'version: 1\nrisk_classes: [\n', '(yaml)', /^YAML syntax error: .*line \d+, column \d+/],
    ['duplicate YAML keys', 'version: 1\nversion: 1\n', '(yaml)', /^YAML syntax error: Map keys must be unique/],
  ];
  it.each(cases)('%s', (_, text, path, reason) => {
    const result = parsePolicy(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const error = result.errors.find((e) => e.path === path);
    expect(error, JSON.stringify(result.errors)).toBeDefined();
    expect(error!.reason).toMatch(reason);
  });

  it('reports every error at once', () => {
    const result = parsePolicy(
      edited((d) => {
        d.bogus = 1;
        d.approval_rules[0].risk_class = 'x';
      }),
    );
    expect(result.ok ? [] : result.errors.map((e) => e.path).sort()).toEqual(['approval_rules.0.risk_class', 'bogus']);
  });
});

describe('digest', () => {
  function reorder(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(reorder);
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value)
          .reverse()
          .map(([k, v]) => [k, reorder(v)]),
      );
    }
    return value;
  }

  it('is stable under key order, comments and layout', () => {
    const doc = parse(DEFAULT_YAML);
    const reordered = stringify(reorder(doc));
    const flow = JSON.stringify(doc); // JSON is YAML: no comments, flow style
    expect(reordered).not.toBe(DEFAULT_YAML);
    for (const text of [reordered, flow, `# a comment\n${DEFAULT_YAML}\n# trailing`]) {
      expect(parsePolicy(text)).toMatchObject({ ok: true, digest: DEFAULT.digest });
    }
  });

  it('is stable when a default is written out or left implicit', () => {
    const implicit = edited((d) => {
      delete d.forbidden_actions;
      delete d.attribution;
    });
    expect(parsePolicy(implicit)).toMatchObject({ ok: true, digest: DEFAULT.digest });
  });

  it('changes with any change of meaning', () => {
    const changed = edited((d) => (d.approval_rules[0].autonomy_level = 'escalate'));
    const result = parsePolicy(changed);
    expect(result.ok && result.digest).not.toBe(DEFAULT.digest);
  });
});
