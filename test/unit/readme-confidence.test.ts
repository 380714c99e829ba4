import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unknownSentence } from '../../correlator/unknown-narrative.js';
import { UNKNOWN_REASONS, unknownBecauseOf, type UnknownBecause } from '../../src/model/index.js';
import { findPackageRoot } from '../../src/package-root.js';

/**
 * The README's "Confidence" table promises one example narrative per `unknownBecause`: each must be
 * exactly what the correlator says for such a case, so the front page cannot drift from the code.
 */
const readme = readFileSync(join(findPackageRoot(), 'README.md'), 'utf8');
const section = readme.slice(
  readme.indexOf('## Confidence'),
  readme.indexOf('\n## ', readme.indexOf('## Confidence') + 1),
);
const at = (hms: string) => `2026-05-13T${hms}Z`;
const clock = { label: 'UTC', short: (iso: string) => iso.slice(11, 19) };
const VM = 'proxmox:homelab/qemu/101';

const cases: Record<(typeof UNKNOWN_REASONS)[number], Partial<UnknownBecause>> = {
  no_record: { from: at('02:10:00'), to: at('02:40:00'), node: 'pve1' },
  log_not_read: { from: at('02:10:00'), to: at('02:25:00'), node: 'pve2', gapReason: 'source_unreachable' },
  beyond_retention: { node: 'pve1', horizon: at('02:32:00') },
  clock_uncertain: { node: 'pve3', clockOffsetSeconds: 42, toleranceSeconds: 5 },
  no_log_for_kind: {},
};

/** The example cell of the table row for a reason: its last column, without the quotes. */
function example(reason: string): string | null {
  const row = section.split('\n').find((l) => l.startsWith(`| \`${reason}\` |`));
  const cells = row?.split('|').map((c) => c.trim());
  return cells?.at(-2)?.replace(/^"|"$/g, '') ?? null;
}

describe("README's Confidence section", () => {
  it('exists and names every unknownBecause', () => {
    expect(section.startsWith('## Confidence')).toBe(true);
    for (const reason of UNKNOWN_REASONS) expect(example(reason), reason).not.toBeNull();
  });
  for (const reason of UNKNOWN_REASONS)
    it(`${reason}: the example is the correlator's own sentence`, () => {
      const sentence = unknownSentence(unknownBecauseOf(reason, cases[reason]), VM, clock);
      expect(example(reason)).toBe(sentence);
    });
});
