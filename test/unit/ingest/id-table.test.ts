import { describe, expect, it } from 'vitest';
import { IdTable } from '../../../src/ingest/id-table.js';

describe('IdTable', () => {
  it.each([
    ['ascii ids', (i: number) => `proxmox:lab/qemu/${i}`],
    ['non-ASCII ids (multi-byte UTF-8)', (i: number) => `vcenter:vc01/vm/vm-${i}-ÿ€😀`],
    ['ids that are prefixes of one another', (i: number) => `manual:x/${'a'.repeat(i % 40)}${i}`],
    // Some share the first id's scope (stored without it), some do not, some only almost.
    [
      'ids in and out of the first scope',
      (i: number) => [`proxmox:a/q/${i}`, `proxmox:b/q/${i}`, `proxmox:a${i}`][i % 3]!,
    ],
  ])('answers as a Map does over 20,000 %s, through its rehashes', (_, idOf) => {
    const table = new IdTable();
    const map = new Map<string, number>();
    for (let i = 0; i < 20_000; i++) {
      const id = idOf(i);
      table.set(id, i * 3);
      map.set(id, i * 3);
      // Every fifth id set again: the value changes, no entry is added.
      if (i % 5 === 0) {
        table.set(id, -i - 1);
        map.set(id, -i - 1);
      }
    }
    expect(table.size).toBe(map.size);
    for (const [id, v] of map) expect(table.get(id)).toBe(v);
    for (let i = 20_000; i < 20_500; i++) expect(table.has(idOf(i))).toBe(false);
  });

  it('answers right whatever the order of asks and sets (its memo of the last id asked)', () => {
    const table = new IdTable();
    const map = new Map<string, number>();
    // A seeded walk over 300 ids: each step a get, a has or a set of a random id, compared to a Map.
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let step = 0; step < 20_000; step++) {
      const id = `proxmox:lab/qemu/${next() % 300}`;
      const op = next() % 3;
      if (op === 0) expect(table.get(id)).toBe(map.get(id));
      else if (op === 1) expect(table.has(id)).toBe(map.has(id));
      else {
        const v = (next() % 1000) - 500;
        table.set(id, v);
        map.set(id, v);
      }
    }
    table.mapValues((v) => v * 2);
    for (const [id, v] of map) expect(table.get(id)).toBe(v * 2);
    expect(table.size).toBe(map.size);
  });

  it.each([
    ['the empty string', ''],
    ['a one-byte id', 'a'],
    ['a long id', `proxmox:${'x'.repeat(10_000)}`],
  ])('holds %s', (_, id) => {
    const table = new IdTable();
    expect(table.get(id)).toBeUndefined();
    table.set(id, 7);
    expect(table.get(id)).toBe(7);
    expect(table.get(`${id}z`)).toBeUndefined();
    expect(table.size).toBe(1);
  });

  it.each([[1.5], [2 ** 31], [Number.NaN]])('refuses %s as a value (32-bit integers only)', (v) => {
    expect(() => new IdTable().set('proxmox:a/b', v)).toThrow(/32-bit integers/);
  });
});
