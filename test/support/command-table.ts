import { describe, expect, it } from 'vitest';
import { classifyCommand } from '../../src/policy/command/classifier.js';
import type { RiskClass } from '../../src/policy/risk.js';

/** A command, the class it must get, and a pattern its reasons must match (why it is so). */
export type CommandRow = [string, RiskClass, RegExp?];

/** One table of the classifier: each row gets its class (and says why); each control stays read_only. */
export function describeCommandTable(title: string, rows: readonly CommandRow[], controls: readonly string[]): void {
  describe(title, () => {
    it.each(rows)('%j → %s', (command, expected, why) => {
      const result = classifyCommand(command);
      expect(result.riskClass, JSON.stringify(result.parts)).toBe(expected);
      if (why !== undefined) expect(result.parts.map((p) => p.reason).join('; ')).toMatch(why);
    });

    it.each(controls)('%j stays read_only', (command) => {
      const result = classifyCommand(command);
      expect(result.riskClass, JSON.stringify(result.parts)).toBe('read_only');
    });
  });
}
