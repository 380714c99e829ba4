import { describe, expect, it } from 'vitest';
import { AitiaError } from '../../../src/model/index.js';
import { type ClassifyActionArgs, parseClassifyInput } from '../../../src/services/gate-input.js';

const base: ClassifyActionArgs = { target: 'vm:web', action: 'restart' };

describe('parseClassifyInput', () => {
  it('passes a full question through, params defaulting to {}', () => {
    expect(parseClassifyInput(base)).toEqual({ action: 'restart', params: {}, command: null, declaredRiskClass: null });
    expect(
      parseClassifyInput({
        ...base,
        action: ' run ',
        params: { count: 2 },
        command: 'uptime',
        targets: ['a', 'b'],
        declaredRiskClass: 'read_only',
      }),
    ).toEqual({
      action: 'run',
      params: { count: 2 },
      command: 'uptime',
      targets: ['a', 'b'],
      declaredRiskClass: 'read_only',
    });
  });

  it.each([
    [{ action: '' }, 'input.action', /must be an action name/],
    [{ action: 'rm -rf' }, 'input.action', /must be an action name/],
    [{ action: 'a'.repeat(65) }, 'input.action', /at most 64 characters/],
    [{ params: [1] }, 'input.params', /must be a JSON object/],
    [{ params: 'force' }, 'input.params', /must be a JSON object/],
    [{ command: 'x'.repeat(16_385) }, 'input.command', /at most 16384 characters/],
    [{ targets: Array.from({ length: 501 }, (_, i) => `t${i}`) }, 'input.targets', /at most 500 targets/],
    [{ targets: ['a', ''] }, 'input.targets.1', /must not be empty/],
  ])('%j → BAD_USER_INPUT on %s', (change, field, message) => {
    let caught: unknown;
    try {
      parseClassifyInput({ ...base, ...(change as Partial<ClassifyActionArgs>) });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AitiaError);
    expect(caught).toMatchObject({ code: 'BAD_USER_INPUT', field, message: expect.stringMatching(message) });
  });
});
