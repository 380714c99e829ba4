import { describe, expect, it } from 'vitest';
import {
  claimIntervalMs,
  decideLease,
  isLeaseLost,
  LeaseLostError,
  pollLeaseName,
  stillHolds,
} from '../../../src/model/lease.js';

const now = 1_000_000;

describe('decideLease', () => {
  it('acquires a lease never held, with token 1', () => {
    expect(decideLease(null, 'a', now, 15)).toEqual({ action: 'acquire', token: 1, expiresAtMs: now + 15_000 });
  });

  it('acquires a released or expired lease with the next token', () => {
    expect(decideLease({ holder: null, token: 4, expiresAtMs: now + 9_000 }, 'a', now, 15)).toMatchObject({
      action: 'acquire',
      token: 5,
    });
    expect(decideLease({ holder: 'b', token: 4, expiresAtMs: now }, 'a', now, 15)).toMatchObject({
      action: 'acquire',
      token: 5,
    });
  });

  it('renews its own live lease with the same token and a later expiry', () => {
    expect(decideLease({ holder: 'a', token: 7, expiresAtMs: now + 1 }, 'a', now, 15)).toEqual({
      action: 'renew',
      token: 7,
      expiresAtMs: now + 15_000,
    });
  });

  it('acquires its own expired lease anew: writes with the old token stay refused', () => {
    expect(decideLease({ holder: 'a', token: 7, expiresAtMs: now - 1 }, 'a', now, 15)).toMatchObject({
      action: 'acquire',
      token: 8,
    });
  });

  it("waits while another replica's lease is live, and says until when", () => {
    expect(decideLease({ holder: 'b', token: 3, expiresAtMs: now + 2_000 }, 'a', now, 15)).toEqual({
      action: 'wait',
      holder: 'b',
      token: 3,
      expiresAtMs: now + 2_000,
    });
  });
});

describe('lease timing and errors', () => {
  it('claims every third of the lease, never faster than 100 ms', () => {
    expect(claimIntervalMs(15)).toBe(5_000);
    expect(claimIntervalMs(0.1)).toBe(100);
  });

  it('a holder stops acting a lease after its last confirmed claim, by its own clock', () => {
    expect(stillHolds(now, now + 14_999, 15)).toBe(true);
    expect(stillHolds(now, now + 15_000, 15)).toBe(false);
  });

  it('names poll leases per source and recognises a lost lease, also as a cause', () => {
    expect(pollLeaseName('lab')).toBe('poll:lab');
    const lost = new LeaseLostError({ lease: 'poll:lab', holder: 'a', token: 2 }, { holder: 'b', token: 3 });
    expect(lost.message).toBe('LEASE_LOST: lease poll:lab token 2 of a is no longer valid (holder b, token 3)');
    expect(lost.code).toBe('LEASE_LOST');
    expect(isLeaseLost(new Error('pass failed', { cause: lost }))).toBe(true);
    expect(isLeaseLost(new Error('other'))).toBe(false);
  });
});
