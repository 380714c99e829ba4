import { judgeWriteTarget, type Verdict } from './checks.js';
import { assignedName, judgeAssignment } from './env.js';
import type { Expansion } from './shell-words.js';

/** A word with what the shell expands in it. */
export interface Word {
  text: string;
  expansion: Expansion | null;
}

/** What remains once wrappers (`sudo`, `env X=1`, `nice`, `timeout 5` …) are peeled off. */
export type Unwrapped = (
  | { kind: 'words'; words: Word[] }
  /** A command given as one string (`watch 'df -h'`, `eval …`, `su -c …`): classify it as a line. */
  | { kind: 'inner'; text: string; expansion: Expansion | null }
  | { kind: 'verdict'; verdict: Verdict }
) & {
  /** What the wrappers and assignments themselves do (`LD_PRELOAD=…`, `time -o FILE`). */
  notes: Verdict[];
};

interface Wrapper {
  /** Options that take a separate value (`sudo -u root`). */
  valueFlags?: readonly string[];
  /** Options whose value is a file the wrapper writes (`time -o FILE`). */
  writeFlags?: readonly string[];
  /** Leading positional arguments before the wrapped command (`timeout 10 cmd`). */
  positional?: number;
  /** The verdict when nothing is wrapped (`sudo -i` opens a root shell; bare `env` prints). */
  bare: Verdict;
  /** Wrappers taking the rest as one command string rather than argv. */
  joinsRest?: boolean;
}

const ROOT_SHELL: Verdict = {
  riskClass: 'config_mutation',
  reason: 'opens a privileged shell, whose commands are not known',
};
const NOTHING: Verdict = { riskClass: 'read_only', reason: 'wraps no command' };
const XARGS_INPUT: Expansion = { why: 'replaced by xargs input', known: false, at: 0, splits: true, fieldSplit: true };

/** Commands that run another command; the risk is that command's. */
const WRAPPERS: Readonly<Record<string, Wrapper>> = {
  sudo: {
    valueFlags: [
      '-u',
      '-g',
      '-h',
      '-p',
      '-C',
      '-U',
      '-r',
      '-t',
      '-D',
      '-R',
      '-T',
      '--user',
      '--group',
      '--host',
      '--prompt',
      '--close-from',
      '--other-user',
      '--role',
      '--type',
      '--chdir',
      '--chroot',
      '--command-timeout',
    ],
    bare: ROOT_SHELL,
  },
  doas: { valueFlags: ['-u', '-C'], bare: ROOT_SHELL },
  nohup: { bare: NOTHING },
  setsid: { bare: NOTHING },
  time: { valueFlags: ['-f', '--format', '-o', '--output'], writeFlags: ['-o', '--output'], bare: NOTHING },
  nice: { valueFlags: ['-n', '--adjustment'], bare: NOTHING },
  ionice: { valueFlags: ['-c', '--class', '-n', '--classdata'], bare: NOTHING },
  timeout: { valueFlags: ['-s', '--signal', '-k', '--kill-after'], positional: 1, bare: NOTHING },
  stdbuf: { valueFlags: ['-i', '-o', '-e'], bare: NOTHING },
  taskset: { positional: 1, bare: NOTHING },
  exec: { valueFlags: ['-a'], bare: NOTHING },
  builtin: { bare: NOTHING },
  busybox: { bare: NOTHING },
  xargs: {
    valueFlags: [
      '-I',
      '-n',
      '-P',
      '-L',
      '-d',
      '-E',
      '-s',
      '-a',
      '--arg-file',
      '--delimiter',
      '--max-args',
      '--max-procs',
      '--replace',
      '--max-lines',
    ],
    bare: { riskClass: 'read_only', reason: 'xargs without a command only echoes' },
  },
  watch: { valueFlags: ['-n', '--interval', '-g'], joinsRest: true, bare: NOTHING },
  eval: { joinsRest: true, bare: NOTHING },
};

// env's options; `-S`/`--split-string` splits its value into more arguments.
const ENV_VALUE_FLAGS = ['-u', '--unset', '-C', '--chdir', '-a', '--argv0'];

// Shell grammar words that only structure a list; the command follows them.
const LEADING_KEYWORDS = new Set(['if', 'then', 'else', 'elif', 'do', 'while', 'until', '!', '{']);
const CLOSING_KEYWORDS = new Set(['fi', 'done', 'esac', '}']);

const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** The first expansion that makes a command text unknown, or null. */
function unknownIn(words: readonly Word[]): Expansion | null {
  return words.find((w) => w.expansion !== null && !w.expansion.known)?.expansion ?? null;
}

/**
 * A short-option cluster as getopt reads it: the first letter that takes a value ends it, with
 * the rest of the word as that value or, when nothing is left, the next word (`-Hu root`,
 * `-iS'cmd'`, `-n1`). Null when no letter of the cluster takes a value.
 */
function clusterValue(word: string, valueShorts: string): { flag: string; value: string | null } | null {
  if (!/^-[^-]/.test(word)) return null;
  for (let j = 1; j < word.length; j++) {
    if (valueShorts.includes(word[j]!)) return { flag: `-${word[j]!}`, value: word.slice(j + 1) || null };
  }
  return null;
}

const shortsOf = (flags: readonly string[] = []): string =>
  flags
    .filter((f) => /^-[^-]$/.test(f))
    .map((f) => f[1])
    .join('');

function skipOptions(args: Word[], wrapper: Wrapper, name: string, notes: Verdict[]): Word[] {
  let i = 0;
  while (i < args.length && args[i]!.text.startsWith('-')) {
    const flag = args[i]!.text;
    if (flag === '--') return args.slice(i + 1);
    const cluster = clusterValue(flag, shortsOf(wrapper.valueFlags));
    const takes = (wrapper.valueFlags?.includes(flag) ?? false) || (cluster !== null && cluster.value === null);
    const attached = wrapper.writeFlags?.find((f) => flag.startsWith(f.startsWith('--') ? `${f}=` : f) && flag !== f);
    const value = takes ? args[i + 1] : undefined;
    if (value !== undefined && wrapper.writeFlags?.includes(flag)) {
      const v = judgeWriteTarget(value.text, `${name} ${flag}`, value.expansion);
      if (v !== null) notes.push(v);
    } else if (attached !== undefined) {
      const v = judgeWriteTarget(flag.slice(attached.length).replace(/^=/, ''), `${name} ${attached}`);
      if (v !== null) notes.push(v);
    }
    i += takes ? 2 : 1;
  }
  return args.slice(i + (wrapper.positional ?? 0));
}

/** xargs -I R runs the command with R replaced by its input; without -I it appends its input. */
function xargsInput(args: Word[], wrapped: Word[]): Word[] {
  let replace: string | null = null;
  for (let i = 0; i < args.length - wrapped.length; i++) {
    const a = args[i]!.text;
    if (a === '-I' || a === '--replace') replace = args[i + 1]?.text ?? '{}';
    else if (a.startsWith('-I')) replace = a.slice(2);
    else if (a.startsWith('--replace=')) replace = a.slice('--replace='.length);
    else if (a === '-i' || a.startsWith('-i')) replace = a.slice(2) || '{}';
  }
  if (replace === null) return [...wrapped, { text: '(xargs input)', expansion: XARGS_INPUT }];
  const r = replace;
  return wrapped.map((w) => (r !== '' && w.text.includes(r) ? { text: w.text, expansion: XARGS_INPUT } : w));
}

/** `env [options] [NAME=VALUE …] [command]`: assignments judged, `-S` split into words. */
function unwrapEnv(args: Word[], notes: Verdict[]): Unwrapped | Word[] {
  let i = 0;
  while (i < args.length && args[i]!.text.startsWith('-') && args[i]!.text !== '-') {
    const a = args[i]!.text;
    if (a === '--') {
      i++;
      break;
    }
    const cluster = clusterValue(a, 'SuCa');
    const splitFlag = a === '--split-string' || (cluster?.flag === '-S' && cluster.value === null);
    const split = splitFlag ? args[i + 1] : undefined;
    const inline =
      cluster?.flag === '-S' && cluster.value !== null
        ? cluster.value
        : a.startsWith('--split-string=')
          ? a.slice(15)
          : undefined;
    if (split !== undefined || inline !== undefined) {
      const rest = args.slice(i + (split !== undefined ? 2 : 1));
      const text = `env ${split?.text ?? inline} ${rest.map((w) => shellQuote(w.text)).join(' ')}`;
      return { kind: 'inner', text, expansion: unknownIn([...(split ? [split] : []), ...rest]), notes };
    }
    i += ENV_VALUE_FLAGS.includes(a) || (cluster !== null && cluster.value === null) ? 2 : 1;
  }
  let rest = args.slice(i);
  while (rest[0] !== undefined) {
    const name = assignedName(rest[0].text, true);
    if (name === null) break;
    const v = judgeAssignment(name, false);
    if (v !== null) notes.push(v);
    rest = rest.slice(1);
  }
  return rest;
}

/** Peels wrappers, env assignments and shell keywords off `words`, to the command that really runs. */
export function unwrapCommand(words: readonly Word[]): Unwrapped {
  const notes: Verdict[] = [];
  let rest = [...words];
  let sawCommand = false;
  for (;;) {
    const assigned: string[] = [];
    while (rest[0] !== undefined) {
      const name = assignedName(rest[0].text);
      if (name !== null) assigned.push(name);
      else if (!LEADING_KEYWORDS.has(rest[0].text)) break;
      rest = rest.slice(1);
    }
    // With no command after them, assignments set shell variables: only those later commands read matter.
    for (const name of assigned) {
      const v = judgeAssignment(name, rest.length === 0 && !sawCommand);
      if (v !== null) notes.push(v);
    }
    const first = rest[0];
    if (first === undefined) return { kind: 'words', words: [], notes };
    if (first.expansion !== null) return { kind: 'words', words: rest, notes };
    sawCommand = true;
    const text = first.text;
    if (CLOSING_KEYWORDS.has(text)) {
      rest = rest.slice(1);
      continue;
    }
    const verdict = (v: Verdict): Unwrapped => ({ kind: 'verdict', verdict: v, notes });
    if (text === 'for' || text === 'select')
      return verdict({ riskClass: 'read_only', reason: 'loop header only binds a variable' });
    if (text === 'case' || text === 'function')
      return verdict({ riskClass: 'config_mutation', reason: `shell ${text} is not analysed` });
    const name = text.includes('/') ? text.slice(text.lastIndexOf('/') + 1) : text;
    if (name === 'command' && rest.some((w) => w.text === '-v' || w.text === '-V'))
      return verdict({ riskClass: 'read_only', reason: 'command -v only looks a name up' });
    if (name === 'command') {
      rest = rest.slice(1);
      while (rest[0]?.text === '-p') rest = rest.slice(1);
      continue;
    }
    if (name === 'su') {
      const at = rest.findIndex((w) => w.text === '-c' || w.text === '--command');
      const inner = at === -1 ? undefined : rest[at + 1];
      return inner === undefined
        ? verdict(ROOT_SHELL)
        : { kind: 'inner', text: inner.text, expansion: inner.expansion, notes };
    }
    if (name === 'env') {
      const env = unwrapEnv(rest.slice(1), notes);
      if (!Array.isArray(env)) return env;
      if (env.length === 0) return verdict({ riskClass: 'read_only', reason: 'env prints the environment' });
      rest = env;
      continue;
    }
    const wrapper = WRAPPERS[name];
    if (wrapper === undefined) return { kind: 'words', words: rest, notes };
    let wrapped = skipOptions(rest.slice(1), wrapper, name, notes);
    if (wrapped.length === 0) return verdict(wrapper.bare);
    if (name === 'xargs') wrapped = xargsInput(rest.slice(1), wrapped);
    if (wrapper.joinsRest)
      return { kind: 'inner', text: wrapped.map((w) => w.text).join(' '), expansion: unknownIn(wrapped), notes };
    rest = wrapped;
  }
}
