import { describe, expect, it } from 'vitest';
import { KINDS, STATES, StateSchemas, isStateOf } from '../../../src/model/index.js';

describe('per-kind state enums', () => {
  it.each(KINDS)('%s has a closed enum that contains unknown', (kind) => {
    expect(STATES[kind]).toContain('unknown');
    expect(StateSchemas[kind].options).toEqual([...STATES[kind]]);
  });

  it('refuses a state of another kind', () => {
    expect(isStateOf('vm', 'running')).toBe(true);
    expect(isStateOf('host', 'running')).toBe(false);
    expect(StateSchemas.lxc.safeParse('paused_io_error').success).toBe(false);
  });

  it('has the states the issue names', () => {
    expect(STATES.vm).toEqual(
      expect.arrayContaining([
        'running',
        'stopped',
        'paused',
        'suspended',
        'paused_io_error',
        'migrating',
        'unreachable',
        'unknown',
      ]),
    );
    expect(STATES.host).toEqual(expect.arrayContaining(['online', 'offline', 'maintenance', 'unreachable', 'unknown']));
    expect(STATES.lxc).toEqual(expect.arrayContaining(['running', 'stopped', 'frozen', 'unknown']));
    expect(STATES.service).toEqual(['up', 'down', 'unknown']);
  });
});
