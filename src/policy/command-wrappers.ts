import type { Verdict } from './command-checks.js';

/** What remains once wrappers (`sudo`, `env X=1`, `nice`, `timeout 5` …) are peeled off. */
export type Unwrapped =
  | { kind: 'words'; words: string[] }
  /** A command given as one string (`watch 'df -h'`, `eval …`, `su -c …`): classify it as a line. */
  | { kind: 'inner'; text: string }
  | { kind: 'verdict'; verdict: Verdict };

interface Wrapper {
  /** Options that take a separate value (`sudo -u root`). */
  valueFlags?: readonly string[];
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
  env: {
    valueFlags: ['-u', '--unset', '-C', '--chdir'],
    bare: { riskClass: 'read_only', reason: 'env prints the environment' },
  },
  nohup: { bare: NOTHING },
  setsid: { bare: NOTHING },
  time: { valueFlags: ['-f', '--format'], bare: NOTHING },
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
      '-l',
      '-d',
      '-E',
      '-e',
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

// Shell grammar words that only structure a list; the command follows them.
const LEADING_KEYWORDS = new Set(['if', 'then', 'else', 'elif', 'do', 'while', 'until', '!', '{']);
const CLOSING_KEYWORDS = new Set(['fi', 'done', 'esac', '}']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

function skipOptions(args: readonly string[], wrapper: Wrapper): string[] {
  let i = 0;
  while (i < args.length && args[i]!.startsWith('-')) {
    if (args[i] === '--') return args.slice(i + 1);
    i += wrapper.valueFlags?.includes(args[i]!) ? 2 : 1;
  }
  return args.slice(i + (wrapper.positional ?? 0));
}

/** Peels wrappers, env assignments and shell keywords off `words`, to the command that really runs. */
export function unwrapCommand(words: readonly string[]): Unwrapped {
  let rest = [...words];
  for (;;) {
    while (rest[0] !== undefined && (ASSIGNMENT.test(rest[0]) || LEADING_KEYWORDS.has(rest[0]))) rest = rest.slice(1);
    const first = rest[0];
    if (first === undefined) return { kind: 'words', words: [] };
    if (CLOSING_KEYWORDS.has(first)) {
      rest = rest.slice(1);
      continue;
    }
    if (first === 'for' || first === 'select')
      return { kind: 'verdict', verdict: { riskClass: 'read_only', reason: 'loop header only binds a variable' } };
    if (first === 'case' || first === 'function')
      return { kind: 'verdict', verdict: { riskClass: 'config_mutation', reason: `shell ${first} is not analysed` } };
    const name = first.includes('/') ? first.slice(first.lastIndexOf('/') + 1) : first;
    if (name === 'command' && (rest.includes('-v') || rest.includes('-V')))
      return { kind: 'verdict', verdict: { riskClass: 'read_only', reason: 'command -v only looks a name up' } };
    if (name === 'command') {
      rest = rest.slice(1).filter((w) => w !== '-p');
      continue;
    }
    if (name === 'su') {
      const at = rest.findIndex((w) => w === '-c' || w === '--command');
      const inner = at === -1 ? undefined : rest[at + 1];
      return inner === undefined ? { kind: 'verdict', verdict: ROOT_SHELL } : { kind: 'inner', text: inner };
    }
    const wrapper = WRAPPERS[name];
    if (wrapper === undefined) return { kind: 'words', words: rest };
    const wrapped = skipOptions(rest.slice(1), wrapper);
    if (wrapped.length === 0) return { kind: 'verdict', verdict: wrapper.bare };
    if (wrapper.joinsRest) return { kind: 'inner', text: wrapped.join(' ') };
    rest = wrapped;
  }
}
