import { describe, expect, it } from 'vitest';
import { parseUpid } from '../../../../src/ingest/proxmox/upid.js';
import { readFixture } from '../../../support/fixtures.js';

interface Vectors {
  regex: string;
  valid: Array<{
    upid: string;
    decoded: {
      node: string;
      pid: number;
      pstart: number;
      starttime: number;
      type: string;
      id: string;
      user: string;
      log_subdir: string;
      api_user: string;
      api_tokenid: string | null;
    };
  }>;
  invalid: Array<{ upid: string; source: string }>;
}

const vectors = readFixture('proxmox/upid-test-vectors.json') as Vectors;

describe('parseUpid: valid vectors decode exactly', () => {
  it.each(vectors.valid.map((v) => [v.upid, v.decoded] as const))('%s', (upid, d) => {
    const result = parseUpid(upid);
    expect(result).toEqual({
      ok: true,
      upid: {
        raw: upid,
        node: d.node,
        pid: d.pid,
        pstart: d.pstart,
        starttime: d.starttime,
        type: d.type,
        id: d.id,
        user: d.user,
        apiUser: d.api_user,
        tokenId: d.api_tokenid,
        logSubdir: d.log_subdir,
      },
    });
  });
});

describe('parseUpid: invalid vectors are rejected with a reason', () => {
  it.each(vectors.invalid.map((v) => [v.upid, v.source] as const))('%s (%s)', (upid) => {
    const result = parseUpid(upid);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain('invalid UPID');
  });
});

describe('parseUpid agrees with the vectors file regex', () => {
  const regex = new RegExp(vectors.regex);
  it.each([...vectors.valid.map((v) => v.upid), ...vectors.invalid.map((v) => v.upid)])('%s', (upid) => {
    expect(parseUpid(upid).ok).toBe(regex.test(upid));
  });
});

describe('parseUpid names the broken field', () => {
  it.each([
    ['UPID:pve1:000A1B2C:0123ABCD:65F0A1B2:qmstop:101:root@pam', 'trailing ":"'],
    ['UPID:pve1:A1B2C:0123ABCD:65F0A1B2:qmstop:101:root@pam:', 'pid'],
    ['UPID:pve1:000A1B2C:0123ABC:65F0A1B2:qmstop:101:root@pam:', 'pstart'],
    ['UPID:pve1:000A1B2C:0123ABCDEF:65F0A1B2:qmstop:101:root@pam:', 'pstart'],
    ['UPID:pve1:000A1B2C:0123ABCD:65F0A1B:qmstop:101:root@pam:', 'starttime'],
    ['UPID:pve1.lan:000A1B2C:0123ABCD:65F0A1B2:qmstop:101:root@pam:', 'node'],
    ['UPID:-pve1:000A1B2C:0123ABCD:65F0A1B2:qmstop:101:root@pam:', 'node'],
    ['UPID:pve1:000A1B2C:0123ABCD:65F0A1B2::101:root@pam:', 'type'],
    ['UPID:pve1:000A1B2C:0123ABCD:65F0A1B2:qmstop:101::', 'user'],
    ['UPID:pve1:000A1B2C:0123ABCD:65F0A1B2:qmstop:101:root@pam!:', 'user'],
    ['UPID:pve1:000A1B2C:0123ABCD:65F0A1B2:qmstop:1:01:root@pam:', '7 fields'],
    ['upid:pve1:000A1B2C:0123ABCD:65F0A1B2:qmstop:101:root@pam:', 'UPID:'],
    ['', 'UPID:'],
    ['UPID:pve1:000A1B2C:0123ABCD:65F0A1B2:qm\u001b[2Jstop:101:root@pam:', 'type'],
    ['UPID:pve1:000A1B2C:0123ABCD:65F0A1B2:qmstop:10\u202e1:root@pam:', 'id'],
    ['UPID:pve1:000A1B2C:0123ABCD:65F0A1B2:qmstop:101:root\u200b@pam:', 'user'],
  ])('%s → mentions %s', (upid, field) => {
    const result = parseUpid(upid);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(field);
  });
});
