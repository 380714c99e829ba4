import { describe, expect, it } from 'vitest';
import { serverClockOffsetSeconds } from '../../../../src/ingest/vcenter/events-get.js';

/** The vCenter clock's offset from CurrentTime against the call's midpoint, less the call's own uncertainty. */
const SENT = Date.parse('2026-05-14T12:00:00.000Z');
const at = (ms: number) => new Date(SENT + ms).toISOString();

describe('serverClockOffsetSeconds', () => {
  it.each([
    ['in step: the midpoint of the call', at(100), SENT, SENT + 200, 0],
    ['within half the round trip: as far as can be told, in step', at(1_000), SENT, SENT + 2_000, 0],
    ['42 s ahead (a 200 ms call)', at(42_100), SENT, SENT + 200, 42],
    ['42 s behind', at(-41_900), SENT, SENT + 200, -42],
    ['a slow call narrows what is certain: 10 s ahead less 2 s of round trip', at(12_000), SENT, SENT + 4_000, 8],
    ['not a time', 'yesterday', SENT, SENT + 200, null],
    ['an empty answer', '', SENT, SENT + 200, null],
    ['received before sent (a clock jump here)', at(0), SENT, SENT - 1, null],
  ] as const)('%s', (_name, server, sent, received, offset) => {
    expect(serverClockOffsetSeconds(server, sent, received)).toBe(offset);
  });
});
