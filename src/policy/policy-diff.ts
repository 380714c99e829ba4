import { canonicalJson } from './canonical-json.js';
import type { Policy } from './policy-document.js';

/**
 * What changed between two policies, as dotted paths an operator can look up: each approval rule by
 * its index (changed, added, removed), every other top-level section (and autonomy_settings'
 * parts) by name. Empty when they are the same.
 */
export function policyChanges(before: Policy, after: Policy): string[] {
  const out: string[] = [];
  const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);
  const rules = Math.max(before.approval_rules.length, after.approval_rules.length);
  for (let i = 0; i < rules; i++) {
    const [a, b] = [before.approval_rules[i], after.approval_rules[i]];
    if (a === undefined) out.push(`approval_rules.${i} added`);
    else if (b === undefined) out.push(`approval_rules.${i} removed`);
    else if (!same(a, b)) out.push(`approval_rules.${i} changed`);
  }
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  for (const key of keys) {
    if (key === 'approval_rules') continue;
    const [a, b] = [(before as Record<string, unknown>)[key], (after as Record<string, unknown>)[key]];
    if (same(a, b)) continue;
    if (key === 'autonomy_settings' && a && b) {
      const parts = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
      for (const part of parts) {
        if (!same((a as Record<string, unknown>)[part], (b as Record<string, unknown>)[part]))
          out.push(`${key}.${part} changed`);
      }
    } else out.push(`${key} changed`);
  }
  return out;
}
