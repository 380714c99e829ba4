import { describe, expect, it } from 'vitest';
import { parseShell } from '../../../../src/policy/command/shell-parse.js';
import { mayBeOption } from '../../../../src/policy/command/shell-words.js';

/** Each word of the first command with what the shell expands in it. */
function words(text: string): Array<[string, string | null]> {
  const cmd = parseShell(text).pipelines[0]![0]!;
  return cmd.words.map((w, i) => [w, cmd.expansions[i]?.why ?? null]);
}

describe('shell words: what the shell expands', () => {
  it.each<[string, Array<[string, string | null]>]>([
    [
      "$'\\x6dkfs' /dev/sdb",
      [
        ['mkfs', "ANSI-C quoting $'…'"],
        ['/dev/sdb', null],
      ],
    ],
    [
      "$'it\\'s' x",
      [
        ["it's", "ANSI-C quoting $'…'"],
        ['x', null],
      ],
    ],
    [
      "grep $'\\t\\101\\u00e9' f",
      [
        ['grep', null],
        ['\tAé', "ANSI-C quoting $'…'"],
        ['f', null],
      ],
    ],
    [
      '$CMD x',
      [
        ['$CMD', 'parameter expansion'],
        ['x', null],
      ],
    ],
    [
      '"$CMD" x',
      [
        ['$CMD', 'parameter expansion'],
        ['x', null],
      ],
    ],
    [
      '${A:-b} x',
      [
        ['${A:-b}', 'parameter expansion'],
        ['x', null],
      ],
    ],
    [
      '$1 $@ x',
      [
        ['$1', 'parameter expansion'],
        ['$@', 'parameter expansion'],
        ['x', null],
      ],
    ],
    [
      'echo "a $(b) c"',
      [
        ['echo', null],
        ['a $(…) c', 'command substitution'],
      ],
    ],
    [
      '`b` c',
      [
        ['`…`', 'command substitution'],
        ['c', null],
      ],
    ],
    [
      'echo $((1+2))',
      [
        ['echo', null],
        ['$((1+2))', 'arithmetic expansion'],
      ],
    ],
    [
      'm?fs x',
      [
        ['m?fs', 'glob'],
        ['x', null],
      ],
    ],
    ['/sbin/mkfs.[e]xt4', [['/sbin/mkfs.[e]xt4', 'glob']]],
    [
      '{mkfs,true} x',
      [
        ['{mkfs,true}', 'brace expansion'],
        ['x', null],
      ],
    ],
    [
      '$"mkfs" x',
      [
        ['mkfs', 'locale translation $"…"'],
        ['x', null],
      ],
    ],
    // quoted, escaped and lone characters are literal
    [
      '\'m?fs\' "a*" \\* $ { } {} [ x',
      [
        ['m?fs', null],
        ['a*', null],
        ['*', null],
        ['$', null],
        ['{', null],
        ['}', null],
        ['{}', null],
        ['[', null],
        ['x', null],
      ],
    ],
    [
      "awk '{print $5}'",
      [
        ['awk', null],
        ['{print $5}', null],
      ],
    ],
    ['"uptime"', [['uptime', null]]],
  ])('%j', (text, expected) => {
    expect(words(text)).toEqual(expected);
  });

  it('says which expanded words can turn into an option', () => {
    const cmd = parseShell('sort $A "$B" "/x/$C" /x/$D "/x/*" /x/* *').pipelines[0]![0]!;
    expect(cmd.expansions.map(mayBeOption)).toEqual([false, true, true, false, true, false, false, true]);
  });

  it('marks a redirection target built at run time', () => {
    const cmd = parseShell('uptime > "$DIR/x" 2>/dev/null').pipelines[0]![0]!;
    expect(cmd.redirects.map((r) => r.expansion?.why ?? null)).toEqual(['parameter expansion', null]);
  });
});
