import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { actorMappingSource, warnUnknownActorPrincipals } from '../../../src/services/actor-mapping.js';
import { TokenStore } from '../../../src/services/token-store.js';
import { tempDirs } from '../../support/temp.js';
import type { ActorMappingEntry } from '../../../src/model/index.js';

const tempDir = tempDirs();
const ACTORS: ActorMappingEntry[] = [
  { provider: 'proxmox', user: 'rhodes@pve!ops', principal: 'rhodes' },
  { provider: 'vcenter', user: 'VSPHERE.LOCAL\\svc-rhodes', principal: 'rhodes' },
  { provider: 'proxmox', user: 'alice@pve', principal: 'alice' },
];

describe('the actors mapping, resolved against the live tokens', () => {
  it('takes roles from the tokens file each time it is asked, and warns about principals no token has', () => {
    const store = new TokenStore(join(tempDir('aitia-actors'), 'tokens.json'));
    store.add({ name: 'alice', role: 'operator' });
    const source = actorMappingSource(ACTORS, store);
    const warnings: unknown[][] = [];
    const log = { warn: (...args: unknown[]) => void warnings.push(args) };
    expect(warnUnknownActorPrincipals(source, log)).toMatch(/actors: no token is named "rhodes"/);
    expect(warnings[0]![0]).toEqual({ unknownPrincipals: ['rhodes'] });
    expect(source().entries.map((e) => e.role)).toEqual([null, null, 'operator']);
    // The agent's token is created while aitia runs: the next pass sees it.
    store.add({ name: 'rhodes', role: 'agent' });
    expect(source().entries.map((e) => e.role)).toEqual(['agent', 'agent', 'operator']);
    expect(warnUnknownActorPrincipals(source, log)).toBeNull();
    expect(warnings).toHaveLength(1);
  });

  it('an empty mapping reads no tokens', () => {
    expect(actorMappingSource([], undefined)()).toEqual({ entries: [], unknownPrincipals: [] });
  });
});
