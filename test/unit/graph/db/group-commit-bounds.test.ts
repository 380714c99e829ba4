import { afterEach, describe, expect, it } from 'vitest';
import { setGroupCommitBounds } from '../../../../src/graph/db/group-commit.js';

afterEach(() => setGroupCommitBounds());

describe('group commit bounds', () => {
  it.each([
    [{ maxInFlight: 0 }, /maxInFlight: must be a whole number ≥ 1, not 0/],
    [{ maxInFlight: 1.5 }, /maxInFlight: must be a whole number ≥ 1, not 1.5/],
    [{ maxBatch: -3 }, /maxBatch: must be a whole number ≥ 1, not -3/],
    [{ maxBatch: Number.NaN }, /maxBatch: must be a whole number ≥ 1, not NaN/],
  ])('refuses %o, naming the bound', (bounds, message) => {
    expect(() => setGroupCommitBounds(bounds)).toThrow(message);
  });

  it.each([[{ maxInFlight: 1 }], [{ maxBatch: 1, maxInFlight: 4 }], [{}]])('accepts %o', (bounds) => {
    expect(() => setGroupCommitBounds(bounds)).not.toThrow();
  });
});
