/**
 * sed and awk programs, read far enough to know whether they can write a file or run a command.
 * sed is parsed command by command (its grammar is small); an awk program is read-only only when
 * it has none of the constructs that reach outside (system, pipes, getline, `@` calls and loads,
 * print redirection). Whatever cannot be read is not read-only.
 */
import { readOptions, type OptionSpec } from './options.js';

const HARMLESS_SED_FILES = new Set(['/dev/stdout', '/dev/stderr']);

interface SedState {
  s: string;
  i: number;
  /** Whether `[…]` inside a regex hides the delimiter; sed versions differ, so both are tried. */
  brackets: boolean;
}

const isEnd = (c: string | undefined): boolean => c === undefined || c === '\n' || c === ';' || c === '}';

function skipBlanks(st: SedState): void {
  while (st.s[st.i] === ' ' || st.s[st.i] === '\t') st.i++;
}

/** Reads up to the unescaped `delim`; returns false when it is missing. */
function delimited(st: SedState, delim: string): boolean {
  for (; st.i < st.s.length; st.i++) {
    const c = st.s[st.i];
    if (c === '\\') st.i++;
    else if (st.brackets && c === '[' && delim !== '[') {
      const close = st.s.indexOf(']', st.i + (st.s[st.i + 1] === ']' ? 2 : 1));
      if (close === -1) return false;
      st.i = close;
    } else if (c === delim) {
      st.i++;
      return true;
    }
  }
  return false;
}

function restOfLine(st: SedState): string {
  const nl = st.s.indexOf('\n', st.i);
  const text = st.s.slice(st.i, nl === -1 ? st.s.length : nl);
  st.i = nl === -1 ? st.s.length : nl;
  return text.trim();
}

function address(st: SedState): boolean {
  const c = st.s[st.i];
  if (c === '/' || c === '\\') {
    const delim = c === '/' ? '/' : st.s[st.i + 1];
    st.i += c === '/' ? 1 : 2;
    if (delim === undefined || !delimited(st, delim)) return false;
    while (st.s[st.i] === 'I' || st.s[st.i] === 'M') st.i++;
    return true;
  }
  const m = /^(\$|[0-9]+(~[0-9]+)?|[+~][0-9]+)/.exec(st.s.slice(st.i));
  if (m !== null) st.i += m[0].length;
  return true;
}

function writeTarget(file: string): string | null {
  return HARMLESS_SED_FILES.has(file) ? null : `writes ${file === '' ? 'a file' : file}`;
}

/** Why a sed script may write or execute (`w`, `W`, `e`, `s///w`, `s///e`), or null when it cannot. */
function sedPass(script: string, brackets: boolean): string | null {
  const st: SedState = { s: script, i: 0, brackets };
  while (st.i < st.s.length) {
    while (/[\s;}]/.test(st.s[st.i] ?? '')) st.i++;
    if (st.i >= st.s.length) break;
    if (st.s[st.i] === '#') {
      restOfLine(st);
      continue;
    }
    if (!address(st)) return 'has an address that cannot be read';
    skipBlanks(st);
    if (st.s[st.i] === ',') {
      st.i++;
      skipBlanks(st);
      if (!address(st)) return 'has an address that cannot be read';
    }
    skipBlanks(st);
    while (st.s[st.i] === '!' || st.s[st.i] === ' ') st.i++;
    const cmd = st.s[st.i++];
    if (cmd === undefined) return 'ends after an address';
    if (cmd === '{') continue;
    if ('=dDgGhHnNpPxzF'.includes(cmd)) {
      // no argument
    } else if ('lLqQ'.includes(cmd)) {
      skipBlanks(st);
      while (/[0-9]/.test(st.s[st.i] ?? '')) st.i++;
    } else if ('aic'.includes(cmd)) {
      // Text to the end of the line, backslash-newline continuing it.
      while (st.i < st.s.length && st.s[st.i] !== '\n') st.i += st.s[st.i] === '\\' ? 2 : 1;
      continue;
    } else if ('btT:v'.includes(cmd)) {
      while (!isEnd(st.s[st.i])) st.i++;
    } else if (cmd === 'r' || cmd === 'R') {
      restOfLine(st);
      continue;
    } else if (cmd === 'w' || cmd === 'W') {
      const why = writeTarget(restOfLine(st));
      if (why !== null) return why;
      continue;
    } else if (cmd === 'e') {
      return 'executes a command (e)';
    } else if (cmd === 's' || cmd === 'y') {
      const delim = st.s[st.i++];
      if (delim === undefined || delim === '\n' || delim === '\\') return `has an ${cmd} command that cannot be read`;
      if (!delimited(st, delim)) return `has an unterminated ${cmd} command`;
      // The replacement does not hide the delimiter inside brackets.
      const b = st.brackets;
      st.brackets = false;
      const ok = delimited(st, delim);
      st.brackets = b;
      if (!ok) return `has an unterminated ${cmd} command`;
      if (cmd === 's') {
        while (/[gpiImM0-9e]/.test(st.s[st.i] ?? '')) if (st.s[st.i++] === 'e') return 'executes a command (s///e)';
        if (st.s[st.i] === 'w') {
          st.i++;
          const why = writeTarget(restOfLine(st));
          if (why !== null) return why;
          continue;
        }
      }
    } else return `has a command ${JSON.stringify(cmd)} that is not known`;
    skipBlanks(st);
    if (!isEnd(st.s[st.i]) && st.s[st.i] !== '#') return 'has text after a command that cannot be read';
  }
  return null;
}

/** Why a sed script may write files or run commands, or null when it can only print. */
export function sedScriptRisk(script: string): string | null {
  return sedPass(script, true) ?? sedPass(script, false);
}

const SED_OPTIONS: OptionSpec = {
  shortValue: 'efl',
  shortOptional: 'i',
  longValue: ['--expression', '--file', '--line-length'],
  longOptional: ['--in-place'],
  long: ['--quiet', '--silent', '--regexp-extended', '--separate', '--sandbox', '--posix', '--debug', '--null-data'],
};

/** Why `sed args` is not read-only, or null when it only prints. */
export function sedRisk(args: readonly string[]): string | null {
  const read = readOptions(args, SED_OPTIONS);
  if (read.options.some((o) => o.name === '-i' || o.name === '--in-place')) return 'sed -i edits files in place';
  if (read.options.some((o) => o.name === '-f' || o.name === '--file'))
    return 'sed -f runs a script that is not analysed';
  const scripts = read.options.filter((o) => o.name === '-e' || o.name === '--expression').map((o) => o.value ?? '');
  const script = scripts.length > 0 ? scripts.join('\n') : (read.operands[0] ?? '');
  const why = sedScriptRisk(script);
  return why === null ? null : `sed script ${why}`;
}

const AWK_OPTIONS: OptionSpec = {
  shortValue: 'FvfeilEW',
  shortOptional: 'opdDL',
  longValue: ['--field-separator', '--assign', '--file', '--source', '--include', '--load', '--exec'],
  longOptional: ['--pretty-print', '--profile', '--dump-variables', '--debug', '--lint'],
  long: ['--sandbox', '--posix', '--traditional', '--re-interval', '--characters-as-bytes', '--bignum'],
};

const AWK_RISKY_OPTIONS: Readonly<Record<string, string>> = {
  '-f': 'runs a program file',
  '--file': 'runs a program file',
  '-E': 'runs a program file',
  '--exec': 'runs a program file',
  '-i': 'includes a source file',
  '--include': 'includes a source file',
  '-l': 'loads an extension',
  '--load': 'loads an extension',
  '-o': 'writes a pretty-printed program file',
  '--pretty-print': 'writes a pretty-printed program file',
  '-p': 'writes a profile file',
  '--profile': 'writes a profile file',
  '-d': 'writes a variable dump file',
  '--dump-variables': 'writes a variable dump file',
  '-D': 'runs the debugger',
  '--debug': 'runs the debugger',
  '-W': 'takes an implementation option that is not analysed',
};

// What lets an awk program reach outside: commands, pipes, getline, gawk's `@` (indirect calls,
// @load, @include) and print/printf with a `>` anywhere after (strings and regexes may hide `;`).
const AWK_REACHES_OUT: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bsystem\b/, 'runs a command (system)'],
  [/\|/, 'pipes to or from a command'],
  [/\bgetline\b/, 'reads with getline'],
  [/@/, "uses gawk's @ (indirect call, @load or @include)"],
  [/\bprintf?\b[\s\S]*>/, 'may redirect print to a file'],
];

/** The program texts `awk args` runs, or a reason the program is not readable. */
export function awkRisk(args: readonly string[]): { why: string; program: string } | null {
  const read = readOptions(args, AWK_OPTIONS);
  for (const o of read.options) {
    const why = AWK_RISKY_OPTIONS[o.name];
    if (why !== undefined) return { why: `awk ${o.name} ${why}`, program: o.value ?? '' };
  }
  const sources = read.options.filter((o) => o.name === '-e' || o.name === '--source').map((o) => o.value ?? '');
  const program = sources.length > 0 ? sources.join('\n') : (read.operands[0] ?? '');
  const hit = AWK_REACHES_OUT.find(([re]) => re.test(program));
  return hit === undefined ? null : { why: `awk program ${hit[1]}`, program };
}
