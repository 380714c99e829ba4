import { readFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { DEFAULT_POLICY_PATH, parsePolicy, type Policy, type TargetFacts } from '../../../src/policy/index.js';

/** The shipped policy text, read once. */
export const DEFAULT_YAML = readFileSync(DEFAULT_POLICY_PATH, 'utf8');

/** Parses policy YAML that must be valid. */
export function mustParse(text: string): { policy: Policy; digest: string } {
  const result = parsePolicy(text);
  if (!result.ok) throw new Error(`policy invalid: ${JSON.stringify(result.errors)}`);
  return result;
}

/** The shipped policy. */
export const DEFAULT = mustParse(DEFAULT_YAML);

/** The shipped policy with a change applied to its parsed document (then re-validated). */
export function variant(change: (doc: Record<string, any>) => void): { policy: Policy; digest: string } {
  const doc = parse(DEFAULT_YAML) as Record<string, any>;
  change(doc);
  return mustParse(stringify(doc));
}

/** The shipped policy with `global.auto_act: reversible_low`, so rules' auto can show through. */
export const TRUSTING = variant((doc) => {
  doc.autonomy_settings.global.auto_act = 'reversible_low';
});

/** Target facts for a `kind:name`, active, no attributes unless given. */
export function target(slug: string, extra: Partial<TargetFacts> = {}): TargetFacts {
  const [kind, name] = slug.split(':') as [TargetFacts['kind'], string];
  return { id: `manual:${kind}/${name}`, kind, slug, name, lifecycle: 'active', ...extra };
}
